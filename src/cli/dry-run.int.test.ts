/**
 * `petload run --dry-run`: the schedule on stdout, exit 0, and not one request to the target (a plain loopback
 * server counts what reaches it). No key reaches the output.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { reportFilesIn, runCli, scratch } from '../testing/cli.js';

const PLANS = ['free', 'pro', 'business'] as const;

async function countingServer() {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, requests: () => requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

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
});
