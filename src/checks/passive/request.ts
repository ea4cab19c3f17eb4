/**
 * Whether a request stayed within the interface's constraints, read from the path the suite sent.
 * A request outside them (a `limit` or `status` the interface forbids, a malformed petId, a query
 * parameter the interface does not define) may also be answered 400 or 404.
 */
import { INT64_MAX, INT64_MIN, PAGE_SIZE, PET_STATUSES, type PetStatus } from '../../api/schemas.js';
import type { Exchange } from '../../http/exchange.js';

export type LimitParam = { kind: 'absent' } | { kind: 'valid'; value: number } | { kind: 'invalid'; raw: string };
export type StatusParam = { kind: 'absent' } | { kind: 'valid'; value: PetStatus } | { kind: 'invalid'; raw: string };

export interface ListQuery {
  readonly limit: LimitParam;
  readonly status: StatusParam;
}

export interface RequestScope {
  /** True when the request breaks a constraint of the interface, so 400 and 404 are also acceptable. */
  readonly outside: boolean;
  /** The query of a listPets request; null for other operations. */
  readonly list: ListQuery | null;
}

/** How much of a request value a report shows. */
const RAW_MAX = 32;

function clip(raw: string): string {
  return raw.length > RAW_MAX ? `${raw.slice(0, RAW_MAX)}…` : raw;
}

function splitPath(path: string): { route: string; query: URLSearchParams | null } {
  const q = path.indexOf('?');
  if (q === -1 || q === path.length - 1) return { route: q === -1 ? path : path.slice(0, q), query: null };
  return { route: path.slice(0, q), query: new URLSearchParams(path.slice(q + 1)) };
}

/**
 * A `limit` is within the constraints when it is one decimal integer in 1..100. Leading zeros are
 * accepted (`050` is the integer 50, as schema validators read it); a sign, a fraction, an exponent,
 * an empty value or a repeated parameter are not.
 */
function limitParam(query: URLSearchParams | null): LimitParam {
  const all = query?.getAll('limit') ?? [];
  if (all.length === 0) return { kind: 'absent' };
  const raw = all.join(',');
  if (all.length > 1 || !/^[0-9]{1,4}$/.test(raw)) return { kind: 'invalid', raw: clip(raw) };
  const value = Number(raw);
  return value >= PAGE_SIZE.min && value <= PAGE_SIZE.max ? { kind: 'valid', value } : { kind: 'invalid', raw };
}

/** A `status` is within the constraints when it is exactly one of the enum values (case matters). */
function statusParam(query: URLSearchParams | null): StatusParam {
  const all = query?.getAll('status') ?? [];
  if (all.length === 0) return { kind: 'absent' };
  const raw = all.join(',');
  if (all.length === 1 && (PET_STATUSES as readonly string[]).includes(raw))
    return { kind: 'valid', value: raw as PetStatus };
  return { kind: 'invalid', raw: clip(raw) };
}

/** A petId within the constraints is a canonical int64 (the interface's type and format). */
function isInt64Id(segment: string): boolean {
  if (!/^-?(0|[1-9][0-9]{0,18})$/.test(segment)) return false;
  const n = BigInt(segment);
  return n >= INT64_MIN && n <= INT64_MAX;
}

const SCOPES_MAX = 4096;

/** What the interface says of the request `ex` sent. */
export function scopeOf(ex: Exchange): RequestScope {
  return scopeOfPath(ex.operation, ex.path);
}

/**
 * scopeOf with a memory for one run (the observer's): a load sends a few hundred distinct paths, each many
 * times, and parsing a query is among the costliest steps of judging an exchange. Bounded: past the cap a
 * path is parsed every time. Results are shared between exchanges: callers must not change them.
 */
export function createScopeReader(): (ex: Exchange) => RequestScope {
  const scopes = new Map<Exchange['operation'], Map<string, RequestScope>>();
  return (ex) => {
    let byPath = scopes.get(ex.operation);
    if (byPath === undefined) scopes.set(ex.operation, (byPath = new Map()));
    let scope = byPath.get(ex.path);
    if (scope === undefined) {
      scope = scopeOfPath(ex.operation, ex.path);
      if (byPath.size < SCOPES_MAX) byPath.set(ex.path, scope);
    }
    return scope;
  };
}

function scopeOfPath(operation: Exchange['operation'], path: string): RequestScope {
  const { route, query } = splitPath(path);
  switch (operation) {
    case 'listPets': {
      const list = { limit: limitParam(query), status: statusParam(query) };
      // The interface defines only limit and status on GET /pets; anything else is outside it.
      const unknown = query !== null && [...query.keys()].some((k) => k !== 'limit' && k !== 'status');
      return { outside: unknown || list.limit.kind === 'invalid' || list.status.kind === 'invalid', list };
    }
    case 'getPet':
      return { outside: query !== null || !isInt64Id(route.slice(route.lastIndexOf('/') + 1)), list: null };
    case 'createPet':
      return { outside: query !== null, list: null };
    case 'listOrders':
    case null:
      return { outside: false, list: null };
  }
}
