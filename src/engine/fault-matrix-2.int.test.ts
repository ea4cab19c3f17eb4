/** Fault matrix, part 2 of 3 (split so that vitest runs the parts in parallel). `slow` fails no check: see load tests. */
import { faultMatrixSuite } from '../testing/compliance-run.js';

faultMatrixSuite('fault matrix (2/3)', [
  'limit-not-enforced',
  'wrong-plan-limit',
  'over-limit-503',
  'non-atomic-counter',
  'shared-quota',
  'per-instance',
  'invalid-keys-drain',
  'schema-drift',
  'orders-no-auth',
  'orders-no-limit',
  'orders-missing',
]);
