/** Test helper: one compliance run against the embedded reference server, reports in a temp directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import { FAULT_MATRIX } from '../checks/fault-matrix.js';
import { CHECKS, FAILING_SEVERITIES, infoProblems } from '../checks/catalogue.js';
import type { FaultName } from '../reference-server/faults.js';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario, type RunResult } from '../engine/run.js';
import type { EmbeddedTarget } from '../engine/run-target.js';

/** The compliance scenario against the embedded server with `server`'s settings, on `plans` (default: all). */
export async function complianceRun(
  server: Omit<EmbeddedTarget, 'kind'> = {},
  plans?: PlanName[],
): Promise<RunResult & { failed: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'petload-compliance-'));
  try {
    const result = await runScenario({
      scenario: loadScenario('compliance'),
      reportDir: dir,
      target: { kind: 'embedded', ...server },
      ...(plans ? { plans } : {}),
    });
    // Every failed check, whatever its severity: a minor or advisory failure (a warning) counts.
    const failed = result.report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
    return { ...result, failed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A failed check with its first evidence, so that a failing assertion says why. */
const withEvidence = (r: RunResult, id: string): string => {
  const c = r.report.checks.find((x) => x.id === id);
  const first = c?.byPlan.flatMap((p) => p.evidence.map((e) => `[${p.plan ?? '-'}] ${e.message}`))[0];
  return first === undefined ? id : `${id}: ${first}`;
};

/**
 * The fault-matrix suite for some faults: the compliance run with each fault on fails exactly the checks the
 * catalogue lists for that fault (one defect, one failure: no other check fails, a warning counting as a failure);
 * `none` is the run with no fault, which fails nothing. Plans free and pro: every fault shows on them (Business only
 * adds requests), and wrong-plan-limit needs a plan whose figures differ from Business's.
 */
export function faultMatrixSuite(title: string, faults: readonly (FaultName | 'none')[]): void {
  // Side by side: each run mostly waits on its scaled clock.
  describe.concurrent(title, () => {
    for (const fault of faults) {
      const want: readonly string[] = fault === 'none' ? [] : [...FAULT_MATRIX[fault]].sort();
      // The verdict fails on a check of a failing severity; an advisory one alone is a warning (exit 0).
      const failing = fault !== 'none' && FAULT_MATRIX[fault].some((id) => FAILING_SEVERITIES.has(CHECKS[id].severity));
      it(`${fault}: the run fails exactly ${want.join(', ') || 'nothing'}`, { timeout: 120_000 }, async ({
        expect,
      }) => {
        const r = await complianceRun({ faults: fault === 'none' ? [] : [fault] }, ['free', 'pro']);
        // Compared as text so that a failure shows every extra check with its first evidence.
        expect(
          r.failed
            .map((id) => (want.includes(id) ? id : withEvidence(r, id)))
            .sort()
            .join('\n'),
        ).toBe(want.join('\n'));
        expect(r.report.verdict).toBe(failing ? 'fail' : 'pass');
        expect(r.exitCode).toBe(failing ? 1 : 0);
        // Every fact a check records has the shape its catalogue entry declares (src/report/check-info.ts).
        expect(infoProblems(r.report.checks)).toEqual([]);
      });
    }
  });
}
