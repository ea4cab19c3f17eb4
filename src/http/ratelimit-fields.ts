/**
 * The IETF rate-limit fields (draft-ietf-httpapi-ratelimit-headers), read as structured fields (RFC 9651) with the
 * `structured-headers` library (the only import of it). Three forms are still deployed:
 *
 * - `draft-11` (and drafts 8 to 10): `RateLimit-Policy` a list of named policies with `q` (quota, required), `qu`,
 *   `w` (window, seconds), `pk`; `RateLimit` a list of named limits with `r` (remaining, required), `t` (seconds
 *   until reset), `pk`. express-rate-limit's `draft-8` sends this form.
 * - `draft-07`: `RateLimit` one dictionary `limit=, remaining=, reset=`, and `RateLimit-Policy` a list of quotas
 *   with `w` (express-rate-limit's `draft-7`).
 * - `draft-03` (to 06): `RateLimit-Limit` (a quota, then optional policies `q;w=`), `RateLimit-Remaining`,
 *   `RateLimit-Reset` (seconds until reset), as Envoy sends them; draft-06 adds `RateLimit-Policy`
 *   (express-rate-limit's `draft-6`).
 *
 * Pure: headers in, a value out; never throws.
 */
import { parseDictionary, parseItem, parseList, Token, type Item, type List } from 'structured-headers';
import { headerValues, type HeaderMap } from './exchange.js';

export type FieldsForm = 'draft-11' | 'draft-07' | 'draft-03';

export const FORM_NAMES: Record<FieldsForm, string> = {
  'draft-11': 'draft-11 RateLimit / RateLimit-Policy (named lists)',
  'draft-07': 'draft-07 RateLimit dictionary',
  'draft-03': 'draft-03 RateLimit-Limit / -Remaining / -Reset',
};

/** One limit the response reports: what is left and when it comes back, for a policy (named, or the only one). */
export interface FieldLimit {
  readonly policy: string | null;
  readonly remaining: number;
  /** Seconds until the quota is restored, when given. */
  readonly resetS: number | null;
  /** The quota of the limit, where the form gives it beside the remaining (draft-03, draft-07). */
  readonly quota: number | null;
}

/** One policy: `quota` requests per `windowS` seconds. */
export interface FieldPolicy {
  readonly name: string | null;
  readonly quota: number;
  readonly windowS: number | null;
}

export type FieldsRead =
  | { readonly present: false }
  | {
      readonly present: true;
      readonly form: FieldsForm;
      readonly ok: true;
      readonly limits: readonly FieldLimit[];
      readonly policies: readonly FieldPolicy[];
    }
  | { readonly present: true; readonly form: FieldsForm; readonly ok: false; readonly problem: string };

const NAMES = ['ratelimit', 'ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'] as const;

/** The field names a response carries, of the IETF forms (for evidence where X-RateLimit-* is missing). */
export function ietfFieldNames(headers: HeaderMap): string[] {
  return NAMES.filter((n) => headerValues(headers, n).length > 0).map((n) =>
    n.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => `${d}${c.toUpperCase()}`).replace('Ratelimit', 'RateLimit'),
  );
}

/** A field's lines joined as one structured field (RFC 9651 §4.2: several lines are one comma-separated value). */
const joined = (headers: HeaderMap, name: string): string | null => {
  const vs = headerValues(headers, name);
  return vs.length === 0 ? null : vs.join(', ');
};

class Bad extends Error {}
const bad = (m: string): never => {
  throw new Bad(m);
};

const nonNegative = (v: unknown, what: string): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : bad(`${what} is ${show(v)}, not a non-negative integer`);
const optionalNonNegative = (v: unknown, what: string): number | null =>
  v === undefined ? null : nonNegative(v, what);
const show = (v: unknown): string =>
  v === undefined
    ? 'missing'
    : v instanceof Token
      ? `the token ${v.toString()}`
      : v instanceof ArrayBuffer
        ? 'a byte sequence'
        : (JSON.stringify(v) ?? String(v));

/** A policy's or limit's name: a string or a token (draft-11 §3, §4). */
const nameOf = (v: unknown, what: string): string =>
  typeof v === 'string'
    ? v
    : v instanceof Token
      ? v.toString()
      : bad(`${what} is named by ${show(v)}, not a string or token`);

const items = (l: List, field: string): Item[] =>
  l.map((m) => (Array.isArray(m[0]) ? bad(`${field} holds an inner list`) : (m as Item)));

function draft11(headers: HeaderMap): { limits: FieldLimit[]; policies: FieldPolicy[] } {
  const rl = joined(headers, 'ratelimit');
  const rp = joined(headers, 'ratelimit-policy');
  const limits =
    rl === null
      ? []
      : items(parseList(rl), 'RateLimit').map(([v, p]) => {
          const policy = nameOf(v, 'a RateLimit item');
          return {
            policy,
            remaining: nonNegative(p.get('r'), `r of "${policy}"`),
            resetS: optionalNonNegative(p.get('t'), `t of "${policy}"`),
            quota: null,
          };
        });
  const policies =
    rp === null
      ? []
      : items(parseList(rp), 'RateLimit-Policy').map(([v, p]) => {
          const name = nameOf(v, 'a RateLimit-Policy item');
          const quota = nonNegative(p.get('q'), `q of "${name}"`);
          const w = optionalNonNegative(p.get('w'), `w of "${name}"`);
          const qu = p.get('qu');
          if (qu !== undefined && typeof qu !== 'string') bad(`qu of "${name}" is ${show(qu)}, not a string`);
          return { name, quota, windowS: w };
        });
  return { limits, policies };
}

/** A list of quotas, each `q;w=seconds` (draft-03 to 07's policies). */
function quotaPolicies(value: string, field: string): FieldPolicy[] {
  return items(parseList(value), field).map(([v, p]) => ({
    name: null,
    quota: nonNegative(v, `a ${field} quota`),
    windowS: optionalNonNegative(p.get('w'), `w of a ${field} quota`),
  }));
}

function draft07(headers: HeaderMap, dict: Map<string, unknown>): { limits: FieldLimit[]; policies: FieldPolicy[] } {
  const member = (k: string) => {
    const m = dict.get(k) as [unknown, unknown] | undefined;
    return m === undefined ? undefined : m[0];
  };
  const quota = nonNegative(member('limit'), 'limit');
  const limits = [
    {
      policy: null,
      quota,
      remaining: nonNegative(member('remaining'), 'remaining'),
      resetS: nonNegative(member('reset'), 'reset'),
    },
  ];
  const rp = joined(headers, 'ratelimit-policy');
  return { limits, policies: rp === null ? [] : quotaPolicies(rp, 'RateLimit-Policy') };
}

function draft03(headers: HeaderMap): { limits: FieldLimit[]; policies: FieldPolicy[] } {
  const limit = joined(headers, 'ratelimit-limit');
  const remaining = joined(headers, 'ratelimit-remaining');
  const reset = joined(headers, 'ratelimit-reset');
  const missing = [
    limit === null && 'RateLimit-Limit',
    remaining === null && 'RateLimit-Remaining',
    reset === null && 'RateLimit-Reset',
  ].filter(Boolean);
  if (missing.length > 0) bad(`${missing.join(' and ')} missing beside the others`);
  const [first, ...rest] = quotaPolicies(limit!, 'RateLimit-Limit');
  const rp = joined(headers, 'ratelimit-policy');
  const policies =
    rp !== null
      ? quotaPolicies(rp, 'RateLimit-Policy')
      : rest.length > 0
        ? rest
        : first!.windowS !== null
          ? [first!]
          : [];
  const limits = [
    {
      policy: null,
      quota: first!.quota,
      remaining: nonNegative(parseItem(remaining!)[0], 'RateLimit-Remaining'),
      resetS: nonNegative(parseItem(reset!)[0], 'RateLimit-Reset'),
    },
  ];
  return { limits, policies };
}

/** Which form the response's fields are in: the separate fields are draft-03; a RateLimit dictionary is draft-07. */
function formOf(headers: HeaderMap): { form: FieldsForm; dict?: Map<string, unknown> } | null {
  // This runs on every response, and most carry none of them: `present` is empty then, built of no arrays
  // (headerValues of an absent header is a shared empty one).
  const present = NAMES.filter((n) => headerValues(headers, n).length > 0);
  if (present.length === 0) return null;
  if (present.some((n) => n === 'ratelimit-limit' || n === 'ratelimit-remaining' || n === 'ratelimit-reset'))
    return { form: 'draft-03' };
  const rl = joined(headers, 'ratelimit');
  if (rl !== null) {
    try {
      const dict = parseDictionary(rl) as Map<string, unknown>;
      if (dict.has('limit') || dict.has('remaining') || dict.has('reset')) return { form: 'draft-07', dict };
    } catch {
      // Not a dictionary: a list of named limits (draft-11), parsed as such below.
    }
  }
  return { form: 'draft-11' };
}

export function readRateLimitFields(headers: HeaderMap): FieldsRead {
  const f = formOf(headers);
  if (f === null) return { present: false };
  try {
    const read =
      f.form === 'draft-03' ? draft03(headers) : f.form === 'draft-07' ? draft07(headers, f.dict!) : draft11(headers);
    if (f.form === 'draft-11' && read.limits.length === 0 && read.policies.length === 0) bad('no limit and no policy');
    return { present: true, form: f.form, ok: true, ...read };
  } catch (e) {
    const problem = e instanceof Bad ? e.message : `not a structured field: ${(e as Error).message}`;
    return { present: true, form: f.form, ok: false, problem };
  }
}

/**
 * What the IETF fields say of the tightest limit, as an X-RateLimit-* triple would (Limit = its quota, Remaining,
 * Reset as a Unix second from the answer's time), for a target that sends only them; null when they do not say
 * all three (a limit without a quota or without a reset) or are not well formed.
 */
export function ietfTriple(
  headers: HeaderMap,
  serverMs: number,
): { limit: number; remaining: number; reset: number } | null {
  const f = readRateLimitFields(headers);
  if (!f.present || !f.ok) return null;
  let best: { limit: number; remaining: number; reset: number } | null = null;
  for (const l of f.limits) {
    const quota = l.quota ?? f.policies.find((p) => p.name === l.policy)?.quota ?? null;
    if (quota === null || l.resetS === null) continue;
    if (best === null || l.remaining < best.remaining)
      best = { limit: quota, remaining: l.remaining, reset: Math.floor(serverMs / 1000) + l.resetS };
  }
  return best;
}
