/** Test helper: one compliance run against the embedded reference server, reports in a temp directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlanName } from '../api/plans.js';
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
