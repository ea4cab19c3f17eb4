/**
 * concurrency: closed model, `workers` workers per plan for a duration (at most maxInFlight in all, since
 * requests beyond the client's connections would queue and leave at a time the backoff did not choose).
 * Each worker waits for a key the policy lets it use, sends, and starts again when the answer (and any
 * retry) is in. p-limit holds the workers; a small queue of iterations keeps it fed.
 */
import pLimit from 'p-limit';
import { planLimitPerMs, type Offered } from '../backoff/no-ban.js';
import type { PlanName } from '../api/plans.js';
import type { PlanLane } from './lane.js';
import type { Executor, PhaseEnv } from './phase.js';

/** Iterations one worker may start per real millisecond at most: a bound far above any loopback round trip. */
const ITERATIONS_PER_REAL_MS = 50;

async function closedLane(env: PhaseEnv, lane: PlanLane, workers: number, durationMs: number): Promise<void> {
  const { ctx, budget } = env.shared;
  const bound = Math.ceil(workers * (durationMs / ctx.clock.scale) * ITERATIONS_PER_REAL_MS) + workers;
  const limit = pLimit(workers);
  const iteration = async () => {
    // Iterations still queued when the phase ends find the time up and return at once.
    const now = ctx.clock.now();
    if (now >= env.endsAt) return;
    let key = lane.freeKey(now);
    if (key === null) {
      // The worker has to wait for a key: counted once as held back.
      lane.holdBack();
      key = await lane.waitForKey(env.endsAt);
    }
    if (key === null || !budget.take()) return;
    lane.counts.planned++;
    await lane.request(key);
  };
  let started = 0;
  let queued = 0;
  await new Promise<void>((resolve) => {
    const more = () => !env.signal.aborted && ctx.clock.now() < env.endsAt && started < bound && !budget.spent && lane.alive();
    const feed = () => {
      while (queued < 2 * workers && more()) {
        started++;
        queued++;
        void limit(iteration).finally(() => {
          queued--;
          feed();
        });
      }
      if (queued === 0) resolve();
    };
    feed();
  });
}

export const concurrency: Executor<'concurrency'> = {
  throughBackoff: true,
  durationMs: (phase) => phase.duration,
  async run(env, phase) {
    const { ctx, maxInFlight } = env.shared;
    const workers = Math.max(1, Math.min(phase.workers, Math.floor(maxInFlight / env.lanes.length)));
    await Promise.all(env.lanes.map((lane) => closedLane(env, lane, workers, phase.duration)));
    const elapsed = ctx.clock.monotonic() - env.startMono;
    // A closed model's offered rate is whatever the target lets it reach: a worker that had to wait for a key,
    // or a refusal, shows that it exceeded the limit.
    const offered = new Map<PlanName, Offered>(
      env.lanes.map((lane) => [lane.plan, lane.counts.refused + lane.counts.heldBack > 0 ? { exceededLimit: true, withinLimit: planLimitPerMs(lane.keys) * elapsed } : { exceededLimit: false }]),
    );
    return { offered };
  },
};
