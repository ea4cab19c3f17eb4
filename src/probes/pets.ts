/** The animals in the answers, as the contract probes read them, and the random part of the names they make up. */
import { randomBytes } from 'node:crypto';
import { Pets } from '../api/schemas.js';
import { bodyReadOf } from '../checks/passive/view.js';
import type { Exchange } from '../http/exchange.js';

export const nonce = () => randomBytes(4).toString('hex');
const idText = (v: unknown) => (typeof v === 'bigint' || typeof v === 'number' ? String(v) : null);

/** Ids and names of the animals in a list response (empty when the body is not a list of Pets). */
export function petsIn(ex: Exchange): { id: string; name: string; status?: string }[] {
  if (ex.body.kind !== 'json') return [];
  const r = Pets.safeParse(ex.body.value);
  return r.success
    ? r.data.map((p) => ({ id: String(p.id), name: p.name, ...(p.status ? { status: p.status } : {}) }))
    : [];
}

/** The id in a JSON body that has one (a Pet or not), as text. */
export function idIn(ex: Exchange): string | null {
  const b = bodyReadOf(ex);
  if (b.kind !== 'json' || typeof b.value !== 'object' || b.value === null) return null;
  return idText((b.value as { id?: unknown }).id);
}
