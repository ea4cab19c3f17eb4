/**
 * Interruption, end to end on the real CLI: SIGINT or SIGTERM stops new sends at once, gives requests in
 * flight up to 2 s, writes every report with verdict `aborted` and exits 130; a second signal exits at once.
 * A target that never answers shows the 2 s bound: without it the run would wait for the request timeout (60 s).
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { createReferenceServer, type ReferenceServer } from '../reference-server/index.js';
import {
  readReportJson,
  REPORT_FILES,
  reportFilesIn,
  scratch,
  STACK_LINE,
  startCli,
  type CliRun,
} from '../testing/cli.js';
import { hangEvery } from '../testing/hostile/behaviours.js';
import { HOSTILE_KEY } from '../testing/hostile/harness.js';
import { startHostileServer, type HostileServer } from '../testing/hostile/server.js';

/** Send `signal` 300 ms after `pattern` shows on stderr. */
async function interruptWhen(run: CliRun, pattern: RegExp, signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
  await run.waitForStderr(pattern);
  await new Promise((resolve) => setTimeout(resolve, 300));
  run.child.kill(signal);
}

function expectAbortedReports(dir: string) {
  expect(reportFilesIn(dir)).toEqual([...REPORT_FILES]);
  const report = readReportJson(dir);
  expect(report.verdict).toBe('aborted');
  expect(report.exitCode).toBe(130);
  expect(report.abortReason).toBe('interrupted');
  return report;
}

// Each case has its own target and child process: they run side by side.
describe.concurrent('interrupting a run against the embedded server', () => {
  it('SIGINT during a load phase: stops, writes every report as aborted, skips the scenarios left, exits 130', async () => {
    const dir = scratch('petload-int-').dir;
    // Three minutes of real time: only the interrupt ends it within the test.
    const run = startCli(['run', 'at-limit', 'smoke', '--time-scale', '1', '--report-dir', dir]);
    await interruptWhen(run, /phase 1 \(constant-rate\): 0\.0 s of 3 min/);
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('SIGINT: stopping new requests, finishing those in flight, writing reports');
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stdout).toMatch(/petload at-limit: ABORTED/);
    const report = expectAbortedReports(`${dir}/at-limit`);
    expect(report.totals.requests).toBeGreaterThan(0);
    expect(reportFilesIn(`${dir}/smoke`)).toEqual([]);
  });

  it('SIGTERM during the probes does the same', async () => {
    const dir = `${scratch('petload-int-').dir}/report`;
    const run = startCli(['run', 'compliance', '--time-scale', '1', '--report-dir', dir]);
    // The probes without a plan (auth) are done: the per-plan probes run.
    await interruptWhen(run, /all plans: 1 of 1 probe done/, 'SIGTERM');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('SIGTERM: stopping new requests');
    expectAbortedReports(dir);
  });
});

describe.concurrent('interrupting a run whose requests never come back', () => {
  async function stalledTarget(
    ctx: TestContext,
  ): Promise<{ hostile: HostileServer; keysFile: string; dir: string; file: (n: string, t: string) => string }> {
    const keys = parseKeys({ keys: [{ key: HOSTILE_KEY, plan: 'free' }] }, 'test');
    const upstream: ReferenceServer = await createReferenceServer({ keys });
    // Every API request stalls (the reachability check to /v1/ is answered).
    const hostile = await startHostileServer(upstream.url, hangEvery(1));
    ctx.onTestFinished(async () => {
      await hostile.close();
      await upstream.close();
    });
    const s = scratch('petload-int-');
    return { hostile, keysFile: s.keys([{ key: HOSTILE_KEY, plan: 'free' }]), dir: `${s.dir}/report`, file: s.file };
  }

  /** Until the target has read `n` requests (the reachability check is the first), bounded. */
  async function stuck(hostile: HostileServer, n: number): Promise<void> {
    for (let i = 0; i < 1000 && hostile.requests() < n; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(hostile.requests()).toBeGreaterThanOrEqual(n);
  }

  it.for([
    ['in a probe', 'probes: [list]', 2],
    ['in a load phase', 'load:\n  phases:\n    - { executor: constant-rate, rate: 20/s, duration: 1m }', 5],
  ] as const)(
    '%s: in-flight requests get 2 s, then the reports are written and the run exits 130',
    async ([, body, requests], ctx) => {
      const t = await stalledTarget(ctx);
      const scenario = t.file(
        'stall.yaml',
        `name: stall\ndescription: requests that never come back\nplans: [free]\n${body}\n`,
      );
      const run = startCli([
        'run',
        scenario,
        '--target',
        t.hostile.url,
        '--keys-file',
        t.keysFile,
        '--timeout',
        '60000',
        '--report-dir',
        t.dir,
      ]);
      // Requests stuck in flight first.
      await stuck(t.hostile, requests);
      const at = performance.now();
      run.child.kill('SIGINT');
      const r = await run.done;
      const ms = performance.now() - at;
      expect(r.code).toBe(130);
      // 2 s of grace, then the reports: far from the 60 s the stuck requests would otherwise take.
      expect(ms).toBeGreaterThanOrEqual(1900);
      expect(ms).toBeLessThan(8000);
      expectAbortedReports(t.dir);
    },
  );

  it('a second signal exits at once, without waiting for the grace period', async (ctx) => {
    const t = await stalledTarget(ctx);
    const scenario = t.file(
      'stall.yaml',
      'name: stall\ndescription: requests that never come back\nplans: [free]\nprobes: [list]\n',
    );
    const run = startCli([
      'run',
      scenario,
      '--target',
      t.hostile.url,
      '--keys-file',
      t.keysFile,
      '--timeout',
      '60000',
      '--report-dir',
      t.dir,
    ]);
    await stuck(t.hostile, 2);
    run.child.kill('SIGINT');
    await run.waitForStderr(/SIGINT: stopping new requests/);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('SIGINT again: exiting now, without waiting for requests in flight or writing reports');
    // The requests never come back: a run that had waited out the grace period would have written its reports
    // (the case above); exiting at once, it wrote none. Judged by what it did, not by a clock.
    expect(reportFilesIn(t.dir)).toEqual([]);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });
});
