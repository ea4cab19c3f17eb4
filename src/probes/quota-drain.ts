/**
 * The quota-drain probe: requests with unknown keys between two requests on a valid key; the valid key's Remaining
 * must not fall for them (auth.no-quota-drain).
 */
import { randomBytes } from 'node:crypto';
import { retryAfterMs } from '../backoff/key-state.js';
import {
  cheapList,
  isAccepted,
  othersSince,
  type ProbeContext,
  probeTag,
  sendPatiently,
  waitUntil,
} from './context.js';
import type { PlanName } from '../api/plans.js';
import type { RequestSpec } from '../http/exchange.js';
import { sizeFor } from './in-flight.js';
import type { Probe } from './probe.js';
import { FOREIGN, NO_WHOLE_RESPONSE, notJudgeable, refusedAs } from './reasons.js';
import { MINUTE_MS, MINUTE_S } from '../api/plans.js';
import { type Triple, tripleOf, unusableHeaders } from './window.js';
import { withRoomyKey } from './with-key.js';
import { prefixed, type SkipReason } from '../checks/skip-reason.js';

/** Requests with distinct unknown keys the quota-drain probe sends between its two valid ones. */
export const DRAIN_REQUESTS = 50;

/**
 * Whether the two answers count in one stretch of the limiter: the same Limit, under the same Reset, or one moved
 * forward by less than a window (a sliding log's, with each request): a window that ended in between would begin
 * with a Reset at least a window after the first one's, and its count from nothing would hide a drain.
 */
const oneStretch = (a: Triple, b: Triple): boolean =>
  a.limit === b.limit && b.reset >= a.reset - 1 && b.reset < a.reset + MINUTE_S - 1;

const unknownKey = (tag: string): RequestSpec => ({
  operation: 'listPets',
  method: 'GET',
  path: '/pets?limit=1',
  auth: { kind: 'raw', header: `Bearer pl-invalid-${randomBytes(8).toString('hex')}`, label: 'unknown key' },
  tag,
});

/**
 * DRAIN_REQUESTS requests with distinct unknown keys, as many at once as the round trip asks for (one on loopback,
 * up to 8 across a long link: in-flight.ts). Invalid keys may be limited per client address: their 429s are
 * honoured too (no request goes out before the Retry-After of one that came back), bounded in count. Returns how
 * many were answered otherwise than 429.
 */
async function drain(ctx: ProbeContext, plan: PlanName | null, tag: string): Promise<number> {
  const { keyless } = sizeFor(ctx.roundTripMs?.() ?? 0);
  let sent = 0;
  let claimed = 0;
  let tries = 0;
  let holdUntil = Number.NEGATIVE_INFINITY;
  const worker = async () => {
    while (claimed < DRAIN_REQUESTS && tries < DRAIN_REQUESTS * 3 && !ctx.signal.aborted) {
      if (ctx.clock.now() < holdUntil) {
        await waitUntil(ctx, holdUntil);
        continue;
      }
      claimed++;
      tries++;
      const ex = await ctx.send(unknownKey(tag));
      if (ex.status !== 429) {
        sent++;
        continue;
      }
      claimed--;
      const until = ex.localTime + Math.min(retryAfterMs(ex) ?? MINUTE_MS, MINUTE_MS);
      if (until > holdUntil) {
        // Said once: the other 429s of the requests that were out with it only move the end a little.
        const told = ctx.clock.now() < holdUntil;
        holdUntil = until;
        const reason = {
          who: 'requests without a key',
          for: `the client address's window to restart (quota-drain [${plan}])`,
        };
        await waitUntil(ctx, until, told ? undefined : reason);
      }
    }
  };
  await Promise.all(Array.from({ length: keyless }, worker));
  return sent;
}

export const quotaDrainProbe: Probe = {
  name: 'quota-drain',
  needs: { sends: 'alone', window: 'headroom', slot: 2, requests: 2, unkeyed: DRAIN_REQUESTS },
  checks: ['auth.no-quota-drain'],
  perPlan: true,
  async run(ctx, plan) {
    await withRoomyKey(ctx, this.checks, plan, async (fk, plan) => {
      const id = 'auth.no-quota-drain';
      const tag = probeTag('quota-drain');
      let why2: SkipReason = '';
      for (let attempt = 0; attempt < 2; attempt++) {
        const others = othersSince(ctx);
        const first = await sendPatiently(ctx, cheapList(fk.key, tag));
        const sent = await drain(ctx, plan, tag);
        const last = await ctx.send(cheapList(fk.key, tag));
        const why = notJudgeable(last) ?? (first.error !== null ? NO_WHOLE_RESPONSE : null);
        if (why !== null) return ctx.ledger.skip(id, plan, why);
        const [t1, t2] = [tripleOf(first), tripleOf(last)];
        if (!isAccepted(last) && isAccepted(first)) {
          return ctx.ledger.fail(
            id,
            plan,
            `after ${sent} requests with invalid keys, the valid key is refused (${refusedAs(last)})`,
            last,
          );
        }
        if (!t1 || !t2) return ctx.ledger.skip(id, plan, unusableHeaders('no usable X-RateLimit-* headers'));
        if (!oneStretch(t1, t2)) {
          why2 = 'the window changed during the sequence twice; not judged';
          if (attempt === 0) ctx.again(`quota-drain [${plan}]: the window changed during the sequence; measured again`);
          continue; // the window ended in between: try once more
        }
        // A fall no larger than what other probes had out meanwhile (requests that must go out on time) may be
        // theirs: whether other keys' requests count against this key is key-isolation's to judge. Measured again.
        const fall = t1.remaining - 1 - t2.remaining;
        const overlapping = others();
        if (fall > 0 && fall <= overlapping) {
          why2 = prefixed(
            `Remaining went ${t1.remaining} → ${t2.remaining} while other probes had ${overlapping} requests out, twice: `,
            FOREIGN,
          );
          if (attempt === 0)
            ctx.again(`quota-drain [${plan}]: Remaining fell while other probes had requests out; measured again`);
          continue;
        }
        // Only a fall below what the valid key's own request explains is a drain; a rise is refill (a bucket's or a
        // sliding window's), never a drain.
        return void ctx.ledger.judge(
          id,
          plan,
          fall <= 0,
          () =>
            `Remaining went ${t1.remaining} → ${t2.remaining} across ${sent} invalid-key requests (expected at least ${t1.remaining - 1})`,
          last,
        );
      }
      ctx.ledger.skip(id, plan, why2);
    });
  },
};
