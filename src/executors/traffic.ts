/**
 * The requests of the load: an operation mix with weights, valid random requests for each operation, and the
 * ids created during the run for getPet. Shared by every plan and phase of a load section, so that a get can
 * ask for any animal the run created. Cheap on purpose: it runs once per request on the hot path.
 *
 * - listPets: `limit` uniform in 1..100, `status` one of the enum or none (each a quarter of the time);
 * - createPet: a valid NewPet, `status` absent a quarter of the time;
 * - getPet: an id created in the run (the last CREATED_KEPT), or, for a share `unknownGetShare` (and always
 *   while the run has created nothing), an id never created: a random safe integer within 2^32 of 2^53, a
 *   range a store that hands out ids in order never reaches.
 */
import { PET_OPERATION_IDS, type PetOperationId } from '../api/operations.js';
import { PAGE_SIZE, PET_STATUSES } from '../api/schemas.js';
import type { OperationMix } from './load-schema.js';
import type { ApiKey } from '../core/api-key.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';

/** A request without its credential, as autocannon takes it too. */
export interface RequestShape {
  operation: PetOperationId;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const CREATED_KEPT = 1024;
const UNKNOWN_SPAN = 2 ** 32;
const UNKNOWN_FLOOR = Number.MAX_SAFE_INTEGER - UNKNOWN_SPAN;
const STATUS_CHOICES = [undefined, ...PET_STATUSES] as const;
const CATEGORIES = 1000;

/**
 * The listPets paths, made once each: the same string for the same query keeps its hash, so the client's and
 * the checks' per-path tables find it without reading it again, and no string is built per request.
 */
const LIST_PATHS: string[] = [];

function listPath(limit: number, statusIndex: number): string {
  const i = (limit - PAGE_SIZE.min) * STATUS_CHOICES.length + statusIndex;
  let path = LIST_PATHS[i];
  if (path === undefined) {
    const status = STATUS_CHOICES[statusIndex];
    path = status === undefined ? `/pets?limit=${limit}` : `/pets?limit=${limit}&status=${status}`;
    LIST_PATHS[i] = path;
  }
  return path;
}

export class Traffic {
  private readonly ops: PetOperationId[] = [];
  private readonly cumulative: number[] = [];
  private readonly total: number;
  private readonly created: string[] = [];
  private nextSlot = 0;
  private serial = 0;

  constructor(
    mix: OperationMix,
    private readonly unknownGetShare: number,
    private readonly random: () => number = Math.random,
  ) {
    let sum = 0;
    for (const op of PET_OPERATION_IDS) {
      if (mix[op] <= 0) continue;
      sum += mix[op];
      this.ops.push(op);
      this.cumulative.push(sum);
    }
    this.total = sum;
  }

  private pick(): PetOperationId {
    const r = this.random() * this.total;
    for (let i = 0; i < this.ops.length; i++) if (r < this.cumulative[i]!) return this.ops[i]!;
    return this.ops[this.ops.length - 1]!;
  }

  private choice<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  /** The next request of the mix. */
  shape(): RequestShape {
    const operation = this.pick();
    if (operation === 'listPets') {
      const limit = PAGE_SIZE.min + Math.floor(this.random() * (PAGE_SIZE.max - PAGE_SIZE.min + 1));
      const s = Math.floor(this.random() * STATUS_CHOICES.length);
      return { operation, method: 'GET', path: listPath(limit, s) };
    }
    if (operation === 'createPet') {
      const status = this.choice(STATUS_CHOICES);
      const categoryId = 1 + Math.floor(this.random() * CATEGORIES);
      const name = `petload ${++this.serial}`;
      const body =
        status === undefined
          ? `{"name":"${name}","categoryId":${categoryId}}`
          : `{"name":"${name}","categoryId":${categoryId},"status":"${status}"}`;
      return { operation, method: 'POST', path: '/pets', body };
    }
    return { operation, method: 'GET', path: `/pets/${this.petId()}` };
  }

  private petId(): string {
    if (this.created.length > 0 && this.random() >= this.unknownGetShare) return this.choice(this.created);
    return String(UNKNOWN_FLOOR + Math.floor(this.random() * UNKNOWN_SPAN));
  }

  /** The next request of the mix on `key`. */
  spec(key: ApiKey, tag: string): RequestSpec {
    const s = this.shape();
    const spec: RequestSpec = {
      operation: s.operation,
      method: s.method,
      path: s.path,
      auth: { kind: 'key', key },
      tag,
    };
    if (s.body !== undefined) spec.body = s.body;
    return spec;
  }

  /** Remember the id of an animal the run created. */
  learn(ex: Exchange): void {
    if (ex.operation !== 'createPet' || ex.status !== 201 || ex.body.kind !== 'json') return;
    const id = (ex.body.value as { id?: unknown } | null)?.id;
    if (typeof id !== 'number' && typeof id !== 'bigint') return;
    const text = String(id);
    if (this.created.length < CREATED_KEPT) this.created.push(text);
    else {
      this.created[this.nextSlot] = text;
      this.nextSlot = (this.nextSlot + 1) % CREATED_KEPT;
    }
  }
}
