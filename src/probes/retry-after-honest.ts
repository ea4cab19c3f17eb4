/**
 * The retry-after-honest probe: waits out a 429's Retry-After (and 250 ms), then sends one request on the key, which
 * must be accepted (retry-after.honest). The wait-out loop and what the answer makes of the promise:
 * src/probes/wait-out.ts.
 */
import { MINUTE_WAIT_MS } from '../backoff/key-state.js';
import { prefixed } from '../checks/skip-reason.js';
import { retryAfterForProbe } from '../checks/passive/retry-after.js';
import { RETRY_AFTER_MARGIN_MS } from '../http/server-time.js';
import { probeTag } from './context.js';
import type { Probe } from './probe.js';
import { WAIT_TRIES } from './refusal.js';
import { waitOut } from './wait-out.js';
import { waitedOutMessage, waitedRetryAfter } from './waited-out.js';
import { exhaustSpan } from './window.js';

const ID = 'retry-after.honest';

export const retryAfterHonestProbe: Probe = {
  name: 'retry-after-honest',
  needs: { sends: 'on-time', window: 'refusal', slot: 0, exhaustSpan, waits: WAIT_TRIES, expectsRefusals: true },
  checks: [ID],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const w = await waitOut(ctx, plan, {
      tag: probeTag('retry-after-honest'),
      for: `its 429's Retry-After to end (retry-after-honest [${plan}])`,
      comeBack: (r) => {
        const asked = retryAfterForProbe(r.ex, r.key.limits);
        if (!asked.ok) return { skip: prefixed('the 429 gives no wait to judge: ', asked.reason) };
        // Exactly the given time plus the margin; bounded by the window length (and Reset's rounding), as the key
        // states bound the key's hold: coming back sooner, the request would be held back unsent.
        const at = r.ex.localTime + Math.min(asked.waitMs, MINUTE_WAIT_MS) + RETRY_AFTER_MARGIN_MS;
        return { at, wait: waitedRetryAfter(asked.waitMs) };
      },
    });
    if (w.kind === 'skip') return ctx.ledger.skip(ID, plan, w.reason);
    if (w.kind === 'accepted') return ctx.ledger.pass(ID, plan);
    if (w.kind === 'too-soon') {
      if (w.ex.status === 429) ctx.refusals.push(w.key, w.ex);
      // The evidence holds the promise, the return and the answer: it stands alone (src/probes/waited-out.ts).
      return ctx.ledger.fail(ID, plan, waitedOutMessage(w.promise, w.ex, w.wait), w.ex);
    }
    ctx.ledger.hold(ID, plan, { kind: 'refused-after-wait', count: 1, first: [{ ex: w.ex, message: w.message }] });
  },
};
