/**
 * Fault matrix, part 2 of 3 (split so that vitest runs the parts in parallel): the compliance run against the
 * embedded server with each fault on fails, and every check the catalogue lists for that fault is among the failures.
 * Plans free and pro: every fault shows on them (Business only adds requests), and wrong-plan-limit needs a plan
 * whose figures differ from Business's.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_MATRIX } from '../checks/fault-matrix.js';
import type { FaultName } from '../server/faults.js';
import { complianceRun } from '../testing/compliance-run.js';

const FAULTS: FaultName[] = ['limit-not-enforced', 'wrong-plan-limit', 'over-limit-503', 'non-atomic-counter', 'shared-quota', 'invalid-keys-drain', 'schema-drift'];

describe('fault matrix (2/3)', () => {
  for (const fault of FAULTS) {
    it(`${fault}: the run fails with ${FAULT_MATRIX[fault].join(', ')}`, { timeout: 120_000 }, async () => {
      const r = await complianceRun({ faults: [fault], plans: ['free', 'pro'] });
      expect(r.report.verdict).toBe('fail');
      expect(r.exitCode).toBe(1);
      expect(r.failed).toEqual(expect.arrayContaining([...FAULT_MATRIX[fault]]));
    });
  }
});
