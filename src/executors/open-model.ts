/**
 * The open model shared by constant-rate and ramping-rate: arrivals come at their intended times whatever
 * the target does. An arrival is sent on a free key of its plan; when every key of the plan is waiting it is
 * held back (the backoff's decision, reported as such), when `maxInFlight` requests are already in flight it is
 * dropped (counted by ctx.dropped, like k6's dropped iterations). Latency is measured from the intended time.
 */
import { planLimitPerMs, type Offered } from '../backoff/no-ban.js';
import type { PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { resolveRate, type Rate } from '../core/rate.js';
import type { PlanLane } from './lane.js';
import { cappedIntegral, exceeds, pace, type Schedule } from './pacing.js';
import type { PhaseEnv, PhaseResult } from './phase.js';

/**
 * Requests per run-clock second of a plan: an absolute rate is the plan's total; a share of the plan is per
 * key, so the plan's traffic is the sum over its keys (an enterprise key's own figures included).
 */
export function planRate(rate: Rate, keys: readonly ApiKey[]): number {
  if (rate.kind === 'absolute') return rate.perSecond;
  return keys.reduce((sum, k) => sum + resolveRate(rate, k.limits), 0);
}

function arrive(env: PhaseEnv, lane: PlanLane, intended: number): boolean {
  const { ctx, budget, maxInFlight } = env.shared;
  if (budget.spent) return false;
  lane.counts.planned++;
  const key = lane.freeKey(ctx.clock.now());
  if (key === null) {
    if (!lane.alive()) return false;
    lane.holdBack();
    return true;
  }
  if (ctx.inFlight() >= maxInFlight) {
    lane.drop();
    return true;
  }
  budget.take();
  lane.start(key, intended);
  return true;
}

/** Run one schedule per lane from the phase start, all at once. */
export async function runOpenModel(env: PhaseEnv, scheduleOf: (lane: PlanLane) => Schedule): Promise<PhaseResult> {
  const { clock } = env.shared.ctx;
  const schedules = env.lanes.map(scheduleOf);
  await Promise.all(
    env.lanes.map((lane, i) =>
      pace(clock, schedules[i]!, env.startMono, env.signal, (intended) => arrive(env, lane, intended)),
    ),
  );
  const elapsed = clock.monotonic() - env.startMono;
  const offered = new Map<PlanName, Offered>();
  env.lanes.forEach((lane, i) => {
    const schedule = schedules[i]!;
    const cap = planLimitPerMs(lane.keys);
    offered.set(
      lane.plan,
      exceeds(schedule, cap, elapsed)
        ? { exceededLimit: true, withinLimit: cappedIntegral(schedule, cap, elapsed) }
        : { exceededLimit: false },
    );
  });
  return { offered };
}
