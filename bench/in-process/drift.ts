/**
 * Child process entry of the drift figure. Two real runs of the steady scenario of the compare tests
 * (src/drift/fixtures/steady.yaml, its phase shortened to `runS` real seconds) against the embedded reference
 * server write two report.json files in a temporary folder; then, timed in this process:
 * - compareReports of the two reports, `repetitions` times (ms each, the figure gives the median);
 * - compareMarkdown + compareHtml of that comparison, `repetitions` times;
 * - `trendReports` nightly report.json files (copies of the second report, started a day apart, every 7th with
 *   a check that fails and each with its latencies moved by up to ±20 %), then findReports + trend + trendHtml
 *   over their folder, end to end, `trendPasses` times.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenario } from '../../src/config/load-scenario.js';
import { compareHtml, compareMarkdown, compareReports, findReports, trend, trendHtml } from '../../src/drift/index.js';
import { runScenario } from '../../src/engine/run.js';
import { readReportFile } from '../../src/outputs/read.js';
import type { Report } from '../../src/report/schema.js';
import { emitResult } from '../lib/child-protocol.js';

export interface DriftJob {
  /** Real seconds of each of the two runs (the fixture's 5 run-clock minutes at 60x are 5). */
  runS: number;
  repetitions: number;
  trendReports: number;
  trendPasses: number;
}

export interface DriftResult {
  compareMs: number[];
  renderMs: number[];
  trendMs: number[];
  /** Requests of each of the two runs, regressions found between them, size of the trend page. */
  requests: [number, number];
  regressions: number;
  trendRuns: number;
  trendHtmlBytes: number;
}

const STEADY = fileURLToPath(new URL('../../src/drift/fixtures/steady.yaml', import.meta.url));
const DAY_MS = 86_400_000;

/** Run the steady scenario, its phase `runS` real seconds long (it runs at 60x), into `reportDir`. */
async function steadyRun(dir: string, name: string, runS: number): Promise<Report> {
  const text = (await readFile(STEADY, 'utf8')).replace('duration: 5m', `duration: ${Math.round(runS * 60)}s`);
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, text);
  const reportDir = join(dir, name);
  await runScenario({ scenario: loadScenario(file), reportDir, log: () => {}, notice: () => {} });
  return readReportFile(join(reportDir, 'report.json'));
}

/** Night `i` of `n`: the report started `n - 1 - i` days before the original, with some content varied. */
function nightly(base: Report, i: number, n: number): Report {
  const r = structuredClone(base);
  const shift = (iso: string) => new Date(Date.parse(iso) - (n - 1 - i) * DAY_MS).toISOString();
  r.startedAt = shift(base.startedAt);
  r.endedAt = shift(base.endedAt);
  const check = r.checks[i % Math.max(1, r.checks.length)];
  if (i % 7 === 3 && check !== undefined) {
    check.status = 'fail';
    check.counts.failed += 1;
  }
  const factor = 1 + 0.2 * Math.sin(i / 9);
  for (const op of r.operations)
    for (const k of ['p50', 'p90', 'p95', 'p99', 'p999', 'max'] as const) op.latency[k] *= factor;
  return r;
}

function timed<T>(f: () => T): [number, T] {
  const t0 = performance.now();
  const out = f();
  return [performance.now() - t0, out];
}

async function timedAsync<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await f();
  return [performance.now() - t0, out];
}

async function trendPass(dir: string): Promise<[number, { runs: number; bytes: number; skipped: number }]> {
  return timedAsync(async () => {
    const page = trend(await findReports([dir]));
    const html = trendHtml(page);
    const runs = page.groups.reduce((n, g) => n + g.runs.length, 0);
    return { runs, bytes: html.length, skipped: page.skipped.length };
  });
}

async function drift(job: DriftJob): Promise<DriftResult> {
  const dir = await mkdtemp(join(tmpdir(), 'petload-bench-drift-'));
  try {
    const baseline = await steadyRun(dir, 'baseline', job.runS);
    const current = await steadyRun(dir, 'current', job.runS);
    const compareMs: number[] = [];
    const renderMs: number[] = [];
    let regressions = 0;
    for (let i = 0; i < job.repetitions; i++) {
      const [ms, c] = timed(() => compareReports(baseline, current));
      compareMs.push(ms);
      regressions = c.regressions.length;
      renderMs.push(timed(() => compareMarkdown(c).length + compareHtml(c).length)[0]);
    }
    const nights = join(dir, 'nightly');
    for (let i = 0; i < job.trendReports; i++) {
      const night = join(nights, `night-${String(i).padStart(3, '0')}`);
      await mkdir(night, { recursive: true });
      await writeFile(join(night, 'report.json'), JSON.stringify(nightly(current, i, job.trendReports), null, 2));
    }
    const trendMs: number[] = [];
    let last = { runs: 0, bytes: 0, skipped: 0 };
    for (let i = 0; i < job.trendPasses; i++) {
      const [ms, out] = await trendPass(nights);
      trendMs.push(ms);
      last = out;
    }
    if (last.skipped > 0 || last.runs !== job.trendReports)
      throw new Error(`trend read ${last.runs} of ${job.trendReports} reports (${last.skipped} skipped)`);
    return {
      compareMs,
      renderMs,
      trendMs,
      requests: [baseline.totals.requests, current.totals.requests],
      regressions,
      trendRuns: last.runs,
      trendHtmlBytes: last.bytes,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

emitResult(await drift(JSON.parse(process.argv[2] ?? '') as DriftJob));
