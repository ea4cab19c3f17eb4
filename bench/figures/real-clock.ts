/**
 * real-clock compliance (opt-in, `--real-clock`): `petload run compliance` against `petload serve --time-scale 1`
 * on loopback, all three plans, first with three keys per plan, then with one; each in fresh processes, timed
 * from outside. Reported in minute windows against the physical limit of two (one window to spend a quota and
 * see the 429, the next to see it restored), with the planner's estimate of duration and requests against what
 * the run took and sent (report.json's `schedule`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REAL_CLOCK_FIGURE, row, type BenchEnv, type FigureResult, type Row } from '../figure.js';
import { benchFile } from '../lib/processes.js';

const WINDOW_S = 60;
const PLANS = ['free', 'pro', 'business'] as const;
/** Goals of the issue: wall time in windows. */
const GOALS: Record<number, number> = { 3: 2.5, 1: 4 };

interface Pass {
  keysPerPlan: number;
  wallS: number;
  exitCode: number | null;
  verdict: string | null;
  planned: { durationMs: number; requests: number } | null;
  actual: { durationMs: number; requests: number } | null;
}

const petload = benchFile('../bin/petload.js');

async function startServe(keysFile: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [petload, 'serve', '--port', '0', '--time-scale', '1', '--keys-file', keysFile],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (line) => resolve(line.replace(/^listening /, '')));
    child.once('exit', (code) => reject(new Error(`petload serve exited (${code})`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function onePass(env: BenchEnv, keysPerPlan: number): Promise<Pass> {
  const dir = await mkdtemp(join(tmpdir(), 'petload-real-clock-'));
  try {
    const keysFile = join(dir, 'keys.json');
    const keys = PLANS.flatMap((plan) =>
      Array.from({ length: keysPerPlan }, (_, i) => ({
        key: `pl-bench-${plan}-${i}-${randomBytes(12).toString('hex')}`,
        plan,
      })),
    );
    await writeFile(keysFile, JSON.stringify({ keys }), { mode: 0o600 });
    const server = await startServe(keysFile);
    const reportDir = join(dir, 'report');
    const t0 = performance.now();
    let exitCode: number | null = null;
    try {
      exitCode = await new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            petload,
            'run',
            'compliance',
            '--quiet',
            '--target',
            server.url,
            '--keys-file',
            keysFile,
            '--report-dir',
            reportDir,
          ],
          { stdio: 'ignore' },
        );
        const timer = setTimeout(() => child.kill('SIGINT'), 10 * WINDOW_S * 1000);
        child.once('exit', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
    } finally {
      await server.stop();
    }
    const wallS = (performance.now() - t0) / 1000;
    let verdict: string | null = null;
    let planned: Pass['planned'] = null;
    let actual: Pass['actual'] = null;
    try {
      const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as {
        verdict: string;
        schedule?: {
          planned: { durationMs: number; requests: number; unkeyed: number };
          actual: { durationMs: number; requests: number; unkeyed: number };
        };
      };
      verdict = report.verdict;
      if (report.schedule) {
        const s = report.schedule;
        planned = { durationMs: s.planned.durationMs, requests: s.planned.requests + s.planned.unkeyed };
        actual = { durationMs: s.actual.durationMs, requests: s.actual.requests + s.actual.unkeyed };
      }
    } catch {
      // no report: the row says so through the verdict
    }
    env.log(
      `real-clock compliance, ${keysPerPlan} key(s) per plan: ${wallS.toFixed(1)} s (${(wallS / WINDOW_S).toFixed(2)} windows), verdict ${verdict ?? 'none'}, exit ${exitCode}`,
    );
    return { keysPerPlan, wallS, exitCode, verdict, planned, actual };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function realClockFigure(env: BenchEnv): Promise<FigureResult> {
  const passes: Pass[] = [];
  for (const n of [3, 1]) passes.push(await onePass(env, n));
  const rows: Row[] = [];
  for (const p of passes) {
    const keys = `${p.keysPerPlan} key${p.keysPerPlan === 1 ? '' : 's'} per plan`;
    const windows = p.wallS / WINDOW_S;
    const passed = p.verdict === 'pass';
    rows.push(
      row({
        figure: `real-clock compliance, ${keys}: wall time`,
        measured: {
          value: windows,
          unit: 'windows',
          what: `all three plans against petload serve --time-scale 1, verdict ${p.verdict ?? 'none'}; ${p.wallS.toFixed(0)} s`,
        },
        peer: {
          value: 2,
          unit: 'windows',
          what: 'the physical limit: one window to spend a quota, the next to see it restored',
        },
        // A run that did not pass is not a time: it fails the goal whatever it took.
        score: { kind: 'ratio', value: passed ? windows : Number.MAX_SAFE_INTEGER, unit: 'windows' },
        goal: { kind: 'under', value: GOALS[p.keysPerPlan]! },
      }),
    );
    if (p.planned && p.actual) {
      const reqErr = (100 * (p.planned.requests - p.actual.requests)) / p.actual.requests;
      const durErr = (100 * (p.planned.durationMs - p.actual.durationMs)) / p.actual.durationMs;
      rows.push(
        row({
          figure: `real-clock compliance, ${keys}: estimate of requests`,
          measured: { value: p.planned.requests, unit: 'requests', what: 'planned before the run' },
          peer: { value: p.actual.requests, unit: 'requests', what: 'sent by the probes' },
          score: { kind: 'error', value: reqErr, unit: '%' },
          goal: { kind: 'within', value: 5, unit: '%' },
        }),
        row({
          figure: `real-clock compliance, ${keys}: estimate of duration`,
          measured: { value: p.planned.durationMs / 1000, unit: 's', what: 'planned before the run' },
          peer: { value: p.actual.durationMs / 1000, unit: 's', what: 'what the probe schedule took' },
          score: { kind: 'error', value: durErr, unit: '%' },
          goal: { kind: 'within', value: 15, unit: '%' },
        }),
      );
    }
  }
  return { id: REAL_CLOCK_FIGURE, rows, details: { windowS: WINDOW_S, passes } };
}
