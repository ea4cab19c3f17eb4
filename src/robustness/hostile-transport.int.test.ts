/**
 * Hostile targets, part 1 (transport): nothing listens, connections reset mid-run, answers that never come,
 * bodies cut short. The real CLI runs against a loopback server made for each case; every run completes,
 * records the failure against contract.transport with evidence, and writes all four reports.
 */
import { describe, expect, it } from 'vitest';
import { hangEvery, resetEvery, truncateEvery } from '../testing/hostile/behaviours.js';
import { checkOf, runAgainstHostile } from '../testing/hostile/harness.js';
import { deadPort } from '../testing/hostile/server.js';
import { readReportJson, REPORT_FILES, reportFilesIn, runCli, scratch, STACK_LINE } from '../testing/cli.js';

describe('a target where nothing listens', () => {
  it('aborts with one line on stderr, exit 3, within 5 s, and still writes every report', async () => {
    const port = await deadPort();
    const s = scratch('petload-dead-');
    const keys = s.keys([{ key: 'SECRET-free-0123456789abcdef', plan: 'free' }]);
    const dir = `${s.dir}/report`;
    const r = await runCli([
      'run',
      'smoke',
      '--target',
      `http://127.0.0.1:${port}/v1`,
      '--keys-file',
      keys,
      '--report-dir',
      dir,
      '--quiet',
    ]);
    expect(r.code).toBe(3);
    // Within 5 s of the run starting (node's own start-up excluded: it is the machine's, not petload's verdict).
    expect(readReportJson(dir).durationMs).toBeLessThan(5000);
    expect(r.ms).toBeLessThan(20_000);
    expect(r.stderr).not.toMatch(STACK_LINE);
    const errorLines = r.stderr.split('\n').filter((l) => l.startsWith('petload:'));
    expect(errorLines).toEqual([
      `petload: target http://127.0.0.1:${port}/v1 is unreachable: ECONNREFUSED (nothing listens on 127.0.0.1:${port})`,
    ]);
    expect(r.stderr).toContain('hint: Check --target and that the service is up.');
    expect(reportFilesIn(dir)).toEqual([...REPORT_FILES]);
    const report = readReportJson(dir);
    expect(report.verdict).toBe('aborted');
    expect(report.exitCode).toBe(3);
    expect(report.abortReason).toContain('ECONNREFUSED');
  });
});

// Each case has its own servers and child process: they run side by side.
describe.concurrent('hostile targets: transport', () => {
  it('connections reset mid-run: contract.transport fails with the reset as evidence', async () => {
    const run = await runAgainstHostile(resetEvery(3));
    expect(run.cli.code).toBe(1);
    expect(run.cli.stderr).not.toMatch(STACK_LINE);
    expect(run.files).toEqual([...REPORT_FILES]);
    expect(run.report.verdict).toBe('fail');
    const t = checkOf(run.report, 'contract.transport');
    expect(t.status).toBe('fail');
    expect(t.evidence[0]!.message).toMatch(/^no whole HTTP response \(reset\) \[transport: reset: /);
    expect(t.evidence[0]!.request).toMatch(/^(GET|POST) \/pets/);
    // The run went on after the resets: most requests were answered.
    expect(run.report.totals.requests).toBeGreaterThan(2 * run.report.totals.transportErrors);
  });

  it('answers that never come: each request gives up at --timeout and the run goes on', async () => {
    // --timeout bounds the reachability check too: a second leaves a busy machine's first answer its time.
    const run = await runAgainstHostile(hangEvery(6), ['--timeout', '1000']);
    expect(run.cli.code).toBe(1);
    expect(run.files).toEqual([...REPORT_FILES]);
    const t = checkOf(run.report, 'contract.transport');
    expect(t.status).toBe('fail');
    expect(t.evidence[0]!.message).toBe(
      `no whole HTTP response (timeout) [transport: timeout: no response within 1000 ms]`,
    );
    expect(run.report.totals.transportErrors).toBeGreaterThan(0);
  });

  it('bodies cut short: contract.transport fails with the truncation as evidence', async () => {
    const run = await runAgainstHostile(truncateEvery(3));
    expect(run.cli.code).toBe(1);
    expect(run.files).toEqual([...REPORT_FILES]);
    const t = checkOf(run.report, 'contract.transport');
    expect(t.status).toBe('fail');
    expect(t.evidence[0]!.message).toMatch(/^no whole HTTP response \(truncated\) \[transport: truncated: /);
    expect(t.evidence[0]!.status).toBe(200);
  });
});
