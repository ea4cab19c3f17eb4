/**
 * saturate: maximum throughput through autocannon (the only autocannon import in src), one plan after
 * another, each for the phase's duration, on one key of the plan the policy lets it use. For capacity runs:
 * autocannon knows nothing of the backoff policy, so once the key's quota is spent it keeps hammering
 * (point it only at keys that may run dry), and its exchanges are not judged one by one. What it measured is
 * recorded as `load.capacity` info and returned in the phase's outcome.
 *
 * The bearer header is set once in autocannon's request options, not in a per-request hook (hooks cost
 * throughput). Its coordinated-omission correction stays off: autocannon applies it only to runs with a
 * connectionRate or overallRate (and refuses ignoreCoordinatedOmission without one), and saturate sets no rate;
 * a saturating run measures service time. The duration is on the run clock, turned into real seconds.
 */
import autocannon from 'autocannon';
import type { PlanName } from '../api/plans.js';
import { MINUTE_MS } from '../backoff/response.js';
import { TOLERANCE_MS } from '../engine/key-state.js';
import { PetloadError } from '../errors.js';
import type { Executor } from './phase.js';

export interface SaturateResult {
  plan: PlanName;
  /** The key's label (never the key). */
  key: string;
  connections: number;
  /** Real seconds autocannon ran. */
  durationS: number;
  /** Requests answered. */
  requests: number;
  requestsPerSecond: number;
  /** Real milliseconds. */
  latencyMs: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number };
  statusCounts: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** Distinct requests autocannon cycles through, drawn from the operation mix. */
const SAMPLE = 64;
const CHECK_ID = 'load.capacity';

function run(options: autocannon.Options, signal: AbortSignal): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    let instance: autocannon.Instance | undefined;
    const stop = () => instance?.stop();
    signal.addEventListener('abort', stop, { once: true });
    // autocannon calls back synchronously when it rejects its options.
    instance = autocannon(options, (err: unknown, result: autocannon.Result) => {
      signal.removeEventListener('abort', stop);
      if (err) reject(new PetloadError('E_INTERNAL', `autocannon failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
      else resolve(result);
    });
  });
}

export const saturate: Executor<'saturate'> = {
  throughBackoff: false,
  durationMs: (phase, plans) => phase.duration * plans,
  async run(env, phase) {
    const { ctx, traffic, budget } = env.shared;
    const base = new URL(ctx.baseUrl);
    const basePath = base.pathname.replace(/\/$/, '');
    const realMs = phase.duration / ctx.clock.scale;
    const results: SaturateResult[] = [];
    for (const lane of env.lanes) {
      if (env.signal.aborted || budget.spent) break;
      const key = await lane.waitForKey(ctx.clock.now() + MINUTE_MS + TOLERANCE_MS);
      if (key === null) {
        ctx.log(`${env.label}: no ${lane.plan} key may be used now; saturate skipped for ${lane.plan}`);
        continue;
      }
      const connections = Math.min(phase.connections, budget.remaining);
      const requests = Array.from({ length: SAMPLE }, () => {
        const s = traffic.shape();
        return s.body === undefined ? { method: s.method, path: basePath + s.path } : { method: s.method, path: basePath + s.path, body: s.body };
      });
      const options: autocannon.Options = {
        url: `${base.origin}${basePath}`,
        connections,
        duration: realMs / 1000,
        sampleInt: Math.max(10, Math.min(1000, realMs / 10)),
        timeout: 10,
        headers: { authorization: `Bearer ${key.secret}`, accept: 'application/json', 'content-type': 'application/json' },
        requests,
        ...(Number.isFinite(budget.remaining) ? { maxOverallRequests: budget.remaining } : {}),
      };
      const r = await run(options, env.signal);
      // `sent` counts requests whether or not they were answered; `total` the answered ones.
      const total = r.requests.total;
      const sent = Math.max(total, r.requests.sent);
      budget.spend(sent);
      lane.counts.planned += sent;
      lane.counts.sent += sent;
      const statusCounts: Record<string, number> = {};
      for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) statusCounts[code] = stat.count ?? 0;
      const refused = statusCounts['429'] ?? 0;
      lane.counts.accepted += r['2xx'];
      lane.counts.refused += refused;
      lane.counts.answered += r.non2xx - refused;
      lane.counts.failed += r.errors;
      const result: SaturateResult = {
        plan: lane.plan,
        key: key.label,
        connections,
        durationS: r.duration,
        requests: total,
        requestsPerSecond: r.duration > 0 ? total / r.duration : 0,
        latencyMs: { mean: r.latency.mean, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, p999: r.latency.p99_9, max: r.latency.max },
        statusCounts,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
      };
      ctx.ledger.info(CHECK_ID, lane.plan, env.label, result);
      ctx.ledger.pass(CHECK_ID, lane.plan);
      ctx.log(`${env.label}: ${lane.plan} ${Math.round(result.requestsPerSecond)} requests/s over ${connections} connections, p99 ${result.latencyMs.p99} ms, ${result.non2xx} non-2xx, ${result.errors} errors`);
      results.push(result);
    }
    return { saturate: results };
  },
};
