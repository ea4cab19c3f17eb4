/**
 * No false alarm between clean runs: five clean runs of the steady fixture scenario against the embedded
 * reference server, compared in each of their 20 ordered pairs with the default options, find no latency
 * regression and no check regression. (The pairs share runs, so they are not 20 independent trials: what was
 * measured over 110 pairs of 11 runs is in docs/compare.md.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario } from '../engine/run.js';
import { readReportFile } from '../outputs/read.js';
import type { Report } from '../report/schema.js';
import { compareReports } from './compare.js';

const STEADY = fileURLToPath(new URL('./fixtures/steady.yaml', import.meta.url));
const RUNS = 5;
const root = mkdtempSync(join(tmpdir(), 'petload-false-alarms-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(name: string): Promise<Report> {
  const reportDir = join(root, name);
  await runScenario({ scenario: loadScenario(STEADY), reportDir, log: () => {} });
  return readReportFile(join(reportDir, 'report.json'));
}

describe('compare: clean runs', { timeout: 120_000 }, () => {
  const reports: Report[] = [];
  beforeAll(async () => {
    // The first run of a process pays for loading petload's modules (docs/compare.md): a warm-up, not compared.
    await run('warm-up');
    for (let i = 0; i < RUNS; i++) reports.push(await run(`clean-${i}`));
  }, 120_000);

  it(`finds no regression in any of the ${RUNS * (RUNS - 1)} ordered pairs of ${RUNS} clean runs`, () => {
    const alarms: string[] = [];
    for (const [i, a] of reports.entries())
      for (const [j, b] of reports.entries()) {
        if (i === j) continue;
        for (const r of compareReports(a, b).regressions) alarms.push(`${i} -> ${j}: ${r.message}`);
      }
    expect(alarms).toEqual([]);
  });
});
