/**
 * compare and trend on real compliance runs against the embedded reference server, reports read back from disk:
 * `wrong-plan-limit` is a newly failing check and a Limit drift on each plan it changes; the trend page shows
 * both runs in one group.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario } from '../engine/run.js';
import { readReportFile } from '../outputs/read.js';
import type { FaultName } from '../reference-server/faults.js';
import type { Report } from '../report/schema.js';
import { compareReports } from './compare.js';
import { compareMarkdown } from './markdown.js';
import { findReports, trend } from './trend.js';

const root = mkdtempSync(join(tmpdir(), 'petload-compare-contract-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(name: string, faults: FaultName[]): Promise<Report> {
  const reportDir = join(root, name);
  // Free and Pro: the fault gives both Business's figures (Business itself would show no change).
  await runScenario({
    scenario: loadScenario('compliance'),
    reportDir,
    target: { kind: 'embedded', faults },
    plans: ['free', 'pro'],
    log: () => {},
  });
  return readReportFile(join(reportDir, 'report.json'));
}

describe('compare: wrong-plan-limit', { timeout: 120_000 }, () => {
  let clean: Report;
  let wrong: Report;
  beforeAll(async () => {
    clean = await run('compliance-clean', []);
    wrong = await run('compliance-wrong-plan-limit', ['wrong-plan-limit']);
  }, 120_000);

  it('names the newly failing check and the Limit drift per plan', () => {
    const c = compareReports(clean, wrong);
    expect(c.regressed).toBe(true);
    expect(
      c.regressions.filter((r) => r.kind === 'check').map((r) => (r.kind === 'check' ? `${r.id} [${r.plan}]` : '')),
    ).toEqual(['ratelimit.limit-matches-plan [free]', 'ratelimit.limit-matches-plan [pro]']);
    const limit = (plan: PlanName) =>
      c.contract.find((p) => p.plan === plan)!.drifts.find((d) => d.field === 'Limit sent');
    // The fault gives every plan Business's figures: 1000 a minute.
    expect(limit('free')).toEqual({ field: 'Limit sent', baseline: '60', current: '1000' });
    expect(limit('pro')).toEqual({ field: 'Limit sent', baseline: '300', current: '1000' });
    const md = compareMarkdown(c);
    expect(md).toContain('| **REGRESSION** | `ratelimit.limit-matches-plan [free]` | pass | fail | critical: ');
    expect(md).toContain('| **CHANGED** | `free: Limit sent` | 60 | 1000 |');
  });

  it('puts every run on the trend page, one group per scenario', async () => {
    const t = trend(await findReports([root]));
    expect(t.skipped).toEqual([]);
    expect(t.groups.map((g) => [g.scenario, g.runs.length])).toEqual(expect.arrayContaining([['compliance', 2]]));
    const compliance = t.groups.find((g) => g.scenario === 'compliance')!;
    expect(compliance.runs.map((r) => r.faults.join(','))).toEqual(['', 'wrong-plan-limit']);
    expect(compliance.limits.find((l) => l.plan === 'free')!.seen).toEqual([[60], [1000]]);
    expect(
      compliance.checks.find((x) => x.id === 'ratelimit.limit-matches-plan' && x.plan === 'pro')!.statuses,
    ).toEqual(['pass', 'fail']);
  });
});
