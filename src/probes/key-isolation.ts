/**
 * The key-isolation probe: spends what is left of key A's window, then sends on key B of the same plan, which must
 * be accepted with its own Remaining (ratelimit.key-isolation). An exhaust of A that outlived its window is made again.
 */
import { MINUTE_MS } from '../api/plans.js';
import { cheapList, isAccepted, keysOf, probeTag, roomyKey, sendPatiently } from './context.js';
import type { Probe } from './probe.js';
import { notJudgeable, refusedAs, UNKNOWN_COUNT } from './reasons.js';
import { exhaust, exhaustSpan, minuteCapacity, sameWindow, tripleOf } from './window.js';
import { see, prefixed } from '../checks/skip-reason.js';

/**
 * Times key A is exhausted at most: an exhaust whose window ended before its refusal (a busy machine on a fast clock)
 * showed nothing of the limit, and is made again in the window A is in then.
 */
export const MAX_EXHAUSTS = 3;

export const keyIsolationProbe: Probe = {
  name: 'key-isolation',
  // Spends what is left of key A's window, then two requests on key B.
  needs: {
    sends: 'alone',
    window: 'pair',
    slots: [0, 1],
    second: 2,
    exhaustSpan,
    // The exhausts made again: each at most the rest of a window.
    beyondPlanMs: (MAX_EXHAUSTS - 1) * MINUTE_MS,
  },
  checks: ['ratelimit.key-isolation'],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const id = 'ratelimit.key-isolation';
    if (keysOf(ctx, plan).length < 2)
      return ctx.ledger.skip(id, plan, `needs two keys of one plan; the keys file has one usable ${plan} key`);
    const a = await roomyKey(ctx, plan);
    if (!a) return ctx.ledger.skip(id, plan, `no usable ${plan} key`);
    const b = await roomyKey(ctx, plan, [a.key]);
    if (!b) return ctx.ledger.skip(id, plan, `needs two keys of one plan; no second usable ${plan} key`);
    const tag = probeTag('key-isolation');
    let before = await sendPatiently(ctx, cheapList(b.key, tag));
    let run = await exhaust(ctx, a.key, tag, (first) => minuteCapacity(first, a.key, a.how === 'unused'));
    // A's window ended before its refusal (a busy machine on a fast clock): exhausted again, in the window it is in.
    for (let n = 1; n < MAX_EXHAUSTS && run.refusal === null && run.lost === null && run.rolledOver; n++) {
      ctx.again(`key-isolation [${plan}]: key A's window ended before it was exhausted; exhausted again`);
      before = await sendPatiently(ctx, cheapList(b.key, tag));
      run = await exhaust(ctx, a.key, tag, (first) => minuteCapacity(first, a.key, false));
    }
    if (run.refusal?.status === 429) ctx.refusals.push(a.key, run.refusal);
    else if (run.lost !== null) return ctx.ledger.skip(id, plan, prefixed('key A: ', UNKNOWN_COUNT));
    else if (run.refusal === null && run.rolledOver)
      return ctx.ledger.skip(
        id,
        plan,
        `key A's window ended before it was exhausted, ${MAX_EXHAUSTS} times; not judged`,
      );
    else return ctx.ledger.skip(id, plan, see('key A could not be exhausted', 'ratelimit.enforced'));
    const after = await ctx.send(cheapList(b.key, tag));
    const why = notJudgeable(after);
    if (why !== null) return ctx.ledger.skip(id, plan, why);
    if (!isAccepted(after))
      return ctx.ledger.fail(
        id,
        plan,
        `after exhausting key ${a.key.label}, key ${b.key.label} is refused (${refusedAs(after)})`,
        after,
      );
    const [tb, ta] = [tripleOf(before), tripleOf(after)];
    // A new window for B in between: B was accepted, which is all that can be judged.
    if (!sameWindow(tb, ta)) return ctx.ledger.pass(id, plan);
    // Only a fall below B's own request is A's traffic counted against B; a rise is refill (a bucket, a sliding window).
    ctx.ledger.judge(
      id,
      plan,
      ta!.remaining >= tb!.remaining - 1,
      () =>
        `key B's Remaining went ${tb!.remaining} → ${ta!.remaining} while key A was exhausted (expected at least ${tb!.remaining - 1})`,
      after,
    );
  },
};
