/**
 * The restore probe: waits out a 429's window (Retry-After and Reset), then sends one request on the key, which must
 * be accepted on a new window (ratelimit.quota-restored).
 */
import { TOLERANCE_MS } from '../backoff/key-state.js';
import { cheapList, isAccepted, probeTag, waitUntil } from './context.js';
import type { Probe } from './probe.js';
import { FOREIGN, notJudgeable, refusedAs } from './reasons.js';
import { OTHER_WINDOW, refusalFor, refusedBy, refusedWindowEnd, WAIT_TRIES } from './refusal.js';
import { exhaustSpan, sameWindow, tripleOf } from './window.js';
import { afterWait } from './waited-out.js';
import { MINUTE_MS } from '../api/plans.js';
import { see, prefixed } from '../checks/skip-reason.js';

export const restoreProbe: Probe = {
  name: 'restore',
  needs: { sends: 'on-time', window: 'refusal', slot: 1, exhaustSpan },
  checks: ['ratelimit.quota-restored'],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const id = 'ratelimit.quota-restored';
    const tag = probeTag('restore');
    let r = await refusalFor(ctx, plan, tag);
    if (!r) return ctx.ledger.skip(id, plan, see('no 429 to wait out', 'ratelimit.enforced'));
    for (let attempt = 0; attempt < WAIT_TRIES; attempt++) {
      // The window's end, and the client's hold-back of the key (itself bounded by the window length).
      const held = Math.min(ctx.keyStates.get(r.key).blockedUntil, r.ex.localTime + MINUTE_MS + TOLERANCE_MS);
      await waitUntil(ctx, Math.max(refusedWindowEnd(r.key, r.ex), held), {
        who: r.key.label,
        for: `its window to restart (restore [${plan}]: is the quota back?)`,
      });
      const ex = await ctx.send(cheapList(r.key, tag));
      const why = notJudgeable(ex);
      if (why !== null) return ctx.ledger.skip(id, plan, why);
      if (isAccepted(ex)) {
        const [tr, te] = [tripleOf(r.ex), tripleOf(ex)];
        return void ctx.ledger.judge(
          id,
          plan,
          !(sameWindow(tr, te) && te!.remaining === 0),
          () => 'accepted again, but describes the refused window with Remaining 0',
          ex,
        );
      }
      const by = ex.status === 429 ? refusedBy(r.ex, ex) : 'same';
      if (by === 'later') {
        r = { key: r.key, ex };
        continue;
      }
      if (by === 'other') {
        ctx.refusals.push(r.key, ex);
        return ctx.ledger.skip(id, plan, OTHER_WINDOW);
      }
      // Refused after both Retry-After and Reset have passed: a ban is suspected; stop all traffic on the key.
      ctx.keyStates.get(r.key).suspectedBan = true;
      ctx.log(`key ${r.key.label} still refused after its window ended: suspected banned, no more traffic on it`);
      const lead = `still refused (${refusedAs(ex)}) after Retry-After and Reset had passed; key suspected banned`;
      return ctx.ledger.fail(id, plan, afterWait(lead, r.ex, ex), ex);
    }
    if (r.ex.status === 429) ctx.refusals.push(r.key, r.ex);
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
