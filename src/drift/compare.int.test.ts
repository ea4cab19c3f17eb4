/**
 * compare on real runs against the embedded reference server, reports written by the engine and read back from
 * disk as `petload compare` reads them: two clean runs of a steady scenario are alike; the `slow` fault (200 ms on
 * every answer) is a latency regression of every operation. (compare-contract.int.test.ts: wrong-plan-limit.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario } from '../engine/run.js';
import { readReportFile } from '../outputs/read.js';
import type { FaultName } from '../reference-server/faults.js';
import type { Report } from '../report/schema.js';
import { compareReports } from './compare.js';
import { compareMarkdown } from './markdown.js';

const STEADY = fileURLToPath(new URL('./fixtures/steady.yaml', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'petload-compare-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(name: string, scenario: string, faults: FaultName[], plans?: PlanName[]): Promise<Report> {
  const reportDir = join(root, name);
  await runScenario({
    scenario: loadScenario(scenario),
    reportDir,
    target: { kind: 'embedded', faults },
    ...(plans ? { plans } : {}),
    log: () => {},
  });
  return readReportFile(join(reportDir, 'report.json'));
}

const latencyNames = (c: ReturnType<typeof compareReports>) =>
  c.regressions.flatMap((r) => (r.kind === 'latency' ? [`${r.operation} ${r.percentile}`] : [])).sort();

describe('compare: steady traffic, clean and slow', { timeout: 120_000 }, () => {
  let clean1: Report;
  let clean2: Report;
  let slow: Report;
  beforeAll(async () => {
    // The first run of a process pays for loading and compiling petload's modules, which shows in its tail
    // latency (measured: p99 several times a warm run's): a warm-up run, not compared.
    await run('steady-warm-up', STEADY, []);
    clean1 = await run('steady-clean-1', STEADY, []);
    clean2 = await run('steady-clean-2', STEADY, []);
    slow = await run('steady-slow', STEADY, ['slow']);
  }, 120_000);

  it('finds no regression between two clean runs', () => {
    const c = compareReports(clean1, clean2);
    expect(c.regressions, compareMarkdown(c)).toEqual([]);
    expect(c.regressed).toBe(false);
    expect(c.operations.map((o) => o.operation)).toEqual(['listPets', 'createPet', 'getPet']);
    expect(c.operations.every((o) => o.test !== null)).toBe(true);
  });

  it('names a latency regression for each operation the slow fault affects', () => {
    // Against the quieter of the two clean runs: a stall of the machine during a baseline (its p99 several hundred
    // ms on a busy CI machine) is not what this test is about; the false-alarm test covers noisy pairs.
    const worstP99 = (r: Report) => Math.max(...r.operations.map((o) => o.latency.p99));
    const clean = worstP99(clean1) <= worstP99(clean2) ? clean1 : clean2;
    const c = compareReports(clean, slow);
    expect(c.differences).toEqual(['faults: none (baseline) vs slow (current)']);
    expect(c.regressed, compareMarkdown(c)).toBe(true);
    expect(latencyNames(c), compareMarkdown(c)).toEqual(['createPet p99', 'getPet p99', 'listPets p99']);
    // Every answer is slower, so each status code answered often enough is a regression of its own too.
    expect(c.regressions.filter((r) => r.kind !== 'latency' && r.kind !== 'status')).toEqual([]);
    expect(c.regressions.some((r) => r.kind === 'status' && r.operation === 'listPets' && r.status === '200')).toBe(
      true,
    );
    for (const r of c.regressions) {
      if (r.kind !== 'latency') continue;
      // 200 ms on every answer: each p99 rises by more than 100 ms, nearly every request is slower by more than
      // 5 ms, far past what chance gives.
      expect(r.changeMs).toBeGreaterThan(100);
      expect(r.superiorityBeyondMargin).toBeGreaterThan(0.9);
      expect(r.p).toBeLessThan(1e-4);
    }
    expect(c.checks.newlyFailing).toEqual([]);
    // And back: the slow run as the baseline is no regression.
    expect(compareReports(slow, clean).regressions.filter((r) => r.kind === 'latency' || r.kind === 'status')).toEqual(
      [],
    );
  });
});
