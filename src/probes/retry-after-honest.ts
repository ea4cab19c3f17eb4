/**
 * The retry-after-honest probe: waits out a 429's Retry-After (and 250 ms), then sends one request on the key, which
 * must be accepted (retry-after.honest).
 */
import { retryAfterForProbe } from '../checks/passive/retry-after.js';
import { cheapList, isAccepted, probeTag, waitUntil } from './context.js';
import type { Probe } from './probe.js';
import { FOREIGN, notJudgeable } from './reasons.js';
import { OTHER_WINDOW, refusalFor, refusedBy, WAIT_TRIES } from './refusal.js';
import { waitedOutMessage } from './waited-out.js';
import { exhaustSpan } from './window.js';
import { MINUTE_MS } from '../api/plans.js';
import { see, prefixed } from '../checks/skip-reason.js';

export const retryAfterHonestProbe: Probe = {
  name: 'retry-after-honest',
  needs: { sends: 'on-time', window: 'refusal', slot: 0, exhaustSpan },
  checks: ['retry-after.honest'],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const id = 'retry-after.honest';
    const tag = probeTag('retry-after-honest');
    let r = await refusalFor(ctx, plan, tag);
    if (!r) return ctx.ledger.skip(id, plan, see('no 429 to wait out', 'ratelimit.enforced'));
    for (let attempt = 0; attempt < WAIT_TRIES; attempt++) {
      const asked = retryAfterForProbe(r.ex, r.key.limits);
      if (!asked.ok) return ctx.ledger.skip(id, plan, prefixed('the 429 gives no wait to judge: ', asked.reason));
      const wait = asked.waitMs;
      // Exactly the given time plus 250 ms; bounded by the window length.
      await waitUntil(ctx, r.ex.localTime + Math.min(wait, MINUTE_MS) + 250, {
        who: r.key.label,
        for: `its 429's Retry-After to end (retry-after-honest [${plan}])`,
      });
      const ex = await ctx.send(cheapList(r.key, tag));
      const why = notJudgeable(ex);
      if (why !== null) return ctx.ledger.skip(id, plan, why);
      if (isAccepted(ex)) return ctx.ledger.pass(id, plan);
      const by = ex.status === 429 ? refusedBy(r.ex, ex) : 'same';
      if (by !== 'later') {
        if (ex.status === 429) ctx.refusals.push(r.key, ex);
        if (by === 'other') return ctx.ledger.skip(id, plan, OTHER_WINDOW);
        // The evidence holds the promise, the return and the answer: it stands alone (src/probes/waited-out.ts).
        return ctx.ledger.fail(id, plan, waitedOutMessage(r.ex, ex, wait), ex);
      }
      r = { key: r.key, ex };
    }
    ctx.refusals.push(r.key, r.ex);
    ctx.ledger.skip(
      id,
      plan,
      prefixed(
        "refused each time in a window that began after the wait: the key's next window was already spent (another client is using the key), or ",
        FOREIGN,
      ),
    );
  },
};
