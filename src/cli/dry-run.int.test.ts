/**
 * `petload run --dry-run`: the schedule on stdout, exit 0, and not one request to the target (a plain loopback
 * server counts what reaches it). No key reaches the output.
 */
import { describe, expect, it } from 'vitest';
import { countingServer, reportFilesIn, runCli, scratch } from '../testing/cli.js';

const PLANS = ['free', 'pro', 'business'] as const;

describe('run --dry-run', () => {
  it.each([3, 1])('prints the schedule for %i key(s) per plan and sends nothing', { timeout: 30_000 }, async (n) => {
    const target = await countingServer();
    try {
      const s = scratch('petload-dry-run-');
      const entries = PLANS.flatMap((plan) =>
        Array.from({ length: n }, (_, i) => ({ key: `SECRET-${plan}-${i}-0123456789abcdef`, plan })),
      );
      const r = await runCli([
        'run',
        'compliance',
        '--dry-run',
        '--target',
        target.url,
        '--keys-file',
        s.keys(entries),
        '--report-dir',
        `${s.dir}/r`,
      ]);
      expect(r.code).toBe(0);
      expect(target.requests()).toBe(0);
      expect(reportFilesIn(`${s.dir}/r`)).toEqual([]);
      expect(r.stdout).not.toContain('SECRET-');
      // One line per step: start, plan, probe, key label, window, requests.
      expect(r.stdout).toMatch(/^\s+0\.0 s {2}free {7}enforce {13}free#1 \(…cdef\), window 1, 61 requests$/m);
      expect(r.stdout).toMatch(/retry-after-honest\s+free#1 \(…cdef\), window 2, 1 requests/);
      expect(r.stdout).toMatch(/expected duration about \d min \d\d s, \d\.\d minute windows of the target/);
      expect(r.stdout).toMatch(/^ {4}business#1 \(…cdef\): [\d,]+ requests$/m);
      expect(r.stdout).toContain('fastest pass: 3 keys per plan');
      if (n === 1) {
        expect(r.stdout).toMatch(/key-isolation\s+skipped: needs two keys/);
        expect(r.stdout).toMatch(
          /slower than it could be: with 3 keys per plan the pass would take about 2\.\d windows instead of 3\.\d/,
        );
      } else {
        expect(r.stdout).not.toContain('slower than it could be');
      }
    } finally {
      await target.close();
    }
  });

  it('follows the round trip given with --rtt: the plans count side by side, the duration its time model says', {
    timeout: 30_000,
  }, async () => {
    const target = await countingServer();
    try {
      const s = scratch('petload-dry-run-rtt-');
      const keys = s.keys(
        PLANS.flatMap((plan) => [0, 1, 2].map((i) => ({ key: `SECRET-${plan}-${i}-0123456789abcdef`, plan }))),
      );
      const dry = (...more: string[]) =>
        runCli(['run', 'compliance', '--dry-run', '--target', target.url, '--keys-file', keys, ...more]);
      const [near, far, bad] = await Promise.all([dry(), dry('--rtt', '100'), dry('--rtt', '0.1s')]);
      expect([near.code, far.code]).toEqual([0, 0]);
      expect(target.requests()).toBe(0);
      expect(near.stdout).toContain(
        'round trip to the target assumed: none (loopback; --rtt MS for a target farther away)',
      );
      expect(far.stdout).toContain('round trip to the target assumed: 100 ms (--rtt)');
      // On loopback one exact count at a time across plans; 100 ms away, every plan's enforce at once.
      expect(near.stdout).not.toMatch(/^\s+0\.0 s {2}business {3}enforce/m);
      expect(far.stdout).toMatch(/^\s+0\.0 s {2}pro {8}enforce/m);
      expect(far.stdout).toMatch(/^\s+0\.0 s {2}business {3}enforce/m);
      const seconds = (out: string) => {
        const m = /expected duration about (\d+) min (\d\d) s/.exec(out)!;
        return Number(m[1]) * 60 + Number(m[2]);
      };
      expect(seconds(far.stdout)).toBeGreaterThan(seconds(near.stdout));
      expect(seconds(far.stdout)).toBeLessThanOrEqual(126);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--rtt: expected a whole number of milliseconds from 0 to 10000');
    } finally {
      await target.close();
    }
  });
});
