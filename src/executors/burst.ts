/**
 * burst: N requests at once over N connections (a dedicated pool, through ctx.sendSimultaneous), one plan
 * after another. A count is the plan's total; `limit+K` is the plan's per-minute figure plus K. Either is
 * spread round-robin over the plan's keys the policy lets it use now; the share of a key that is waiting is
 * held back. A burst is one shot: nothing is retried.
 */
import * as z from 'zod';
import type { PlanLimits } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { Count, parsedString } from '../core/fields.js';
import type { RequestSpec } from '../http/exchange.js';
import type { Executor } from './phase.js';

/**
 * How many requests a burst sends: a number, or the plan's per-minute limit plus K (of which a shard of a
 * sharded run sends its share: src/shard/partition.ts).
 */
export type BurstSize =
  | { readonly kind: 'count'; readonly count: number }
  | {
      readonly kind: 'limit';
      readonly plus: number;
      readonly shard?: { readonly index: number; readonly count: number };
    };

const BURST_EXPECTED = 'expected a number of requests, or "limit" or "limit+K" (the plan\'s per-minute limit plus K)';

function parseBurstSize(text: string): BurstSize {
  const m = /^limit\s*(?:\+\s*(\d+))?$/.exec(text.trim());
  if (m) return { kind: 'limit', plus: Number(m[1] ?? 0) };
  const near = /^\s*[a-z]+\s*\+\s*(\d+)\s*$/i.exec(text);
  throw new Error(
    `${BURST_EXPECTED}, found ${JSON.stringify(text)}${near ? ` (did you mean "limit+${near[1]}"?)` : ''}`,
  );
}

/** The number of requests of a burst for a plan with the given limits. */
export function resolveBurstSize(size: BurstSize, limits: PlanLimits): number {
  if (size.kind === 'count') return size.count;
  const total = limits.perMinute + size.plus;
  const s = size.shard;
  return s === undefined ? total : Math.floor(total / s.count) + (s.index < total % s.count ? 1 : 0);
}

const BurstRequests = z.union(
  [
    Count(10_000).transform((count): BurstSize => ({ kind: 'count', count })),
    parsedString(parseBurstSize, BURST_EXPECTED),
  ],
  { error: BURST_EXPECTED },
);

export const BurstPhase = z.strictObject({ executor: z.literal('burst'), requests: BurstRequests });

export const burst: Executor<'burst'> = {
  schema: BurstPhase,
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
