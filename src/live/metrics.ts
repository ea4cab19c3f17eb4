/**
 * `petload run --metrics-port`: the run's figures for Prometheus, as an OpenMetrics endpoint (`/metrics`) built on
 * prom-client (the only prom-client import), with a registry of its own. A sink of the run's event stream: it
 * subscribes synchronously and counts from the events alone (labels and numbers: no key, header or body).
 *
 * - petload_requests_total{plan,operation,status}: exchanges judged (status: the HTTP status, or `error` when there
 *   was no response; plan and operation `none` when there were none)
 * - petload_request_duration_seconds{operation}: latency from the intended send time, real seconds
 * - petload_checks{status}: checks failed, warned, passed and skipped as the run stands (as report.json counts them)
 * - petload_keys{state}: keys held back now (a Retry-After running), refused at least once, suspected banned
 * - petload_run_phase{phase}: 1 for the run's phase (starting, probes, load, ended), 0 for the others
 */
import { createServer } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunEvents } from '../core/run-events.js';
import { closeServer, httpUrl, listen } from './listen.js';
import {
  CHECK_STANDINGS,
  CheckTally,
  KEY_STATES,
  keyStateCounts,
  phaseAfter,
  RUN_PHASES,
  type RunPhase,
  standingsOfSummary,
} from './tally.js';

export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Latency buckets, seconds: 1 ms to 10 s. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const REQUESTS = 'petload_requests_total';
const DURATION = 'petload_request_duration_seconds';
const DURATION_HELP = 'Latency from the intended send time, real seconds, by operation';

export interface RunMetrics {
  /** The exposition in the format the Accept header asks for (OpenMetrics when it names it, else Prometheus text). */
  render(accept: string | undefined): Promise<{ contentType: string; body: string }>;
  /** Stop listening to the run's events (the figures stay as they are). */
  unsubscribe(): void;
}

/** Whether an Accept header asks for OpenMetrics (with a q above 0). */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    if (type !== 'application/openmetrics-text') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Exchanges counted by plan, operation and status on the hot path, as plain numbers (prom-client's inc costs ~1 µs). */
class RequestCounts {
  private readonly cells = new Map<
    string,
    Map<string, Map<number | null, { labels: Record<string, string>; n: number }>>
  >();

  add(plan: string, operation: string, status: number | null): void {
    let byOp = this.cells.get(plan);
    if (byOp === undefined) this.cells.set(plan, (byOp = new Map()));
    let byStatus = byOp.get(operation);
    if (byStatus === undefined) byOp.set(operation, (byStatus = new Map()));
    const cell = byStatus.get(status);
    if (cell !== undefined) cell.n++;
    else
      byStatus.set(status, { labels: { plan, operation, status: status === null ? 'error' : String(status) }, n: 1 });
  }

  *all(): Iterable<{ labels: Record<string, string>; n: number }> {
    for (const byOp of this.cells.values()) for (const byStatus of byOp.values()) yield* byStatus.values();
  }
}

/** Latency counted per operation into the family's buckets on the hot path (prom-client's observe costs ~1 µs). */
class LatencyCounts {
  readonly byOp = new Map<string, { perBucket: number[]; sum: number; count: number }>();

  add(operation: string, seconds: number): void {
    let c = this.byOp.get(operation);
    if (c === undefined) this.byOp.set(operation, (c = { perBucket: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 }));
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    if (i < DURATION_BUCKETS.length) c.perBucket[i]!++;
    c.sum += seconds;
    c.count++;
  }
}

type HistogramFamily = Awaited<ReturnType<Histogram<'operation'>['get']>>;

/**
 * petload_request_duration_seconds: a prom-client histogram whose values are read, at each scrape, from the counts
 * the hot path kept (the same cumulative `_bucket`, `_sum` and `_count` samples prom-client writes for its own).
 */
class DurationHistogram extends Histogram<'operation'> {
  constructor(
    private readonly counts: LatencyCounts,
    registers: Registry[],
  ) {
    super({ name: DURATION, help: DURATION_HELP, labelNames: ['operation'], buckets: DURATION_BUCKETS, registers });
  }

  override async get(): Promise<HistogramFamily> {
    return this.getForPromString();
  }

  /** What prom-client's registry reads of a histogram to write it out. */
  async getForPromString(): Promise<HistogramFamily> {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const [operation, c] of this.counts.byOp) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += c.perBucket[i]!;
        values.push({ labels: { le, operation }, value: cumulative, metricName: `${DURATION}_bucket` });
      });
      values.push({ labels: { le: '+Inf', operation }, value: c.count, metricName: `${DURATION}_bucket` });
      values.push({ labels: { operation }, value: c.sum, metricName: `${DURATION}_sum` });
      values.push({ labels: { operation }, value: c.count, metricName: `${DURATION}_count` });
    }
    const family = { name: DURATION, help: DURATION_HELP, type: 'histogram', aggregator: 'sum', values };
    return family as unknown as HistogramFamily;
  }
}

function createInstruments(registry: Registry) {
  const registers = [registry];
  const requestCounts = new RequestCounts();
  const latencyCounts = new LatencyCounts();
  return {
    requestCounts,
    latencyCounts,
    requests: new Counter({
      name: REQUESTS,
      help: 'Exchanges judged, by plan, operation and HTTP status (error: no response)',
      labelNames: ['plan', 'operation', 'status'] as const,
      registers,
      collect() {
        this.reset();
        for (const { labels, n } of requestCounts.all()) this.inc(labels, n);
      },
    }),
    duration: new DurationHistogram(latencyCounts, registers),
    checks: new Gauge({
      name: 'petload_checks',
      help: 'Checks as the run stands: failed, warned, passed, skipped',
      labelNames: ['status'] as const,
      registers,
    }),
    keys: new Gauge({
      name: 'petload_keys',
      help: 'Keys held back now (a Retry-After running), refused at least once in the run, suspected banned',
      labelNames: ['state'] as const,
      registers,
    }),
    phase: new Gauge({
      name: 'petload_run_phase',
      help: "1 for the run's phase (starting, probes, load, ended), 0 for the others",
      labelNames: ['phase'] as const,
      registers,
    }),
  };
}

/** The run's metrics in a registry of their own, kept from its events (no server: see startMetrics). */
export function createRunMetrics(events: RunEvents): RunMetrics {
  const registry = new Registry();
  const m = createInstruments(registry);
  const tally = new CheckTally();
  let phase: RunPhase = 'starting';
  const setPhase = (next: RunPhase) => {
    phase = next;
    for (const p of RUN_PHASES) m.phase.set({ phase: p }, p === phase ? 1 : 0);
  };
  // Every series from the first scrape on, at 0: a query sees a run with no failure yet, not no data.
  setPhase('starting');
  for (const status of CHECK_STANDINGS) m.checks.set({ status }, 0);
  for (const state of KEY_STATES) m.keys.set({ state }, 0);
  const offs = [
    events.on('exchange', (e) => {
      m.requestCounts.add(e.plan ?? 'none', e.operation ?? 'none', e.status);
      m.latencyCounts.add(e.operation ?? 'none', e.latencyMs / 1000);
    }),
    events.on('check', (e) => {
      tally.add(e);
      for (const [status, n] of Object.entries(tally.counts())) m.checks.set({ status }, n);
    }),
    events.on('keys', (e) => {
      for (const [state, n] of Object.entries(keyStateCounts(e.keys))) m.keys.set({ state }, n);
    }),
    events.on('ended', (e) => {
      if (e.summary === undefined) return;
      for (const [status, n] of Object.entries(standingsOfSummary(e.summary))) m.checks.set({ status }, n);
    }),
    ...(['started', 'phase', 'ended'] as const).map((type) =>
      events.on(type, (e) => {
        const next = phaseAfter(phase, e);
        if (next !== phase) setPhase(next);
      }),
    ),
  ];
  // prom-client renames a counter for OpenMetrics (it drops `_total` from the family's name and adds it to the
  // samples') and does not rename it back: renders run one at a time, and the name is put back after each.
  let queue: Promise<unknown> = Promise.resolve();
  const render = (accept: string | undefined) => {
    const contentType = wantsOpenMetrics(accept) ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_CONTENT_TYPE;
    const next = queue.then(async () => {
      registry.setContentType(contentType as typeof Registry.PROMETHEUS_CONTENT_TYPE);
      try {
        return { contentType, body: await registry.metrics() };
      } finally {
        (m.requests as unknown as { name: string }).name = REQUESTS;
      }
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    render,
    unsubscribe: () => {
      for (const off of offs) off();
    },
  };
}

export interface MetricsOptions {
  /** The port to listen on (0: a free one). */
  port: number;
  /** Default 127.0.0.1; a pod that Prometheus scrapes from outside listens on 0.0.0.0. */
  host?: string;
}

export interface MetricsEndpoint {
  /** The endpoint's address, e.g. http://127.0.0.1:9464/metrics. */
  readonly url: string;
  /** Stop the server; the figures are no longer served. */
  close(): Promise<void>;
}

/** Serve the run's metrics at /metrics (GET; anything else 404 or 405) until close(). */
export async function startMetrics(events: RunEvents, options: MetricsOptions): Promise<MetricsEndpoint> {
  const metrics = createRunMetrics(events);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' }).end();
      return;
    }
    metrics.render(req.headers.accept).then(
      ({ contentType, body }) =>
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${String(e)}\n`),
    );
  });
  const host = options.host ?? '127.0.0.1';
  let port: number;
  try {
    port = await listen(server, options.port, host);
  } catch (e) {
    metrics.unsubscribe();
    throw e;
  }
  let closing: Promise<void> | null = null;
  return {
    url: httpUrl(host, port, '/metrics'),
    close: () => {
      if (closing === null) {
        metrics.unsubscribe();
        closing = closeServer(server);
      }
      return closing;
    },
  };
}
