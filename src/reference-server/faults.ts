/**
 * The fault catalogue of the reference server (docs/reference-server.md, "Faults"). Each fault makes the
 * server misbehave in exactly one way, so the suite can prove it sees what it claims to see. The names are a
 * public contract shared with the catalogue's fault matrix.
 */
export const FAULTS = {
  'reset-in-ms': 'X-RateLimit-Reset as Unix milliseconds',
  'reset-as-delta': 'X-RateLimit-Reset as seconds until the reset',
  'retry-after-missing': '429 without Retry-After',
  'retry-after-ms': 'Retry-After in milliseconds',
  'retry-after-short': 'Retry-After about half the real wait (at least 1 s short)',
  'remaining-off-by-one': 'X-RateLimit-Remaining one higher than the truth (never above Limit)',
  'no-headers-on-errors': 'no rate-limit headers on 400, 401 and 404',
  'no-headers-on-429': 'no rate-limit headers on 429',
  'limit-not-enforced': 'never answers 429 for the rate limit',
  'day-not-enforced': 'never refuses for the day: only the minute limit is enforced',
  'wrong-plan-limit': 'gives every plan the Business limits (and enforces them)',
  'over-limit-503': 'answers 503 instead of 429',
  'non-atomic-counter': 'reads the counter, awaits, then writes it: concurrent requests slip through',
  'shared-quota': 'one counter for all keys',
  'per-instance':
    'answers alternately from two counters per key, as two replicas with local counters behind a balancer',
  'invalid-keys-drain': 'charges requests with unknown keys to every real key',
  'schema-drift': 'categoryId as a string in every Pet',
  'list-envelope': 'list wrapped in {"data": [...]}',
  'ignore-limit': 'ignores the value of limit and returns up to 150 animals',
  'ignore-status-filter': 'ignores the value of status',
  'accept-invalid': 'creates animals from invalid bodies (201)',
  'error-shape': 'error bodies without status',
  'auth-bypass': 'accepts any bearer token (as a Free key)',
  'orders-no-auth': 'GET /store/orders answers 200 without a key or with an invalid one (outside authentication)',
  'orders-no-limit':
    'GET /store/orders with a valid key is outside the limiter: no rate-limit headers, never 429, not counted',
  'orders-missing': 'GET /store/orders is not served: 404, as any path the interface does not name',
  slow: 'adds a fixed delay to every answer',
  flaky: 'resets some connections and answers some with truncated JSON',
} as const;

export type FaultName = keyof typeof FAULTS;
export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];
