/** Fault matrix, part 1 of 3 (split so that vitest runs the parts in parallel). `slow` fails no check: see load tests. */
import { faultMatrixSuite } from '../testing/compliance-run.js';

faultMatrixSuite('fault matrix (1/3)', [
  'none',
  'reset-in-ms',
  'reset-as-delta',
  'retry-after-missing',
  'retry-after-ms',
  'retry-after-short',
  'remaining-off-by-one',
  'no-headers-on-errors',
  'no-headers-on-429',
]);
