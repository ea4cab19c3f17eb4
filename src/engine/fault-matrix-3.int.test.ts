/** Fault matrix, part 3 of 3 (split so that vitest runs the parts in parallel). `slow` fails no check: see load tests. */
import { faultMatrixSuite } from '../testing/compliance-run.js';

faultMatrixSuite('fault matrix (3/3)', [
  'list-envelope',
  'ignore-limit',
  'ignore-status-filter',
  'accept-invalid',
  'error-shape',
  'auth-bypass',
  'flaky',
  'day-not-enforced',
]);
