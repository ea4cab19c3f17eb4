/**
 * GET /pets checks: the schema of a 200, the page size, the status filter, and what becomes of a
 * `limit` or `status` outside the constraints. The schema is judged once; the others take its result
 * and skip, naming list.schema, when the body they need is not there.
 */
import { INT64_MAX, INT64_MIN, PAGE_SIZE, PET_STATUSES, Pets } from '../../api/schemas.js';
import type { DeepReadonly } from '../../core/readonly.js';
import { see, type SkipReason } from '../skip-reason.js';
import { isOverLimit5xx, issueSummary } from './contract.js';
import type { ListQuery } from './request.js';
import type { Recorder, View } from './view.js';

/** A 200 list body as the other list checks need it: the array, the valid Pets, or why they are missing. */
export interface ListBody {
  /** The body when it is a JSON array (valid Pets or not), else null. */
  array: readonly unknown[] | null;
  /** The body when it is a valid Pets array, else null. Shared with other exchanges (see KnownPets): read-only. */
  pets: DeepReadonly<Pets> | null;
  /** Why `array`/`pets` is null, naming the check that judged it. */
  reason: SkipReason;
}

const NOT_AN_ARRAY = see('the 200 body is not a JSON array', 'list.schema');
const NOT_PETS = see('the 200 body is not an array of valid Pet', 'list.schema');
const OVER_LIMIT_5XX = see(
  'an over-limit 5xx: refused by the rate limit before the query was judged',
  'contract.no-server-errors',
);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const keys = Object.keys(value)
    .slice(0, 5)
    .map((k) => JSON.stringify(k));
  return keys.length === 0 ? 'an empty object' : `an object with keys ${keys.join(', ')}`;
}

const STATUSES: ReadonlySet<unknown> = new Set(PET_STATUSES);

function isInt64(x: unknown): boolean {
  return typeof x === 'number' ? Number.isSafeInteger(x) : typeof x === 'bigint' && x >= INT64_MIN && x <= INT64_MAX;
}

/**
 * Arrays already read as plainly Pets, for one run (the observer's). The run's client hands the same decoded
 * value to every exchange whose body repeats byte for byte (src/http/client.ts), and a decoded body is read-only
 * (DeepReadonly in the type, frozen in the tests), so the reading holds for as long as the run.
 */
export type KnownPets = WeakSet<readonly unknown[]>;

/**
 * True only for arrays the Pets schema accepts, read field by field as the schema reads them (an object that
 * is not an array, safe-integer or int64-bigint ids, a string name, a status of the enum or none). It is the
 * hot path of every list answer of a load run, several times cheaper than the schema; anything it does not
 * accept goes to the schema, which judges it and says why.
 */
function plainlyPets(value: readonly unknown[], known: KnownPets | null): boolean {
  if (known?.has(value) === true) return true;
  for (const p of value) {
    if (typeof p !== 'object' || p === null || Array.isArray(p)) return false;
    const o = p as Record<string, unknown>;
    if (
      !isInt64(o.id) ||
      typeof o.name !== 'string' ||
      !isInt64(o.categoryId) ||
      (o.status !== undefined && !STATUSES.has(o.status))
    )
      return false;
  }
  known?.add(value);
  return true;
}

/**
 * list.schema: a 200 of listPets is a bare JSON array of Pet. Integers beyond 2^53 arrive as bigints
 * from the client's lossless parse and are valid int64s; a number that is not a safe integer can only
 * have been rounded, and the Int64 schema rejects it.
 * Returns the body for the other list checks; null when the exchange is not a 200 of listPets. `known`: the
 * run's arrays already read as Pets (none: every body is read).
 */
export function judgeListSchema(v: View, r: Recorder, known: KnownPets | null = null): ListBody | null {
  const { ex, body } = v;
  if (ex.operation !== 'listPets' || v.status !== 200) return null;
  if (body.kind === 'unusable') {
    r.skip('list.schema', ex, body.reason);
    return { array: null, pets: null, reason: body.reason };
  }
  if (body.kind === 'none') {
    r.fail('list.schema', ex, 'a 200 without a body; expected a bare JSON array of Pet');
    return { array: null, pets: null, reason: NOT_AN_ARRAY };
  }
  const value = body.value;
  if (!Array.isArray(value)) {
    r.fail('list.schema', ex, `expected a bare JSON array of Pet, found ${describe(value)}`);
    return { array: null, pets: null, reason: NOT_AN_ARRAY };
  }
  if (plainlyPets(value, known)) {
    r.pass('list.schema', ex);
    return { array: value, pets: value as DeepReadonly<Pets>, reason: '' };
  }
  const res = Pets.safeParse(value);
  if (!res.success) {
    r.fail('list.schema', ex, `not an array of Pet: ${issueSummary(res.error, value)}`);
    return { array: value, pets: null, reason: NOT_PETS };
  }
  r.pass('list.schema', ex);
  return { array: value, pets: res.data, reason: '' };
}

/** list.limit-respected: a 200 to a `limit` in 1..100 has at most `limit` animals; without `limit`, at most 20. */
export function judgeLimitRespected(v: View, q: ListQuery, list: ListBody | null, r: Recorder): void {
  const { ex } = v;
  if (list === null || q.limit.kind === 'invalid') return;
  if (list.array === null) return r.skip('list.limit-respected', ex, list.reason);
  const max = q.limit.kind === 'valid' ? q.limit.value : PAGE_SIZE.default;
  const n = list.array.length;
  if (n <= max) return r.pass('list.limit-respected', ex);
  const asked = q.limit.kind === 'valid' ? `limit=${max}` : `no limit (the default page size is ${PAGE_SIZE.default})`;
  r.fail('list.limit-respected', ex, `${n} animals returned for ${asked}`);
}

/**
 * The shared shape of list.limit-out-of-range and list.invalid-status: 400 (rejected) or a 200 that is
 * still sound, never anything else. Chosen: 401 and 429 are skipped (the key or the rate limit was judged
 * before the query could be), and so is an over-limit 5xx (a rate-limit refusal in the wrong status, owned by
 * contract.no-server-errors); every other status fails, 5xx included, as the catalogue states "never 5xx".
 */
function judgeOutOfConstraint(
  id: 'list.limit-out-of-range' | 'list.invalid-status',
  v: View,
  param: string,
  judge200: () => { ok: true; info: string } | { ok: false; message: string } | { skip: SkipReason },
  r: Recorder,
): void {
  const { ex, status } = v;
  if (status === null) return;
  if (status === 400) {
    r.info(id, ex, param, 'rejected (400)');
    return r.pass(id, ex);
  }
  if (status === 401 || status === 429)
    return r.skip(id, ex, `answered ${status}: refused before the query was judged`);
  if (isOverLimit5xx(ex)) return r.skip(id, ex, OVER_LIMIT_5XX);
  if (status !== 200) return r.fail(id, ex, `${param} answered ${status}; expected 400 Error or a 200`);
  const res = judge200();
  if ('skip' in res) return r.skip(id, ex, res.skip);
  if (!res.ok) return r.fail(id, ex, `${param}: ${res.message}`);
  r.info(id, ex, param, res.info);
  r.pass(id, ex);
}

/** list.limit-out-of-range: a `limit` outside 1..100 gets 400 or is clamped (200 with at most 100 animals). */
export function judgeLimitOutOfRange(v: View, q: ListQuery, list: ListBody | null, r: Recorder): void {
  if (v.ex.operation !== 'listPets' || q.limit.kind !== 'invalid') return;
  judgeOutOfConstraint(
    'list.limit-out-of-range',
    v,
    `limit=${q.limit.raw}`,
    () => {
      if (list === null || list.array === null) return { skip: list?.reason ?? NOT_AN_ARRAY };
      const n = list.array.length;
      return n <= PAGE_SIZE.max
        ? { ok: true, info: 'clamped (200)' }
        : { ok: false, message: `200 with ${n} animals, more than ${PAGE_SIZE.max}` };
    },
    r,
  );
}

/** list.invalid-status: a `status` outside the enum gets 400, or a 200 whose animals all have a valid status. */
export function judgeInvalidStatus(v: View, q: ListQuery, list: ListBody | null, r: Recorder): void {
  if (v.ex.operation !== 'listPets' || q.status.kind !== 'invalid') return;
  // A valid Pets array has only valid statuses; an invalid one is list.schema's failure, not a second one here.
  judgeOutOfConstraint(
    'list.invalid-status',
    v,
    `status=${q.status.raw}`,
    () =>
      list === null || list.pets === null
        ? { skip: list?.reason ?? NOT_PETS }
        : { ok: true, info: 'accepted (200, valid statuses only)' },
    r,
  );
}

/** list.status-filter: a 200 to a valid `status` has only animals of that status. */
export function judgeStatusFilter(v: View, q: ListQuery, list: ListBody | null, r: Recorder): void {
  const { ex } = v;
  if (list === null || q.status.kind !== 'valid') return;
  if (list.pets === null) return r.skip('list.status-filter', ex, list.reason);
  const want = q.status.value;
  // Counted without building a list: this runs on every filtered list answer of a load.
  let wrong = 0;
  let first: Pets[number] | undefined;
  for (const p of list.pets) {
    if (p.status === want) continue;
    wrong++;
    first ??= p;
  }
  if (first === undefined) return r.pass('list.status-filter', ex);
  r.fail(
    'list.status-filter',
    ex,
    `${wrong} of ${list.pets.length} animals for status=${want} have another status (first: id ${String(first.id)} with ${first.status ?? 'no status'})`,
  );
}
