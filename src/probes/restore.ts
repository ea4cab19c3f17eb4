/**
 * The restore probe: waits out a 429's window (Retry-After and Reset), then sends one request on the key, which must
 * be accepted on a new window (ratelimit.quota-restored). The wait-out loop and what the answer makes of the
 * promise: src/probes/wait-out.ts.
 */
import { heldUntil } from '../backoff/key-state.js';
import { probeTag } from './context.js';
import type { Probe } from './probe.js';
import { refusedAs } from './reasons.js';
import { refusedWindowEnd, WAIT_TRIES } from './refusal.js';
import { waitOut } from './wait-out.js';
import { afterWait } from './waited-out.js';
import { exhaustSpan, sameWindow, tripleOf } from './window.js';

const ID = 'ratelimit.quota-restored';
/** Restore's wait, in words. */
const WAIT = 'after Retry-After and Reset had passed';

export const restoreProbe: Probe = {
  name: 'restore',
  needs: { sends: 'on-time', window: 'refusal', slot: 1, exhaustSpan, waits: WAIT_TRIES, expectsRefusals: true },
  checks: [ID],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const w = await waitOut(ctx, plan, {
      tag: probeTag('restore'),
      for: `its window to restart (restore [${plan}]: is the quota back?)`,
      // The window's end, and the client's hold-back of the key (itself bounded by the window length).
      comeBack: (r) => ({
        at: Math.max(refusedWindowEnd(r.key, r.ex), heldUntil(ctx.keyStates.get(r.key), r.ex.localTime)),
        wait: WAIT,
      }),
    });
    if (w.kind === 'skip') return ctx.ledger.skip(ID, plan, w.reason);
    if (w.kind === 'accepted') {
      const [tr, te] = [tripleOf(w.promise), tripleOf(w.ex)];
      return void ctx.ledger.judge(
        ID,
        plan,
        !(sameWindow(tr, te) && te!.remaining === 0),
        () => 'accepted again, but describes the refused window with Remaining 0',
        w.ex,
      );
    }
    if (w.kind === 'too-soon') {
      // Refused by the window waited out, after both Retry-After and Reset have passed: a ban is suspected; stop
      // all traffic on the key.
      ctx.keyStates.get(w.key).suspectedBan = true;
      ctx.log(`key ${w.key.label} still refused after its window ended: suspected banned, no more traffic on it`);
      const lead = `still refused (${refusedAs(w.ex)}) ${WAIT}; key suspected banned`;
      return ctx.ledger.fail(ID, plan, afterWait(lead, w.promise, w.ex), w.ex);
    }
    ctx.ledger.hold(ID, plan, { kind: 'refused-after-wait', count: 1, first: [{ ex: w.ex, message: w.message }] });
  },
};
