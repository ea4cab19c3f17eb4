/**
 * The shipped capacity scenario through the real CLI on the embedded server: saturate's traffic reaches the
 * run's metrics, so its thresholds judge the requests autocannon sent (not "no data") and the run passes.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readReportJson, runCli, scratch } from '../testing/cli.js';

const s = scratch('petload-capacity-');
afterAll(() => rmSync(s.dir, { recursive: true, force: true }));

describe('run capacity', () => {
  it('passes on the embedded server, its thresholds judged on the counts of the traffic saturate sent', async () => {
    const dir = join(s.dir, 'report');
    // --time-scale 10: the scenario's 5 s of saturate last half a second of real time.
    const r = await runCli(['run', 'capacity', '--time-scale', '10', '--quiet', '--report-dir', dir]);
    expect(r.stderr).not.toMatch(/no data/);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = readReportJson(dir);
    expect(report.verdict).toBe('pass');
    const capacity = report.checks.find((c) => c.id === 'load.capacity')!.byPlan[0]!.info['phase 1 (saturate)'] as {
      requests: number;
      errors: number;
      statusCounts: Record<string, number>;
    };
    expect(capacity.requests).toBeGreaterThan(0);
    // The metrics hold every answer autocannon counted, status by status.
    expect(report.totals.requests).toBe(capacity.requests + capacity.errors);
    const { error: _none, ...statuses } = report.totals.statusCounts;
    expect(statuses).toEqual(capacity.statusCounts);
    expect(Object.values(statuses).reduce((a, b) => a + b, 0)).toBe(capacity.requests);
    expect((statuses['200'] ?? 0) + (statuses['201'] ?? 0)).toBeGreaterThan(0);
    // Both thresholds judged a real observation (0 of that many requests), not a missing one.
    expect(report.thresholds.map((t) => [t.expression, t.observed, t.ok])).toEqual([
      ['count(5xx) == 0', 0, true],
      ['count(errors) == 0', 0, true],
    ]);
    expect(r.stdout).toMatch(/PASS count\(5xx\) == 0\s+observed 0\b/);
  });
});
