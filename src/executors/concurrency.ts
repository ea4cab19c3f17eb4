/**
 * concurrency: closed model, `workers` workers per plan for a duration (at most maxInFlight in all, since
 * requests beyond the client's connections would queue and leave at a time the backoff did not choose).
 * Each worker waits for a key the policy lets it use, sends, and starts again when the answer (and any
 * retry) is in. p-limit holds the workers, each a loop of iterations (no promise or queue entry per request).
 */
import pLimit from 'p-limit';
import { planLimitPerMs, type Offered } from '../backoff/no-ban.js';
import { DAY_MS, MINUTE_MS, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { PlanLane } from './lane.js';
import type { Executor, PhaseEnv } from './phase.js';

/** Iterations one worker may start per real millisecond at most: a bound far above any loopback round trip. */
const ITERATIONS_PER_REAL_MS = 50;

async function closedLane(env: PhaseEnv, lane: PlanLane, workers: number, durationMs: number): Promise<void> {
  const { ctx, budget } = env.shared;
  // Each worker may start this many iterations at most: the loop is bounded in count as well as in time.
  const bound = Math.ceil((durationMs / ctx.clock.scale) * ITERATIONS_PER_REAL_MS) + 1;
  /** One worker: waits for a key the policy lets it use, sends, and starts again when the answer is in. */
  const worker = async () => {
    for (let started = 0; started < bound; started++) {
      const now = ctx.clock.now();
      if (env.signal.aborted || now >= env.endsAt || budget.spent || !lane.alive()) return;
      let key = lane.freeKey(now);
      if (key === null) {
        // The worker has to wait for a key: counted once as held back.
        lane.holdBack();
        key = await lane.waitForKey(env.endsAt);
      }
      if (key === null || !budget.take()) return;
      lane.counts.planned++;
      await lane.request(key);
    }
  };
  // p-limit holds the workers: as many run at once as the phase asks for, each a loop of iterations.
  const limit = pLimit(workers);
  await Promise.all(Array.from({ length: workers }, () => limit(worker)));
}

/** Requests a limiter lets through `keys` in `durationMs`: every minute and day window the span may touch. */
function limiterAllows(keys: readonly ApiKey[], durationMs: number): number {
  const minutes = Math.ceil(durationMs / MINUTE_MS) + 1;
  const days = Math.ceil(durationMs / DAY_MS) + 1;
  return keys.reduce((sum, k) => sum + Math.min(minutes * k.limits.perMinute, days * k.limits.perDay), 0);
}

export const concurrency: Executor<'concurrency'> = {
  throughBackoff: true,
  durationMs: (phase) => phase.duration,
  // A closed model goes as fast as the target answers; only the backoff policy holds it to the limits.
  requests: (phase, keys, load) =>
    load.backoff.enabled ? limiterAllows(keys, phase.duration) : Number.POSITIVE_INFINITY,
  unbounded: (load) => (load.backoff.enabled ? null : 'runs without backoff, as fast as the target answers'),
  override: (phase, o) => (o.duration !== undefined ? { ...phase, duration: o.duration } : phase),
  async run(env, phase) {
    const { ctx, maxInFlight } = env.shared;
    const workers = Math.max(1, Math.min(phase.workers, Math.floor(maxInFlight / env.lanes.length)));
    await Promise.all(env.lanes.map((lane) => closedLane(env, lane, workers, phase.duration)));
    const elapsed = ctx.clock.monotonic() - env.startMono;
    // A closed model's offered rate is whatever the target lets it reach: a worker that had to wait for a key,
    // or a refusal, shows that it exceeded the limit.
    const offered = new Map<PlanName, Offered>(
      env.lanes.map((lane) => [
        lane.plan,
        lane.counts.refused + lane.counts.heldBack > 0
          ? { exceededLimit: true, withinLimit: planLimitPerMs(lane.keys) * elapsed }
          : { exceededLimit: false },
      ]),
    );
    return { offered };
  },
};
