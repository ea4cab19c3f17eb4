/**
 * Fault matrix, part 1 of 3 (split so that vitest runs the parts in parallel): the compliance run against the
 * embedded server with each fault on fails, and every check the catalogue lists for that fault is among the failures.
 * Plans free and pro: every fault shows on them (Business only adds requests), and wrong-plan-limit needs a plan
 * whose figures differ from Business's.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_MATRIX } from '../checks/fault-matrix.js';
import type { FaultName } from '../server/faults.js';
import { complianceRun } from '../testing/compliance-run.js';

const FAULTS: FaultName[] = ['reset-in-ms', 'reset-as-delta', 'retry-after-missing', 'retry-after-ms', 'retry-after-short', 'remaining-off-by-one', 'no-headers-on-errors', 'no-headers-on-429'];

describe('fault matrix (1/3)', () => {
  for (const fault of FAULTS) {
    it(`${fault}: the run fails with ${FAULT_MATRIX[fault].join(', ')}`, { timeout: 120_000 }, async () => {
      const r = await complianceRun({ faults: [fault], plans: ['free', 'pro'] });
      expect(r.report.verdict).toBe('fail');
      expect(r.exitCode).toBe(1);
      expect(r.failed).toEqual(expect.arrayContaining([...FAULT_MATRIX[fault]]));
    });
  }
});
