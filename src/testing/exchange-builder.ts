/**
 * Test-only: builds Exchange values with sensible defaults, so a test states only what it is about.
 * The default is a 200 listPets answered to a free key at a fixed time, with valid rate-limit headers.
 * Never imported by src.
 */
import { PLANS, type PlanLimits, type PlanName } from '../api/plans.js';
import type { AnyCheckId } from '../checks/catalogue.js';
import type { LimiterReading, RunFacts } from '../checks/deferrals.js';
import type { Ledger, Outcome } from '../checks/ledger.js';
import { type ApiKey, keyLabel } from '../core/api-key.js';
import { deepFreeze } from '../core/readonly.js';
import type { Exchange, HeaderMap, ParsedBody } from '../http/exchange.js';

/** 2030-01-15 12:00:30 UTC: the minute window ends 30 s later. */
export const FIXED_NOW = Date.UTC(2030, 0, 15, 12, 0, 30);
export const FIXED_NOW_S = FIXED_NOW / 1000;
/** The Reset of the default minute window (12:01:00). */
export const MINUTE_RESET = FIXED_NOW_S + 30;
export const FREE_LABEL = 'free#1 (…wxyz)';
/** The published plans' figures, as the observer takes them. */
/** A key of a published plan for unit tests: `<plan>#<n>`, its secret `<plan>-secret-<suffix>`. */
export function testKey(plan: 'free' | 'pro' | 'business' = 'free', n = 1, suffix = 'wxyz'): ApiKey {
  const secret = `${plan}-secret-${suffix}`;
  return { secret, plan, limits: PLANS[plan], label: keyLabel(secret, `${plan}#${n}`), sacrificial: false };
}

export const TEST_PLANS: ReadonlyMap<PlanName, PlanLimits> = new Map<PlanName, PlanLimits>([
  ['free', PLANS.free],
  ['pro', PLANS.pro],
  ['business', PLANS.business],
]);

export function httpDate(epochMs: number): string {
  return new Date(epochMs).toUTCString();
}

/** JSON text of a value that may hold bigints (as a lossless parse would give them). */
function losslessText(value: unknown): string {
  return (
    JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `__big${v}__` : v))?.replace(
      /"__big(-?\d+)__"/g,
      '$1',
    ) ?? ''
  );
}

/**
 * A decoded JSON body, frozen as the client's decoded bodies are shared (src/http/client.ts): a check that
 * changed one would throw here, in its tests.
 */
export function jsonBody(value: unknown): ParsedBody {
  return { kind: 'json', value: deepFreeze(value), excerpt: losslessText(value).slice(0, 1000) };
}

export function rateLimitHeaders(
  limit: number | string,
  remaining: number | string,
  reset: number | string,
): HeaderMap {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(reset),
  };
}

export const SAMPLE_PETS = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 2, name: 'Tom', categoryId: 2 },
];

export interface ExchangeParts extends Partial<Omit<Exchange, 'headers' | 'timing' | 'body'>> {
  /** Merged over the defaults; a value of `undefined` removes that header. */
  headers?: Record<string, string | string[] | undefined>;
  timing?: Partial<Exchange['timing']>;
  /** A parsed body; `json` is a shortcut for a JSON body of that value. */
  body?: ParsedBody;
  json?: unknown;
}

let nextSeq = 1;

export function buildExchange(parts: ExchangeParts = {}): Exchange {
  const { headers: overrides, timing, json, body, ...rest } = parts;
  const headers: HeaderMap = {
    date: httpDate(FIXED_NOW),
    'content-type': 'application/json; charset=utf-8',
    ...rateLimitHeaders(60, 59, MINUTE_RESET),
  };
  for (const [k, v] of Object.entries(overrides ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  return {
    seq: nextSeq++,
    operation: 'listPets',
    method: 'GET',
    path: '/pets',
    auth: 'valid',
    keyLabel: FREE_LABEL,
    plan: 'free',
    requestBody: null,
    status: 200,
    error: null,
    localTime: FIXED_NOW,
    overlapped: false,
    tag: 'test',
    ...rest,
    headers,
    body: body ?? jsonBody(json === undefined ? SAMPLE_PETS : json),
    timing: { intended: 1000, sent: 1000, headers: 1005, done: 1010, ...timing },
  };
}

/** The outcome a check recorded for a plan (the default plan is the builder's `free`), or undefined. */
/**
 * The run's facts the deferrals between checks read, as a test sets them: one counter per key and a limiter whose
 * headers stand still (a fixed window) unless told otherwise.
 */
export function runFacts(
  countersOf: (plan: PlanName | null) => number = () => 1,
  limiterOf: (plan: PlanName | null) => LimiterReading = () => 'still',
): RunFacts {
  return { countersOf, limiterOf };
}

export function outcomeOf(ledger: Ledger, id: AnyCheckId, plan: PlanName | null = 'free'): Outcome | undefined {
  return ledger.all().find((o) => o.id === id && o.plan === plan);
}

/** Counts of a check's outcome, zero when it recorded nothing: `{ passed, failed, skipped }`. */
export function countsOf(
  ledger: Ledger,
  id: AnyCheckId,
  plan: PlanName | null = 'free',
): { passed: number; failed: number; skipped: number } {
  const o = outcomeOf(ledger, id, plan);
  return { passed: o?.passed ?? 0, failed: o?.failed ?? 0, skipped: o?.skipped ?? 0 };
}
