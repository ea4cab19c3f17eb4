/**
 * compare judges the promises, not only the checks: real runs of a scenario that meets the limiter's 429s without
 * waiting one out (src/drift/fixtures/promises.yaml) against the embedded reference server, reports read back from
 * disk. With `retry-after-short` the run still passes its own checks; compare names the halved Retry-After per plan
 * with both figures, and calls it a regression. Two compliant runs show no drift.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario } from '../engine/run.js';
import { readReportFile } from '../outputs/read.js';
import type { FaultName } from '../reference-server/faults.js';
import type { Report } from '../report/schema.js';
import { compareExitCode, compareReports } from './compare.js';
import { compareConsole } from './console.js';

const PROMISES = fileURLToPath(new URL('./fixtures/promises.yaml', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'petload-compare-promises-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(name: string, faults: FaultName[]): Promise<Report> {
  const reportDir = join(root, name);
  await runScenario({
    scenario: loadScenario(PROMISES),
    reportDir,
    target: { kind: 'embedded', faults },
    log: () => {},
  });
  return readReportFile(join(reportDir, 'report.json'));
}

/** The medians a Retry-After figure's words give: Retry-After, Reset's wait, the shortfall. */
function medians(words: string): number[] {
  const m = /^Retry-After ([\d.]+) s of Reset's ([\d.]+) s, ([\d.]+) s (short|over) \(\d+ 429s?\)$/.exec(words);
  expect(m, words).not.toBeNull();
  const by = Number(m![3]);
  return [Number(m![1]), Number(m![2]), m![4] === 'short' ? by : -by];
}

describe('compare: the promises', { timeout: 120_000 }, () => {
  let clean: Report;
  let again: Report;
  let short: Report;
  beforeAll(async () => {
    clean = await run('clean', []);
    again = await run('clean-again', []);
    short = await run('retry-after-short', ['retry-after-short']);
  }, 120_000);

  it('names a halved Retry-After per plan with both figures, a regression though every check still passes', () => {
    expect([clean.verdict, short.verdict]).toEqual(['pass', 'pass']);
    const c = compareReports(clean, short);
    expect(c.checks.newlyFailing).toEqual([]);
    expect(c.regressed).toBe(true);
    expect(compareExitCode(c)).toBe(1);
    const promises = c.regressions.filter((r) => r.kind === 'promise');
    expect(promises.map((r) => (r.kind === 'promise' ? `${r.plan}: ${r.figure}` : ''))).toEqual([
      'free: Retry-After against Reset',
    ]);
    const r = promises[0]!;
    if (r.kind !== 'promise') throw new Error('not a promise');
    // The baseline's Retry-After is the wait its Reset gives (whole seconds apart at most); the current's about half.
    const [raB, resetB, shortB] = medians(r.baseline);
    const [raC, resetC, shortC] = medians(r.current);
    expect(Math.abs(shortB!)).toBeLessThanOrEqual(1);
    expect(raB).toBeGreaterThan(resetB! - 2);
    expect(raC).toBeLessThanOrEqual(Math.ceil(resetC! / 2));
    expect(shortC).toBeGreaterThan(2);
    const out = compareConsole(c, { maxDrifts: 50 });
    expect(out).toMatch(/^petload compare drift-promises: REGRESSED: 1 promise drifted$/m);
    expect(out).toContain(`REGRESSION free: Retry-After against Reset: ${r.baseline} -> ${r.current}`);
    expect(out).not.toContain('nothing drifted');
    // Accepted per minute did not move: shown, not a drift.
    const minute = c.contract.find((p) => p.plan === 'free')!.promises!.find((f) => f.figure === 'accepted per minute');
    expect(minute).toMatchObject({ baseline: '60/min (sold 60)', current: '60/min (sold 60)', drift: false });
  });

  it('finds no drift between two compliant runs', () => {
    for (const [a, b] of [
      [clean, again],
      [again, clean],
    ] as const) {
      const c = compareReports(a, b);
      const free = c.contract.find((p) => p.plan === 'free')!;
      expect(free.promises!.map((f) => f.figure)).toEqual(['Retry-After against Reset', 'accepted per minute']);
      expect(free.promises!.filter((f) => f.drift)).toEqual([]);
      expect(c.regressions).toEqual([]);
    }
  });
});
