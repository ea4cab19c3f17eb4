/**
 * `petload run --metrics-port`: the run's figures for Prometheus, as an OpenMetrics endpoint (`/metrics`), written by
 * ./exposition.ts from plain counts. A sink of the run's event stream: it subscribes synchronously and counts from
 * the events alone (labels and numbers: no key, header or body).
 *
 * - petload_requests_total{plan,operation,status}: exchanges judged (status: the HTTP status, or `error` when there
 *   was no response; plan and operation `none` when there were none)
 * - petload_request_duration_seconds{operation}: latency from the intended send time, real seconds
 * - petload_checks{status}: checks failed, warned, passed and skipped as the run stands (as report.json counts them)
 * - petload_keys{state}: keys held back now (a Retry-After running), refused at least once, suspected banned
 * - petload_run_phase{phase}: 1 for the run's phase (starting, probes, load, ended), 0 for the others
 */
import { createServer } from 'node:http';
import type { RunEvents } from '../core/run-events.js';
import {
  type Family,
  histogramSamples,
  OPENMETRICS_CONTENT_TYPE,
  PROMETHEUS_CONTENT_TYPE,
  renderExposition,
  wantsOpenMetrics,
} from './exposition.js';
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

export { OPENMETRICS_CONTENT_TYPE, PROMETHEUS_CONTENT_TYPE, wantsOpenMetrics } from './exposition.js';

/** Latency buckets, seconds: 1 ms to 10 s. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface RunMetrics {
  /** The exposition in the format the Accept header asks for (OpenMetrics when it names it, else Prometheus text). */
  render(accept: string | undefined): { contentType: string; body: string };
  /** Stop listening to the run's events (the figures stay as they are). */
  unsubscribe(): void;
}

/** Exchanges counted by plan, operation and status on the hot path, as plain numbers. */
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

/** Latency counted per operation into the family's buckets on the hot path. */
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

/** What a scrape reads: the hot path's counts and the gauges' values as the run stands. */
interface RunFigures {
  readonly requests: RequestCounts;
  readonly latency: LatencyCounts;
  readonly checks: Record<string, number>;
  readonly keys: Record<string, number>;
  phase: RunPhase;
}

const gauge = (name: string, help: string, label: string, values: Record<string, number>): Family => ({
  name,
  help,
  type: 'gauge',
  samples: Object.entries(values).map(([v, value]) => ({ suffix: '', labels: { [label]: v }, value })),
});

function families(f: RunFigures): Family[] {
  return [
    {
      name: 'petload_requests',
      help: 'Exchanges judged, by plan, operation and HTTP status (error: no response)',
      type: 'counter',
      samples: [...f.requests.all()].map(({ labels, n }) => ({ suffix: '_total', labels, value: n })),
    },
    {
      name: 'petload_request_duration_seconds',
      help: 'Latency from the intended send time, real seconds, by operation',
      type: 'histogram',
      samples: [...f.latency.byOp].flatMap(([operation, c]) =>
        histogramSamples(DURATION_BUCKETS, c.perBucket, c.sum, c.count, { operation }),
      ),
    },
    gauge('petload_checks', 'Checks as the run stands: failed, warned, passed, skipped', 'status', f.checks),
    gauge(
      'petload_keys',
      'Keys held back now (a Retry-After running), refused at least once in the run, suspected banned',
      'state',
      f.keys,
    ),
    gauge(
      'petload_run_phase',
      "1 for the run's phase (starting, probes, load, ended), 0 for the others",
      'phase',
      Object.fromEntries(RUN_PHASES.map((p) => [p, p === f.phase ? 1 : 0])),
    ),
  ];
}

/** The run's metrics, kept from its events (no server: see startMetrics). */
export function createRunMetrics(events: RunEvents): RunMetrics {
  // Every series from the first scrape on, at 0: a query sees a run with no failure yet, not no data.
  const f: RunFigures = {
    requests: new RequestCounts(),
    latency: new LatencyCounts(),
    checks: Object.fromEntries(CHECK_STANDINGS.map((s) => [s, 0])),
    keys: Object.fromEntries(KEY_STATES.map((s) => [s, 0])),
    phase: 'starting',
  };
  const tally = new CheckTally();
  const offs = [
    events.on('exchange', (e) => {
      f.requests.add(e.plan ?? 'none', e.operation ?? 'none', e.status);
      f.latency.add(e.operation ?? 'none', e.latencyMs / 1000);
    }),
    events.on('check', (e) => {
      tally.add(e);
      Object.assign(f.checks, tally.counts());
    }),
    events.on('keys', (e) => {
      Object.assign(f.keys, keyStateCounts(e.keys));
    }),
    events.on('ended', (e) => {
      if (e.summary !== undefined) Object.assign(f.checks, standingsOfSummary(e.summary));
    }),
    ...(['started', 'phase', 'ended'] as const).map((type) =>
      events.on(type, (e) => {
        f.phase = phaseAfter(f.phase, e);
      }),
    ),
  ];
  return {
    render: (accept) => {
      const format = wantsOpenMetrics(accept) ? 'openmetrics' : 'prometheus';
      return {
        contentType: format === 'openmetrics' ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_CONTENT_TYPE,
        body: renderExposition(families(f), format),
      };
    },
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
    const { contentType, body } = metrics.render(req.headers.accept);
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body);
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
