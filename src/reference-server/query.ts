/** The query of GET /pets (spec: "GET /pets"): `limit` an integer in 1..100 (default 20), `status` a PetStatus. */
import { PAGE_SIZE, PET_STATUSES, type PetStatus } from '../api/schemas.js';

export interface ListQuery {
  readonly limit: number;
  readonly status: PetStatus | undefined;
}

export type ListQueryOutcome = { ok: true; query: ListQuery } | { ok: false; message: string };

const DEFAULT: ListQueryOutcome = { ok: true, query: { limit: PAGE_SIZE.default, status: undefined } };
const STATUSES: readonly string[] = PET_STATUSES;

function decode(s: string): string | undefined {
  if (!s.includes('%') && !s.includes('+')) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** Parses the raw query string (without `?`). Unknown parameters are ignored; a repeated one is refused. */
export function parseListQuery(qs: string): ListQueryOutcome {
  if (qs === '') return DEFAULT;
  let limit: string | undefined;
  let status: string | undefined;
  for (const pair of qs.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    if (name === undefined || value === undefined)
      return { ok: false, message: 'malformed percent-encoding in the query' };
    if (name === 'limit') {
      if (limit !== undefined) return { ok: false, message: 'limit is given more than once' };
      limit = value;
    } else if (name === 'status') {
      if (status !== undefined) return { ok: false, message: 'status is given more than once' };
      status = value;
    }
  }
  let n: number = PAGE_SIZE.default;
  if (limit !== undefined) {
    n = /^\d{1,3}$/.test(limit) ? Number(limit) : NaN;
    if (!(n >= PAGE_SIZE.min && n <= PAGE_SIZE.max)) {
      return { ok: false, message: `limit must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}` };
    }
  }
  if (status !== undefined && !STATUSES.includes(status)) {
    return { ok: false, message: `status must be one of ${PET_STATUSES.join(', ')}` };
  }
  return { ok: true, query: { limit: n, status: status as PetStatus | undefined } };
}
