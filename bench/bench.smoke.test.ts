/**
 * The bench end to end, tiny: every figure runs (servers and load generators in their own processes) for a
 * fraction of a second and the JSON report lands in a temporary directory. It proves the harness works and
 * that every figure is a finite number; it never asserts a goal (speed is the bench's to report, not a test's).
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIGURE_IDS } from './figure.js';
import { DEFAULT_OPTIONS } from './options.js';
import { runBench, type BenchReport } from './run.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('npm run bench (smoke)', () => {
  it('runs every figure and writes a report with a finite number for each row', async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'petload-bench-'));
    dirs.push(outDir);
    const lines: string[] = [];
    const { report, file } = await runBench(
      {
        ...DEFAULT_OPTIONS,
        durationS: 0.4,
        rounds: 1,
        connections: 4,
        pacingS: 0.4,
        latencyS: 0.4,
        lowRateS: 2,
        warmupS: 0.1,
        exchanges: 20_000,
        checkCostExchanges: 1000,
        checkCostPasses: 2,
        cliStartRunsPerRound: 1,
        driftRunS: 0.5,
        driftRepetitions: 2,
        trendReports: 10,
        // 18 s and 36 s of a run at 2 exchanges a second (the roll-up past 600 s is src/journal/rollup.test.ts's).
        longRunHours: [0.005, 0.01],
        longRunRate: 2,
        // A pass of a few seconds each way: windows of a real second, 100 ms of that clock a round trip.
        farScale: 60,
        outDir,
      },
      (line) => lines.push(line),
    );

    expect(await readdir(outDir)).toEqual([file.slice(outDir.length + 1)]);
    expect(file).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.json$/);
    const text = await readFile(file, 'utf8');
    const written = JSON.parse(text) as BenchReport;
    expect(written.table).toBe(report.table);
    expect(written.figures.map((f) => f.id)).toEqual([...FIGURE_IDS]);
    for (const figure of written.figures) {
      expect(figure.rows.length).toBeGreaterThan(0);
      for (const row of figure.rows) {
        expect(Number.isFinite(row.measured.value), `${row.figure}: measured`).toBe(true);
        if (row.peer !== null) expect(Number.isFinite(row.peer.value), `${row.figure}: peer`).toBe(true);
        if (row.score !== null) expect(Number.isFinite(row.score.value), `${row.figure}: score`).toBe(true);
        expect(row.pass === null || typeof row.pass === 'boolean').toBe(true);
        expect(report.table).toContain(`| ${row.figure} |`);
      }
    }
    expect(written.pinning.note).not.toBe('');
    expect(lines[0]).toContain(written.pinning.note);
    // The bench key is made per run and handed to children in the environment: never written anywhere.
    expect(text).not.toMatch(/pl_bench_/);
    expect(lines.join('\n')).not.toMatch(/pl_bench_/);
  }, 120_000);
});
