/** Test helper: one compliance run against the embedded reference server, reports in a temp directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import { FAULT_MATRIX } from '../checks/fault-matrix.js';
import type { FaultName } from '../server/faults.js';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario, type RunOptions, type RunResult } from '../engine/run.js';

export async function complianceRun(options: Omit<Partial<RunOptions>, 'scenario' | 'reportDir'> & { plans?: PlanName[] } = {}): Promise<RunResult & { failed: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'petload-compliance-'));
  try {
    const result = await runScenario({ scenario: loadScenario('compliance'), reportDir: dir, ...options });
    const failed = result.report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
    return { ...result, failed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The fault-matrix suite for some faults: the compliance run with each fault on fails, and every check the
 * catalogue lists for that fault is among the failures. Plans free and pro: every fault shows on them (Business
 * only adds requests), and wrong-plan-limit needs a plan whose figures differ from Business's.
 */
export function faultMatrixSuite(title: string, faults: readonly FaultName[]): void {
  describe(title, () => {
    for (const fault of faults) {
      it(`${fault}: the run fails with ${FAULT_MATRIX[fault].join(', ')}`, { timeout: 120_000 }, async () => {
        const r = await complianceRun({ faults: [fault], plans: ['free', 'pro'] });
        expect(r.report.verdict).toBe('fail');
        expect(r.exitCode).toBe(1);
        expect(r.failed).toEqual(expect.arrayContaining([...FAULT_MATRIX[fault]]));
      });
    }
  });
}
