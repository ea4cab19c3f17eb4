/**
 * burst: N requests at once over N connections (a dedicated pool, through ctx.sendSimultaneous), one plan
 * after another. A count is the plan's total; `limit+K` is the plan's per-minute figure plus K. Either is
 * spread round-robin over the plan's keys the policy lets it use now; the share of a key that is waiting is
 * held back. A burst is one shot: nothing is retried.
 */
import { resolveBurstSize } from '../config/scenario.js';
import type { ApiKey } from '../core/api-key.js';
import type { RequestSpec } from '../http/exchange.js';
import type { Executor } from './phase.js';

export const burst: Executor<'burst'> = {
  throughBackoff: false,
  durationMs: () => 0,
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
      exchanges.forEach((ex, i) => lane.learn(keys[i]!, sentAt[i]!, ex));
    }
    return {};
  },
};
