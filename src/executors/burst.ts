/**
 * burst: N requests at once over N connections (a dedicated pool, through ctx.sendSimultaneous), one plan
 * after another. A count is the plan's total; `limit+K` is the plan's per-minute figure plus K. Either is
 * spread round-robin over the plan's keys the policy lets it use now; the share of a key that is waiting is
 * held back. A burst is one shot: nothing is retried.
 */
import type { PlanLimits } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { RequestSpec } from '../http/exchange.js';
import type { Executor } from './phase.js';
import type { BurstSize } from './phases.js';

/** The number of requests of a burst for a plan with the given limits. */
export function resolveBurstSize(size: BurstSize, limits: PlanLimits): number {
  if (size.kind === 'count') return size.count;
  const total = limits.perMinute + size.plus;
  const s = size.shard;
  return s === undefined ? total : Math.floor(total / s.count) + (s.index < total % s.count ? 1 : 0);
}

export const burst: Executor<'burst'> = {
  throughBackoff: false,
  durationMs: () => 0,
  requests: (phase, keys) => resolveBurstSize(phase.requests, keys[0]!.limits),
  unbounded: () => null,
  // A burst has neither a rate nor a duration.
  override: (phase) => phase,
  async run(env, phase) {
    const { ctx, budget, traffic } = env.shared;
    for (const lane of env.lanes) {
      if (env.signal.aborted || budget.spent) break;
      const n = resolveBurstSize(phase.requests, lane.keys[0]!.limits);
      const now = ctx.clock.now();
      const specs: RequestSpec[] = [];
      const keys: ApiKey[] = [];
      const sentAt: number[] = [];
      for (let i = 0; i < n && !budget.spent; i++) {
        lane.counts.planned++;
        const key = lane.freeKey(now);
        if (key === null) {
          lane.holdBack();
          continue;
        }
        budget.take();
        keys.push(key);
        sentAt.push(lane.sending(key));
        specs.push(traffic.spec(key, 'burst'));
      }
      if (specs.length === 0) continue;
      const exchanges = await ctx.sendSimultaneous(specs);
      for (const [i, ex] of exchanges.entries()) lane.learn(keys[i]!, sentAt[i]!, ex);
    }
    return {};
  },
};
