/**
 * The fault matrix (docs/reference-server.md, "Faults"): for each fault of the reference server, the checks
 * that must fail when it is on. With no fault every check must pass. The tests hold the suite to this table.
 */
import type { FaultName } from '../reference-server/faults.js';
import type { CheckId } from './catalogue.js';

export const FAULT_MATRIX: Readonly<Record<FaultName, readonly CheckId[]>> = {
  'reset-in-ms': ['ratelimit.reset-is-timestamp'],
  'reset-as-delta': ['ratelimit.reset-is-timestamp'],
  'retry-after-missing': ['retry-after.present'],
  'retry-after-ms': ['retry-after.plausible'],
  'retry-after-short': ['retry-after.honest'],
  'remaining-off-by-one': ['ratelimit.remaining-decrements'],
  'no-headers-on-errors': ['ratelimit.headers-on-errors'],
  'no-headers-on-429': ['ratelimit.headers-present'],
  'limit-not-enforced': ['ratelimit.enforced'],
  // A compliance run never spends a day: nothing fails there. The plan audit fails exactly ratelimit.day-enforced
  // (src/probes/plan-audit.int.test.ts).
  'day-not-enforced': [],
  'wrong-plan-limit': ['ratelimit.limit-matches-plan'],
  'over-limit-503': ['ratelimit.enforced', 'contract.no-server-errors'],
  'non-atomic-counter': ['ratelimit.no-over-admission'],
  'shared-quota': ['ratelimit.key-isolation'],
  'per-instance': ['ratelimit.enforced'],
  'invalid-keys-drain': ['auth.no-quota-drain'],
  'schema-drift': ['list.schema', 'create.returns-pet', 'get.returns-pet'],
  'list-envelope': ['list.schema'],
  'ignore-limit': ['list.limit-respected'],
  'ignore-status-filter': ['list.status-filter'],
  'accept-invalid': ['create.rejects-invalid'],
  'error-shape': ['contract.error-shape'],
  'auth-bypass': ['auth.invalid-key'],
  // The auth probe sends GET /store/orders without a key and with invalid ones: both answered 200.
  'orders-no-auth': ['auth.missing-key', 'auth.invalid-key'],
  // Its 200s carry no rate-limit headers; once enforce spent the key's window, it answers 200, not 429.
  'orders-no-limit': ['ratelimit.headers-present', 'ratelimit.enforced'],
  // A keyed GET /store/orders answers 404: the advisory check warns, the rules of every endpoint go unjudged there.
  'orders-missing': ['contract.every-endpoint'],
  // Used to test latency measurement: no check fails.
  slow: [],
  flaky: ['contract.transport'],
};
