/**
 * The check catalogue as data (docs/checks.md, whose table `npm run docs` generates from it). The ids are a
 * public contract: never renamed; a new check gets a new id. Everything else (reports, JUnit, `petload list
 * checks`, the docs) reads this table.
 */
import type { Severity } from '../report/severity.js';

export { FAILING_SEVERITIES, SEVERITIES, type Severity } from '../report/severity.js';

export interface CheckMeta {
  readonly title: string;
  readonly severity: Severity;
  readonly family: 'contract' | 'auth' | 'ratelimit' | 'retry-after' | 'client';
}

export const CATALOGUE = {
  // Contract
  'contract.transport': {
    family: 'contract',
    severity: 'critical',
    title: 'Every request gets a whole HTTP response within the timeout',
  },
  'contract.no-server-errors': {
    family: 'contract',
    severity: 'critical',
    title: 'No 5xx response, ever; over-limit is never 5xx',
  },
  'contract.documented-status': {
    family: 'contract',
    severity: 'major',
    title: 'Status codes are documented for their operation',
  },
  'contract.json-content-type': {
    family: 'contract',
    severity: 'major',
    title: 'Every response with a body is application/json',
  },
  'contract.error-shape': {
    family: 'contract',
    severity: 'critical',
    title: 'Error bodies have code, message and status equal to the HTTP status',
  },
  'list.schema': { family: 'contract', severity: 'critical', title: 'GET /pets answers a bare JSON array of Pet' },
  'list.limit-respected': {
    family: 'contract',
    severity: 'critical',
    title: 'GET /pets returns at most `limit` animals (20 by default)',
  },
  'list.limit-out-of-range': {
    family: 'contract',
    severity: 'major',
    title: 'An out-of-range `limit` gets 400 or is clamped, never 5xx',
  },
  'list.status-filter': {
    family: 'contract',
    severity: 'critical',
    title: 'GET /pets?status=X returns only animals with status X',
  },
  'list.invalid-status': {
    family: 'contract',
    severity: 'major',
    title: 'An invalid `status` gets 400 or valid animals only, never 5xx',
  },
  'create.returns-pet': {
    family: 'contract',
    severity: 'critical',
    title: 'POST /pets answers 201 with the created Pet and a new id',
  },
  'create.rejects-invalid': {
    family: 'contract',
    severity: 'critical',
    title: 'POST /pets rejects invalid bodies with 400 and creates nothing',
  },
  'get.returns-pet': { family: 'contract', severity: 'major', title: 'GET /pets/{id} returns the animal just created' },
  'get.unknown-404': { family: 'contract', severity: 'critical', title: 'GET /pets/{id} of an unknown id answers 404' },
  'deprecation.behaviour-unchanged': {
    family: 'contract',
    severity: 'major',
    title: 'The deprecated GET /pets/{id} still answers as documented and counts against quota',
  },
  'deprecation.announced': {
    family: 'contract',
    severity: 'advisory',
    title: 'Deprecation and Sunset headers, if sent, are well formed',
  },
  // Authentication
  'auth.missing-key': { family: 'auth', severity: 'critical', title: 'No Authorization header gets 401' },
  'auth.invalid-key': {
    family: 'auth',
    severity: 'critical',
    title: 'Unknown, empty or non-Bearer credentials get 401',
  },
  'auth.challenge': { family: 'auth', severity: 'minor', title: '401 responses carry WWW-Authenticate: Bearer' },
  'auth.no-quota-drain': {
    family: 'auth',
    severity: 'critical',
    title: "Requests with invalid keys do not drain a valid key's quota",
  },
  // Rate-limit headers
  'ratelimit.headers-present': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'X-RateLimit-* headers on every 2xx and 429',
  },
  'ratelimit.headers-on-errors': {
    family: 'ratelimit',
    severity: 'major',
    title: 'X-RateLimit-* headers on 400, 401 and 404 too',
  },
  'ratelimit.headers-syntax': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'X-RateLimit-* values are plain non-negative integers, 0 <= Remaining <= Limit',
  },
  'ratelimit.limit-matches-plan': {
    family: 'ratelimit',
    severity: 'critical',
    title: "X-RateLimit-Limit equals the plan's per-minute or per-day figure",
  },
  'ratelimit.reset-is-timestamp': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'X-RateLimit-Reset is Unix seconds within the window',
  },
  'ratelimit.remaining-decrements': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'Remaining goes down by one per counted request within a window',
  },
  'ratelimit.window-consistency': {
    family: 'ratelimit',
    severity: 'major',
    title: 'Each Limit/Remaining/Reset triple describes one window; Remaining never rises within it',
  },
  'ratelimit.enforced': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'No more than the limit is accepted within a minute from a fresh start, then 429',
  },
  'ratelimit.quota-restored': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'Requests are accepted again once the refused window has ended',
  },
  'ratelimit.no-over-admission': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'A simultaneous burst of Limit+K admits at most Limit',
  },
  'ratelimit.key-isolation': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'Exhausting one key leaves another key of the same plan unaffected',
  },
  'ratelimit.what-counts': {
    family: 'ratelimit',
    severity: 'info',
    title: 'Which responses lower Remaining (measured)',
  },
  'ratelimit-fields.syntax': {
    family: 'ratelimit',
    severity: 'advisory',
    title: 'The IETF RateLimit / RateLimit-Policy fields, if sent, are well formed',
  },
  'ratelimit-fields.consistent': {
    family: 'ratelimit',
    severity: 'advisory',
    title: "The IETF fields, if sent, agree with X-RateLimit-* and the plan's figures",
  },
  'ratelimit.algorithm': {
    family: 'ratelimit',
    severity: 'info',
    title: "The limiter's shape, named with its figures (read from the answers)",
  },
  // 429 and Retry-After
  'retry-after.present': {
    family: 'retry-after',
    severity: 'critical',
    title: 'Every 429 carries exactly one Retry-After',
  },
  'retry-after.syntax': {
    family: 'retry-after',
    severity: 'major',
    title: 'Retry-After is delay-seconds or an IMF-fixdate',
  },
  'retry-after.plausible': {
    family: 'retry-after',
    severity: 'major',
    title: 'Retry-After is no longer than the time to Reset',
  },
  'retry-after.honest': {
    family: 'retry-after',
    severity: 'major',
    title: 'A request after Retry-After (+250 ms) is accepted',
  },
  'retry-after.error-body': {
    family: 'retry-after',
    severity: 'advisory',
    title: 'A 429 body, if any, is an Error with status 429',
  },
  // Client behaviour and bans
  'backoff.respects-retry-after': {
    family: 'client',
    severity: 'critical',
    title: 'petload never sends on a key while its Retry-After runs',
  },
  'backoff.no-ban': {
    family: 'client',
    severity: 'critical',
    title: "petload's backoff never gets a key banned at 150% of the plan",
  },
  'ban.probe': {
    family: 'client',
    severity: 'info',
    title: 'Ban threshold, status, duration and recovery (opt-in, sacrificial key)',
  },
  'load.capacity': {
    family: 'client',
    severity: 'info',
    title: 'Maximum throughput through autocannon: requests/s, latency, non-2xx, errors (measured)',
  },
} as const satisfies Record<string, CheckMeta>;

export type CheckId = keyof typeof CATALOGUE;
export const CHECK_IDS = Object.keys(CATALOGUE) as CheckId[];

/** Threshold checks are named `threshold.<expression>` and are major unless the scenario says otherwise. */
export type ThresholdCheckId = `threshold.${string}`;
export type AnyCheckId = CheckId | ThresholdCheckId;

export function metaOf(id: AnyCheckId): CheckMeta {
  if (id in CATALOGUE) return CATALOGUE[id as CheckId];
  return { title: `Threshold ${id.slice('threshold.'.length)}`, severity: 'major', family: 'client' };
}
