/**
 * saturate: maximum throughput through autocannon (run by autocannon-run.ts: no body kept), one plan after
 * another, each for the phase's duration, on one key of the plan the policy lets it use. For capacity runs:
 * autocannon knows nothing of the backoff policy, so once the key's quota is spent it keeps hammering
 * (point it only at keys that may run dry), and its exchanges are not judged one by one by the passive checks.
 * Every answer and failure does reach the run's metrics (ctx.measure), like any executor's, so thresholds and
 * charts judge saturate's traffic too. What autocannon measured is also recorded as `load.capacity` info and
 * returned in the phase's outcome.
 *
 * The bearer header is set once in autocannon's request options, not in a per-request setup hook (hooks cost
 * throughput); each request's onResponse hook only notes which operation was answered and its headers. Its coordinated-omission correction stays off: autocannon applies it only to runs with a
 * connectionRate or overallRate (and refuses ignoreCoordinatedOmission without one), and saturate sets no rate;
 * a saturating run measures service time. The duration is on the run clock, turned into real seconds.
 */
import type autocannon from 'autocannon';
import type { OperationId } from '../api/operations.js';
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { TOLERANCE_MS } from '../backoff/key-state.js';
import {
  answeredExchange,
  failedExchange,
  HeaderNames,
  lowerCaseHeaders,
  type Answered,
} from './autocannon-exchange.js';
import { runAutocannon, type Listeners } from './autocannon-run.js';
import type { Budget } from './budget.js';
import type { LoadContext } from './context.js';
import type { PlanLane } from './lane.js';
import type { Executor, SaturateResult } from './phase.js';
import type { Traffic } from './traffic.js';

/** Distinct requests autocannon cycles through, drawn from the operation mix. */
const SAMPLE = 64;
const CHECK_ID = 'load.capacity';
/** autocannon's request timeout, real seconds. */
const TIMEOUT_S = 10;

/**
 * A request autocannon cycles through (at `basePath` + its path), whose answer is noted (operation, its path
 * under the target, status, headers) for the metrics: one object per answer, nothing else built.
 */
function sampleRequest(
  shape: { operation: OperationId; method: string; path: string; body?: string },
  basePath: string,
  names: HeaderNames,
  note: (a: Answered) => void,
): autocannon.Request {
  const { operation, method, path } = shape;
  const onResponse = (status: number, _body: string, _context: object, headers: unknown) =>
    note({ operation, method, path, status, headers: lowerCaseHeaders(headers as Record<string, unknown>, names) });
  const req = { method: method as autocannon.Request['method'], path: basePath + path, onResponse };
  return shape.body === undefined ? req : { ...req, body: shape.body };
}

/**
 * The requests autocannon cycles through on `key`, and its listeners: every answer and failure reaches the run's
 * metrics (ctx.measure), like any executor's.
 */
function measuredRequests(
  ctx: LoadContext,
  traffic: Traffic,
  basePath: string,
  key: ApiKey,
): { requests: autocannon.Request[]; listeners: Listeners } {
  // autocannon calls a request's onResponse, then emits 'response' with its time, in one go: the answer
  // noted by the first is the one the second times.
  let answered: Answered | null = null;
  const names = new HeaderNames();
  const requests = Array.from({ length: SAMPLE }, () =>
    sampleRequest(traffic.shape(), basePath, names, (a) => {
      answered = a;
    }),
  );
  const listeners: Listeners = {
    response(realMs) {
      const a: Answered | null = answered;
      answered = null;
      if (a === null) return;
      ctx.measure(answeredExchange({ clock: ctx.clock, key, realMs }, a));
    },
    error(err) {
      const timedOut = err instanceof Error && /timed out/.test(err.message);
      const message = err instanceof Error ? err.message : String(err);
      ctx.measure(
        failedExchange(
          { clock: ctx.clock, key, realMs: timedOut ? TIMEOUT_S * 1000 : 0 },
          { kind: timedOut ? 'timeout' : 'other', message: `autocannon: ${message}` },
        ),
      );
    },
  };
  return { requests, listeners };
}

/** autocannon's answers per status code. */
function statusCountsOf(r: autocannon.Result): Record<string, number> {
  const statusCounts: Record<string, number> = {};
  for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) statusCounts[code] = stat.count ?? 0;
  return statusCounts;
}

/** What autocannon sent, spent from the budget, and how it was answered, in the lane's counts. */
function countInto(lane: PlanLane, budget: Budget, r: autocannon.Result, statusCounts: Record<string, number>): void {
  // `sent` counts requests whether or not they were answered; `total` the answered ones.
  const sent = Math.max(r.requests.total, r.requests.sent);
  budget.spend(sent);
  lane.counts.planned += sent;
  lane.counts.sent += sent;
  const refused = statusCounts['429'] ?? 0;
  lane.counts.accepted += r['2xx'];
  lane.counts.refused += refused;
  lane.counts.answered += r.non2xx - refused;
  lane.counts.failed += r.errors;
}

function resultOf(
  plan: PlanName,
  key: ApiKey,
  connections: number,
  r: autocannon.Result,
  statusCounts: Record<string, number>,
): SaturateResult {
  const total = r.requests.total;
  return {
    plan,
    key: key.label,
    connections,
    durationS: r.duration,
    requests: total,
    requestsPerSecond: r.duration > 0 ? total / r.duration : 0,
    latencyMs: {
      mean: r.latency.mean,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      p999: r.latency.p99_9,
      max: r.latency.max,
    },
    statusCounts,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

export const saturate: Executor<'saturate'> = {
  throughBackoff: false,
  durationMs: (phase, plans) => phase.duration * plans,
  requests: () => Number.POSITIVE_INFINITY,
  unbounded: () => 'sends as fast as the target answers',
  override: (phase, o) => (o.duration !== undefined ? { ...phase, duration: o.duration } : phase),
  async run(env, phase) {
    const { ctx, traffic, budget } = env.shared;
    const base = new URL(ctx.baseUrl);
    const basePath = base.pathname.replace(/\/$/, '');
    const realMs = phase.duration / ctx.clock.scale;
    const results: SaturateResult[] = [];
    const network = ctx.network ?? {};
    if (network.proxy !== undefined) {
      // autocannon connects to the target itself: it would go around the proxy the rest of the run goes through.
      ctx.log(`${env.label}: saturate skipped: autocannon cannot go through a proxy (HTTP_PROXY/HTTPS_PROXY)`);
      return { saturate: results };
    }
    for (const lane of env.lanes) {
      if (env.signal.aborted || budget.spent) break;
      const key = await lane.waitForKey(ctx.clock.now() + MINUTE_MS + TOLERANCE_MS);
      if (key === null) {
        ctx.log(`${env.label}: no ${lane.plan} key may be used now; saturate skipped for ${lane.plan}`);
        continue;
      }
      const connections = Math.min(phase.connections, budget.remaining);
      const { requests, listeners } = measuredRequests(ctx, traffic, basePath, key);
      const options: autocannon.Options = {
        url: `${base.origin}${basePath}`,
        connections,
        duration: realMs / 1000,
        sampleInt: Math.max(10, Math.min(1000, realMs / 10)),
        timeout: TIMEOUT_S,
        // The run's headers (User-Agent, --header, the scenario's), then petload's own credential; HTTP/1.1 only.
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          ...Object.fromEntries(network.headers ?? []),
          authorization: `Bearer ${key.secret}`,
        },
        ...(network.clientCert ? { tlsOptions: { cert: network.clientCert.cert, key: network.clientCert.key } } : {}),
        requests,
        ...(Number.isFinite(budget.remaining) ? { maxOverallRequests: budget.remaining } : {}),
      };
      const { result: r, stopped } = await runAutocannon(options, env.signal, listeners);
      const statusCounts = statusCountsOf(r);
      countInto(lane, budget, r, statusCounts);
      const result = { ...resultOf(lane.plan, key, connections, r, statusCounts), ...(stopped ? { stopped } : {}) };
      ctx.ledger.info(CHECK_ID, lane.plan, env.label, result);
      ctx.ledger.pass(CHECK_ID, lane.plan);
      ctx.log(
        `${env.label}: ${lane.plan} ${Math.round(result.requestsPerSecond)} requests/s over ${connections} connections, p99 ${result.latencyMs.p99} ms, ${result.non2xx} non-2xx, ${result.errors} errors`,
      );
      results.push(result);
      // The same target would send the other plans the same bodies: the phase ends here, saying why.
      if (stopped) {
        ctx.log(`${env.label}: ${lane.plan}: ${stopped}`);
        break;
      }
    }
    return { saturate: results };
  },
};
