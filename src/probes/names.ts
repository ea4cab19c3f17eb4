import { RETRY_AFTER_MARGIN_MS } from '../http/server-time.js';

/** The probes (active sequences), by public name. A scenario's `probes:` list and `petload list probes` use these. */
export const PROBES = {
  auth: 'Auth table: missing key, unknown key, empty Bearer, Basic credential on every endpoint (auth.*)',
  input: 'Invalid bodies on POST /pets, then proof that nothing was created (create.rejects-invalid)',
  list: 'limit and status tables on GET /pets (list.*)',
  'create-get': 'Create animals with and without status, then get each back (create.returns-pet, get.returns-pet)',
  'unknown-id': 'GET /pets/{id} of ids never created (get.unknown-404)',
  deprecated: 'The deprecated GET /pets/{id}: behaviour, quota and announcement headers (deprecation.*)',
  enforce:
    'Decrement from a fresh window to Limit+1, then the 429 and its Retry-After (ratelimit.enforced, remaining-decrements)',
  restore: 'One request once the refused window has ended (ratelimit.quota-restored)',
  'retry-after-honest': `Wait exactly Retry-After + ${RETRY_AFTER_MARGIN_MS} ms after a 429, then one request (retry-after.honest)`,
  burst: 'Limit+K truly simultaneous requests over Limit+K connections on a fresh window (ratelimit.no-over-admission)',
  'key-isolation': 'Exhaust key A, then use key B of the same plan (ratelimit.key-isolation)',
  'quota-drain': '50 invalid-key requests between two valid requests (auth.no-quota-drain)',
  'what-counts':
    '200, 400, 404, 200 on a fresh key: which statuses lower Remaining (ratelimit.what-counts; a 429 is not measured: that needs a request inside a Retry-After)',
  ban: 'Opt-in, sacrificial key only: keep sending after a 429 to measure the ban (ban.probe)',
  'plan-audit':
    "Opt-in, audit key only: drive the key at its per-minute figure until refused for the day (ratelimit.day-enforced); it spends the key's day",
} as const;
export type ProbeName = keyof typeof PROBES;
export const PROBE_NAMES = Object.keys(PROBES) as ProbeName[];
/** Every probe but the opt-in ones (ban, plan-audit): what `probes: all` means. */
export const DEFAULT_PROBES = PROBE_NAMES.filter((p) => p !== 'ban' && p !== 'plan-audit');
