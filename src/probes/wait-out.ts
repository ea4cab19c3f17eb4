/**
 * The one wait-out loop of the probes that wait a 429 out and judge the request sent after it (retry-after-honest,
 * restore): a 429 to work with, the wait the probe reads in it, one request, and what the answer says of the promise.
 *
 * - Accepted: the promise was kept.
 * - Refused by the window waited out (`refusedBy` 'same'): the wait the 429 asked for was not enough.
 * - Refused by another Limit's window (the day's): not the promise waited out; not judged.
 * - Refused by a window that began after the one waited out ('later'): a broken promise when the key was quiet inside
 *   the wait (petload sent nothing else on it), petload's own requests since are under the window's limit, and the
 *   target's own clock (its Date) says Retry-After and Reset had passed. "Another client spent the new window" is
 *   a reading that needs evidence: the probe waits the refusal out once more, and only an accepted answer whose
 *   Remaining is lower than petload's own requests since explain gives it. Without that, the promise is broken.
 *   Where petload's own requests may have spent the new window, the refusal is waited out again, as a new promise.
 */
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { see, prefixed, type SkipReason } from '../checks/skip-reason.js';
import type { Exchange } from '../http/exchange.js';
import { dateOf } from '../http/parsed.js';
import { latestLocal, retryAfterMs, TOLERANCE_MS } from '../http/server-time.js';
import { cheapList, isAccepted, type LeftRefusal, type ProbeContext, waitUntil } from './context.js';
import { FOREIGN, notJudgeable, refusedAs } from './reasons.js';
import { OTHER_WINDOW, refusalFor, refusedBy, WAIT_TRIES } from './refusal.js';
import { afterWait } from './waited-out.js';
import { tripleOf } from './window.js';

/** When a probe comes back after a 429, and its wait in words for the evidence (`after waiting Retry-After (60 s) + 250 ms`). */
export interface ComeBack {
  /** Run-clock time the request goes out at. */
  readonly at: number;
  readonly wait: string;
}

/** How a probe waits a 429 out. */
export interface WaitOutPlan {
  readonly tag: string;
  /** The wait the 429 `r` asks for, as the probe reads its promise; or why there is none to judge. */
  comeBack(r: LeftRefusal): ComeBack | { readonly skip: SkipReason };
  /** What the wait is for, in the progress line. */
  readonly for: string;
}

export type WaitedOut =
  /** Nothing to judge: no 429 to wait out, an answer that did not arrive whole, another window, no wait to read. */
  | { readonly kind: 'skip'; readonly reason: SkipReason }
  /** Accepted after the wait the 429 `promise` asked for. */
  | { readonly kind: 'accepted'; readonly promise: Exchange; readonly ex: Exchange }
  /** Refused by the very window waited out: the wait it asked for (`wait`) was not enough. */
  | {
      readonly kind: 'too-soon';
      readonly key: ApiKey;
      readonly promise: Exchange;
      readonly ex: Exchange;
      readonly wait: string;
    }
  /** Refused after the promised wait with nothing of petload's to explain it; `message` holds the evidence. */
  | { readonly kind: 'broken'; readonly message: string; readonly ex: Exchange };

/** A refusal after the promised wait that petload's own requests do not explain, kept while evidence is sought. */
interface Broken {
  readonly promise: Exchange;
  readonly ex: Exchange;
  readonly wait: string;
  /** The key's requests sent before the wait began (KeyState.sent). */
  readonly sentBefore: number;
}

/** What a probe of a plan's key sees of it: petload's requests on it so far (every probe's and the load's). */
const sentOn = (ctx: ProbeContext, r: LeftRefusal): number => ctx.keyStates.get(r.key).sent;

/**
 * Whether Retry-After and Reset of `promise` had passed when `again` was answered, on the target's own timeline:
 * its Date on both answers (a second of tolerance for its rounding), else the local clock. A target whose Date
 * says the wait had not passed yet (a clock that runs slow, instances whose clocks differ) is not held to it.
 */
export function promisePassed(promise: Exchange, again: Exchange): boolean {
  const [d0, d1] = [dateOf(promise), dateOf(again)];
  const onServer = d0 !== null && d1 !== null;
  const elapsed = onServer ? d1 - d0 : again.localTime - promise.localTime;
  // A wait is bounded by the window length (a Retry-After beyond it is retry-after.plausible's to judge).
  const asked = retryAfterMs(promise);
  if (asked !== null && elapsed < Math.min(asked, MINUTE_MS) - TOLERANCE_MS) return false;
  const t = tripleOf(promise);
  if (t === null) return true;
  const reset = t.reset * 1000;
  return onServer ? d1 >= reset - TOLERANCE_MS : again.localTime >= latestLocal(promise, reset) - TOLERANCE_MS;
}

/** Wait the refusal out and send one request: the answer, or why it cannot be judged. */
async function comeBack(ctx: ProbeContext, w: WaitOutPlan, r: LeftRefusal, back: ComeBack) {
  const sentBefore = sentOn(ctx, r);
  await waitUntil(ctx, back.at, { who: r.key.label, for: w.for });
  const inside = sentOn(ctx, r) - sentBefore;
  const ex = await ctx.send(cheapList(r.key, w.tag));
  return { ex, inside, sentBefore };
}

/** Wait a 429 out (WAIT_TRIES times at most) and say what the answer after the wait makes of the promise. */
export async function waitOut(ctx: ProbeContext, plan: PlanName, w: WaitOutPlan): Promise<WaitedOut> {
  let r = await refusalFor(ctx, plan, w.tag);
  if (!r) return { kind: 'skip', reason: see('no 429 to wait out', 'ratelimit.enforced') };
  let broken: Broken | null = null;
  for (let attempt = 0; attempt < WAIT_TRIES; attempt++) {
    const back = w.comeBack(r);
    if ('skip' in back) return broken ? brokenOutcome(ctx, r, broken, null) : { kind: 'skip', reason: back.skip };
    const { ex, inside, sentBefore } = await comeBack(ctx, w, r, back);
    if (broken) return brokenOutcome(ctx, r, broken, ex);
    const why = notJudgeable(ex);
    if (why !== null) return { kind: 'skip', reason: why };
    if (isAccepted(ex)) return { kind: 'accepted', promise: r.ex, ex };
    const by = ex.status === 429 ? refusedBy(r.ex, ex) : 'same';
    if (by === 'same') return { kind: 'too-soon', key: r.key, promise: r.ex, ex, wait: back.wait };
    if (by === 'other') {
      ctx.refusals.push(r.key, ex);
      return { kind: 'skip', reason: OTHER_WINDOW };
    }
    // A window that began after the wait refused the key's request. Petload's own requests since the wait began
    // (this one included) may have spent it; else the promise is broken, unless another client is seen.
    if (inside === 0 && promisePassed(r.ex, ex)) broken = { promise: r.ex, ex, wait: back.wait, sentBefore };
    r = { key: r.key, ex };
  }
  if (broken) return brokenOutcome(ctx, r, broken, null);
  ctx.refusals.push(r.key, r.ex);
  return {
    kind: 'skip',
    reason: prefixed(
      "refused each time in a window that began after the wait, with petload's own requests on the key inside the wait, or after a wait the target's clock did not see pass; or ",
      FOREIGN,
    ),
  };
}

/**
 * A broken promise, and the answer to the request sent after waiting its refusal out (`next`; null: none was sent):
 * an accepted answer with a Remaining lower than petload's own requests since the first wait began explain is
 * evidence of another client (the old reading, a skip); anything else leaves the promise broken.
 */
function brokenOutcome(ctx: ProbeContext, r: LeftRefusal, b: Broken, next: Exchange | null): WaitedOut {
  const own = sentOn(ctx, r) - b.sentBefore;
  const t = next !== null && isAccepted(next) ? tripleOf(next) : null;
  if (t !== null && t.remaining < t.limit - own)
    return {
      kind: 'skip',
      reason: prefixed(
        `refused after the wait by a window that began after it, and the next window's answer shows Remaining ${t.remaining} of ${t.limit}, where petload's ${own} requests on the key since explain ${t.limit - own}: another client is using the key, or `,
        FOREIGN,
      ),
    };
  if (next?.status === 429) ctx.refusals.push(r.key, next);
  else if (next === null && r.ex.status === 429) ctx.refusals.push(r.key, r.ex);
  const then = next === null ? '' : `; after one more wait: ${refusedAs(next)}${remainingOf(next)}`;
  const lead = `refused (${refusedAs(b.ex)}) ${b.wait}, as the key's first request in the window after it`;
  return { kind: 'broken', message: afterWait(lead, b.promise, b.ex) + then, ex: b.ex };
}

const remainingOf = (ex: Exchange): string => {
  const t = tripleOf(ex);
  return t === null ? '' : ` (Remaining ${t.remaining} of ${t.limit})`;
};
