/**
 * The metrics endpoint scraped by a real Prometheus (Debian's, started here as a child process with a scrape
 * interval of 1 s and its storage in a temp directory), while a real run of the smoke scenario goes on against the
 * embedded reference server. Once Prometheus has scraped the run's end, its count of requests is report.json's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../config/load-scenario.js';
import { createRunEvents } from '../core/run-events.js';
import { runScenario } from '../engine/run.js';
import { programPath } from '../testing/system-packages.js';
import { startMetrics } from './metrics.js';
import { relayEvents } from './relay.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port free on loopback right now (Prometheus takes no port 0 that it would tell us of). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

let dir: string;
let prometheus: ChildProcess | null = null;
let log = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petload-prometheus-'));
});

afterAll(async () => {
  const p = prometheus;
  if (p !== null && p.exitCode === null && p.signalCode === null) {
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    if ((await Promise.race([exited, sleep(10_000).then(() => 'timeout')])) === 'timeout') p.kill('SIGKILL');
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Start Prometheus scraping `target` (host:port) every second; resolves with its API base once it is ready. */
async function startPrometheus(target: string): Promise<string> {
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  await writeFile(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: petload',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const p = spawn(
    programPath('prometheus'),
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus = p;
  p.stdout?.on('data', (d) => (log += String(d)));
  p.stderr?.on('data', (d) => (log += String(d)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (p.exitCode !== null) throw new Error(`prometheus exited (${p.exitCode}): ${log}`);
    const ready = await fetch(`${base}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return base;
    await sleep(250);
  }
  throw new Error(`prometheus was not ready within 60 s: ${log}`);
}

/** The value of an instant query's single result, or null when it has none. */
async function query(base: string, expr: string): Promise<number | null> {
  const r = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await r.json()) as { status: string; data?: { result: { value: [number, string] }[] }; error?: string };
  if (body.status !== 'success') throw new Error(`query ${expr}: ${body.error ?? r.status}`);
  const first = body.data?.result[0];
  return first === undefined ? null : Number(first.value[1]);
}

/** Poll a query until its value satisfies `ok`, for at most `ms`; the last value either way. */
async function queryUntil(base: string, expr: string, ok: (v: number | null) => boolean, ms: number) {
  const deadline = Date.now() + ms;
  let v = await query(base, expr);
  while (!ok(v) && Date.now() < deadline) {
    await sleep(250);
    v = await query(base, expr);
  }
  return v;
}

describe('the metrics endpoint under a real Prometheus', () => {
  it("is scraped during a run, and its final count of requests is report.json's", { timeout: 180_000 }, async () => {
    const relay = createRunEvents();
    const endpoint = await startMetrics(relay, { port: 0 });
    try {
      const base = await startPrometheus(new URL(endpoint.url).host);
      // The first scrape, before the run: the target is up and the run has not started.
      expect(await queryUntil(base, 'up{job="petload"}', (v) => v === 1, 30_000)).toBe(1);
      expect(await query(base, 'petload_run_phase{phase="starting"}')).toBe(1);

      const result = await runScenario({
        scenario: loadScenario('smoke'),
        target: { kind: 'embedded', timeScale: 10 },
        reportDir: join(dir, 'report'),
        subscribe: (events) => {
          relayEvents(events, relay);
        },
      });
      expect(result.report.totals.requests).toBeGreaterThan(100);

      // The endpoint stays up until Prometheus has scraped the run's end: a scrape is whole, so its count is final.
      expect(await queryUntil(base, 'petload_run_phase{phase="ended"}', (v) => v === 1, 30_000)).toBe(1);
      expect(await query(base, 'sum(petload_requests_total)')).toBe(result.report.totals.requests);
      expect(await query(base, 'sum(petload_request_duration_seconds_count)')).toBe(result.report.totals.requests);
      expect(await query(base, 'petload_checks{status="passed"}')).toBe(result.report.summary.passed);
      expect(await query(base, 'petload_checks{status="failed"}')).toBe(result.report.summary.failed);
      // It saw the run while it sent, not only its end.
      expect(await query(base, 'max_over_time(petload_run_phase{phase="load"}[5m])')).toBe(1);
      expect(await query(base, 'count(count_over_time(petload_requests_total{plan="pro"}[5m]))')).toBeGreaterThan(0);
      const p99 = await query(
        base,
        'histogram_quantile(0.99, sum by (le) (rate(petload_request_duration_seconds_bucket[5m])))',
      );
      expect(p99).not.toBeNull();
      // Prometheus asked for OpenMetrics and parsed it: the counter's family is named without `_total` there.
      const metadata = (await (await fetch(`${base}/api/v1/metadata`)).json()) as { data: Record<string, unknown> };
      expect(
        Object.keys(metadata.data)
          .filter((m) => m.startsWith('petload_requests'))
          .sort(),
      ).toEqual(['petload_requests']);
      // Every query of the Grafana dashboard (docs/grafana/petload-dashboard.json) is valid and finds the run.
      for (const expr of dashboardQueries()) {
        const r = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
        const body = (await r.json()) as { status: string; data?: { result: unknown[] } };
        expect(body.status, expr).toBe('success');
        expect(body.data?.result.length, expr).toBeGreaterThan(0);
      }
    } finally {
      await endpoint.close();
    }
  });
});

/** The dashboard's queries, with its variables as Grafana would fill them in for every run. */
function dashboardQueries(): string[] {
  const file = fileURLToPath(new URL('../../docs/grafana/petload-dashboard.json', import.meta.url));
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as { panels: { targets: { expr: string }[] }[] };
  const queries = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
  expect(queries.length).toBeGreaterThan(5);
  return queries.map((q) =>
    q.replaceAll('$job', '.*').replaceAll('$instance', '.*').replaceAll('$__rate_interval', '5m'),
  );
}
