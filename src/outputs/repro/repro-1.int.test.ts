/**
 * The reproduction scripts against the reference server's faults, part 1 of 2 (split so that vitest runs the parts
 * in parallel): each script exits 1 against the fault and 0 against the compliant server (docs/reproductions.md).
 */
import { reproSuite } from '../../testing/repro-suite.js';

reproSuite('reproductions (1/2)', [
  'reset-in-ms',
  'reset-as-delta',
  'retry-after-missing',
  'retry-after-ms',
  'retry-after-short',
  'remaining-off-by-one',
  'no-headers-on-errors',
  'no-headers-on-429',
  'limit-not-enforced',
  'wrong-plan-limit',
  'over-limit-503',
  'shared-quota',
]);
