/**
 * Rate-limit probes: each starts on a fresh window (an unused key, or after the key's window has ended),
 * waits only as long as the target says (Reset, Retry-After), bounded by the window length, and never sends
 * on a key while a Retry-After it received is running.
 */
import { randomBytes } from 'node:crypto';
import { MINUTE_S, type PlanName } from '../api/plans.js';
import type { CheckId } from '../checks/catalogue.js';
import type { ApiKey } from '../core/api-key.js';
import { isRateLimitRefusal } from '../checks/passive/contract.js';
import { retryAfterForProbe } from '../checks/passive/retry-after.js';
import { retryAfterMs, serverOffset, serverTimeOf, TOLERANCE_MS } from '../backoff/key-state.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import {
  cheapList,
  freshKey,
  roomyKey,
  isAccepted,
  othersSince,
  keysOf,
  keySpec,
  probeTag,
  sendPatiently,
  skipAll,
  waitUntil,
  type FreshKey,
  type ProbeContext,
} from './context.js';
import type { Probe } from './probe.js';
import {
  announcedMinuteLimit,
  exhaust,
  exhaustSpan,
  HEADER_CHECKS,
  minuteCapacity,
  minuteQuota,
  restartedAfterAMinute,
  sameWindow,
  tripleOf,
  type Exhaustion,
} from './window.js';

const WINDOW_MS = MINUTE_S * 1000;

async function withFreshKey(
  ctx: ProbeContext,
  checks: readonly CheckId[],
  plan: PlanName | null,
  body: (fk: FreshKey, plan: PlanName) => Promise<void>,
  pick = freshKey,
) {
  if (plan === null) return;
  const fk = await pick(ctx, plan);
  if (!fk) return skipAll(ctx, checks, plan, `no usable ${plan} key`);
  await body(fk, plan);
}

/** For probes that need room in a window, not a fresh one: the key the schedule gave them, as it is. */
const withRoomyKey = (
  ctx: ProbeContext,
  checks: readonly CheckId[],
  plan: PlanName | null,
  body: (fk: FreshKey, plan: PlanName) => Promise<void>,
) => withFreshKey(ctx, checks, plan, body, roomyKey);

/** Describe a refusal status for messages. */
const refusedAs = (ex: Exchange): string =>
  ex.status === null ? `no response (${ex.error?.kind ?? 'error'})` : `${ex.status}`;

/** A run that spanned two windows says nothing about one: try again on another fresh key, this many times. */
const ROLLOVER_TRIES = 2;

const NO_WHOLE_RESPONSE =
  'a request got no whole response, so what the target counted is unknown (see contract.transport)';
/** Requests of other keys, or without a valid key, counted against the key: what those checks judge. */
const FOREIGN =
  'requests with other keys or without a valid key may have been counted against this key (see ratelimit.key-isolation, auth.no-quota-drain)';

export const enforceProbe: Probe = {
  name: 'enforce',
  needs: { sends: 'alone', window: 'fresh', slot: 0, requests: (q) => q + 1, span: exhaustSpan, spareKey: true },
  checks: ['ratelimit.enforced', 'ratelimit.remaining-decrements'],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    // "Sequential requests": when requests sent 8 at a time are over-admitted, that may be a counter that misses
    // concurrent requests (ratelimit.no-over-admission's defect); the count is then taken strictly one at a time.
    let sequential = false;
    let rollovers = 0;
    while (rollovers < ROLLOVER_TRIES) {
      const fk = await freshKey(ctx, plan);
      if (!fk) return skipAll(ctx, this.checks, plan, `no usable ${plan} key`);
      const outcome = await enforceOnce(ctx, plan, fk, sequential);
      if (outcome === 'judged') return;
      if (outcome === 'over-admitted-concurrently' && !sequential) sequential = true;
      else rollovers++;
    }
    ctx.ledger.skip(
      'ratelimit.enforced',
      plan,
      sequential
        ? 'requests sent together were over-admitted (see ratelimit.no-over-admission), and strictly sequential requests could not reach the limit within one window, twice'
        : "the limiter restarted (a new window, or as much left as at the start) or a minute passed before the limit was reached, twice: the requests reached the target too slowly to spend a minute's quota within a minute",
    );
  },
};

/**
 * When the minute window `first` opened was already in use (Remaining below Limit-1 on an accepted answer), the
 * local time by which it has ended (bounded by the window length); null when it was fresh or cannot be told.
 */
function windowInUseUntil(ctx: ProbeContext, first: Exchange, key: ApiKey, fresh: boolean): number | null {
  if (first.status === 429) {
    // Refused at once: the window was used up by requests the key did not send. Wait it out (and the hold-back).
    const held = Math.min(ctx.keyStates.get(key).blockedUntil, first.localTime + WINDOW_MS + TOLERANCE_MS);
    return Math.max(refusedWindowEnd(key, first), held);
  }
  const t = tripleOf(first);
  if (!isAccepted(first) || t === null || t.remaining >= t.limit - 1) return null;
  if (t.limit !== key.limits.perMinute && announcedMinuteLimit(first, key, fresh) === null) return null;
  return Math.min(t.reset * 1000 + serverOffset(first), first.localTime + WINDOW_MS) + TOLERANCE_MS;
}

/** One decrement-to-Limit+1 sequence. */
async function enforceOnce(
  ctx: ProbeContext,
  plan: PlanName,
  fk: FreshKey,
  sequential: boolean,
): Promise<'judged' | 'rolled-over' | 'over-admitted-concurrently'> {
  const { key } = fk;
  const tag = probeTag('enforce');
  const dec = 'ratelimit.remaining-decrements';
  const others = othersSince(ctx);
  let first = await ctx.send(cheapList(key, tag));
  let fresh = fk.how === 'unused';
  // A fresh window must start fresh: an unused key whose window is already in use had requests counted against it
  // that it did not send (other keys', keyless ones: see key-isolation, no-quota-drain). Wait for that window's end.
  let inUse = false;
  const until = first.error === null ? windowInUseUntil(ctx, first, key, fresh) : null;
  if (until !== null) {
    ctx.log(
      `enforce [${plan}]: ${key.label}'s window was already open and partly spent (another client is using the key, or requests of others were counted against it); again on a fresh window`,
    );
    await waitUntil(ctx, until);
    first = await ctx.send(cheapList(key, tag));
    fresh = true; // the window it opens is fresh, unless something else is counted against the key meanwhile
    inUse = first.error === null && windowInUseUntil(ctx, first, key, true) !== null;
    if (inUse && first.status === 429) {
      ctx.refusals.push(key, first);
      skipAll(
        ctx,
        ['ratelimit.enforced', dec],
        plan,
        `the first request of a fresh window was refused, again after that window ended: ${FOREIGN}`,
      );
      return 'judged';
    }
  }
  const t0 = tripleOf(first);
  const quota = minuteCapacity(first, key, fresh);
  const run = await exhaust(ctx, key, tag, quota, {
    first,
    ...(sequential ? { parallel: 1, stopOnRollover: true } : {}),
  });
  // With headers on the day window, a key with less than a minute's quota left for the day is refused sooner.
  const expected = !fresh && t0 !== null && t0.limit === key.limits.perDay ? Math.min(quota, t0.remaining + 1) : quota;
  const r = run.refusal;
  // The 429 is left for the probes that wait one out, unless the refill follow-up below sends on the key after it.
  let followUp = false;
  try {
    return await judgeEnforce();
  } finally {
    if (!followUp && r?.status === 429) ctx.refusals.push(key, r);
  }

  async function judgeEnforce(): Promise<'judged' | 'rolled-over' | 'over-admitted-concurrently'> {
    // Spanning two windows, too many accepted, or stopped at the rollover: the count says nothing of one window.
    if (run.rolledOver && (run.accepted > expected || r === null)) return 'rolled-over';
    if (run.lost !== null) {
      skipAll(ctx, ['ratelimit.enforced', dec], plan, NO_WHOLE_RESPONSE);
      return 'judged';
    }
    if (run.accepted > expected && run.concurrent && !sequential) return 'over-admitted-concurrently';
    // "A key's first request in a fresh window shows Limit-1": judgeable when every window is fresh (unused key, or
    // a window waited out) or when the headers describe the minute window whose end we waited for.
    if (!isAccepted(first)) {
      ctx.ledger.skip(dec, plan, 'first request of the window was refused (see ratelimit.enforced)');
    } else if (t0 === null) {
      ctx.ledger.skip(dec, plan, `first response has no usable X-RateLimit-* (${HEADER_CHECKS})`);
    } else if (inUse) {
      ctx.ledger.skip(
        dec,
        plan,
        `the window was already in use when the probe started, and again after it ended: ${FOREIGN}`,
      );
    } else if (fresh || t0.limit === key.limits.perMinute) {
      ctx.ledger.judge(
        dec,
        plan,
        t0.remaining === t0.limit - 1,
        () =>
          `first request in a fresh window shows Remaining ${t0.remaining} with Limit ${t0.limit} (expected ${t0.limit - 1})`,
        run.first,
      );
    }
    if (quota !== minuteQuota(key))
      ctx.ledger.info(
        'ratelimit.enforced',
        plan,
        'limit',
        `counted against the Limit the target announces (${quota}), not the plan's figure (see ratelimit.limit-matches-plan)`,
      );
    const within = `within ${(run.spanMs / 1000).toFixed(1)} s of the first (target clock)`;
    if (r === null) {
      ctx.ledger.fail(
        'ratelimit.enforced',
        plan,
        `${run.accepted} requests accepted ${within}; the limit is ${expected} a minute: request ${expected + 1} was not refused`,
        run.first,
      );
    } else if (run.accepted > expected) {
      ctx.ledger.fail(
        'ratelimit.enforced',
        plan,
        `${run.accepted} requests accepted ${within} before the first refusal (${refusedAs(r)}); the limit is ${expected} a minute`,
        r,
      );
    } else if (run.accepted < expected && expected - run.accepted <= others()) {
      // Refused early, by no more requests than other probes sent meanwhile (a probe whose one request must go out on
      // time): whether those count against this key is key-isolation's or no-quota-drain's to judge.
      ctx.ledger.skip(
        'ratelimit.enforced',
        plan,
        `refused after ${run.accepted} of ${expected} accepted requests, while other probes sent requests: ${FOREIGN}`,
      );
    } else if (run.accepted !== expected) {
      ctx.ledger.fail(
        'ratelimit.enforced',
        plan,
        `refused (${refusedAs(r)}) after ${run.accepted} accepted requests; the limit is ${expected}`,
        r,
      );
    } else if (
      ctx.ledger.judge(
        'ratelimit.enforced',
        plan,
        r.status === 429,
        () => `request ${expected + 1} answered ${refusedAs(r)} instead of 429`,
        r,
      )
    ) {
      followUp = await refillFollowUp(ctx, plan, key, tag, run, expected);
    }
    return 'judged';
  }
}

/** A Retry-After this short after a refusal is waited out inside the minute: it is how a refill shows. */
const FOLLOW_UP_MAX_MS = 10_000;
/** How far inside the minute from the first accepted request the follow-up must land to count in it. */
const FOLLOW_UP_MARGIN_MS = 2 * TOLERANCE_MS;

/**
 * After the limit's worth was accepted and request Limit+1 refused: when the refusal asks for a short wait that ends
 * well inside the minute from the first accepted request, wait it out and send one request. A limiter that keeps the
 * promise refuses it, or has restarted (as much left as at the start: a window that began after the refused one);
 * one that refills (a token bucket, GCRA) accepts it, and that is Limit+1 accepted within a minute.
 */
/** Whether it sent the follow-up (the refusal it followed is then stale; a new one is left in its place). */
async function refillFollowUp(
  ctx: ProbeContext,
  plan: PlanName,
  key: ApiKey,
  tag: string,
  run: Exhaustion,
  expected: number,
): Promise<boolean> {
  const r = run.refusal!;
  const wait = retryAfterMs(r);
  const minuteEnds = serverTimeOf(run.first) + WINDOW_MS - FOLLOW_UP_MARGIN_MS;
  if (wait === null || wait > FOLLOW_UP_MAX_MS || serverTimeOf(r) + wait + 250 >= minuteEnds) return false;
  await waitUntil(ctx, r.localTime + wait + 250);
  const ex = await ctx.send(cheapList(key, tag));
  if (!isAccepted(ex)) {
    if (ex.status === 429) ctx.refusals.push(key, ex);
    return true;
  }
  const spanMs = serverTimeOf(ex) - serverTimeOf(run.first);
  if (restartedAfterAMinute(tripleOf(run.first), tripleOf(ex)) || spanMs >= WINDOW_MS - TOLERANCE_MS) return true;
  ctx.ledger.fail(
    'ratelimit.enforced',
    plan,
    `${expected + 1} requests accepted within ${(spanMs / 1000).toFixed(1)} s of the first (target clock); the limit is ${expected} a minute: after the 429, the request sent once its Retry-After (${wait / 1000} s) had passed was accepted (the limiter refills within the minute; see ratelimit.algorithm)`,
    ex,
  );
  return true;
}

/** A 429 to work with: one left by an earlier probe, or a fresh key exhausted now. */
async function refusalFor(
  ctx: ProbeContext,
  plan: PlanName,
  tag: string,
): Promise<{ key: ApiKey; ex: Exchange } | null> {
  const left = ctx.refusals.pop(plan);
  if (left) return left;
  const fk = await freshKey(ctx, plan);
  if (!fk) return null;
  const run = await exhaust(ctx, fk.key, tag, (first) => minuteCapacity(first, fk.key, fk.how === 'unused'));
  return run.refusal?.status === 429 ? { key: fk.key, ex: run.refusal } : null;
}

/** When the refused window has certainly ended: Retry-After and (when it is usable for the minute window) Reset. */
function refusedWindowEnd(key: ApiKey, ex: Exchange): number {
  const wait = retryAfterMs(ex);
  let end = ex.localTime + Math.min(wait ?? WINDOW_MS, WINDOW_MS);
  const t = tripleOf(ex);
  if (t && (t.limit === key.limits.perMinute || announcedMinuteLimit(ex, key, false) !== null)) {
    const reset = t.reset * 1000 + serverOffset(ex);
    if (reset >= ex.localTime - TOLERANCE_MS && reset <= ex.localTime + WINDOW_MS + TOLERANCE_MS)
      end = Math.max(end, reset);
  }
  return Math.min(end, ex.localTime + WINDOW_MS) + TOLERANCE_MS;
}

/**
 * Which window refused a request sent after waiting out a refusal:
 * - 'same': the window waited out (or it cannot be told): the wait was too short;
 * - 'later': a window of the same Limit that began after the waited one had ended: the wait was long enough, and the
 *   new window was used up before the key's request by requests the key did not send; waited out again;
 * - 'other': a window of another Limit (the day's, when the minute's was waited out): not the window waited out, so
 *   the wait is not judged by it.
 */
function refusedBy(first: Exchange, again: Exchange): 'same' | 'later' | 'other' {
  const [a, b] = [tripleOf(first), tripleOf(again)];
  if (a === null || b === null) return 'same';
  if (a.limit !== b.limit) return 'other';
  return b.reset >= a.reset + MINUTE_S - 1 ? 'later' : 'same';
}

const OTHER_WINDOW = 'refused by another window (another Limit) than the one waited out, so the wait is not judged';

/** What keeps a probe from judging the answer to the one request it sent after a wait, or null. */
function notJudgeable(ex: Exchange): string | null {
  if (ex.error?.kind === 'aborted') return `not sent: ${ex.error.message}`;
  if (ex.error !== null) return 'no whole response (see contract.transport)';
  return null;
}

/** How many refusals a wait-then-request probe waits out: the first, and one in a later window. */
const WAIT_TRIES = 2;

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
    if (!r) return ctx.ledger.skip(id, plan, 'no 429 to wait out (see ratelimit.enforced)');
    for (let attempt = 0; attempt < WAIT_TRIES; attempt++) {
      const asked = retryAfterForProbe(r.ex, r.key.limits);
      if (!asked.ok) return ctx.ledger.skip(id, plan, `the 429 gives no wait to judge: ${asked.reason}`);
      const wait = asked.waitMs;
      // Exactly the given time plus 250 ms; bounded by the window length.
      await waitUntil(ctx, r.ex.localTime + Math.min(wait, WINDOW_MS) + 250);
      const ex = await ctx.send(cheapList(r.key, tag));
      const why = notJudgeable(ex);
      if (why !== null) return ctx.ledger.skip(id, plan, why);
      if (isAccepted(ex)) return ctx.ledger.pass(id, plan);
      const by = ex.status === 429 ? refusedBy(r.ex, ex) : 'same';
      if (by !== 'later') {
        if (ex.status === 429) ctx.refusals.push(r.key, ex);
        if (by === 'other') return ctx.ledger.skip(id, plan, OTHER_WINDOW);
        return ctx.ledger.fail(
          id,
          plan,
          `refused again (${refusedAs(ex)}) after waiting Retry-After (${wait / 1000} s) + 250 ms`,
          ex,
        );
      }
      r = { key: r.key, ex };
    }
    ctx.refusals.push(r.key, r.ex);
    ctx.ledger.skip(
      id,
      plan,
      `refused each time in a window that began after the wait: the key's next window was already spent (another client is using the key), or ${FOREIGN}`,
    );
  },
};

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
    if (!r) return ctx.ledger.skip(id, plan, 'no 429 to wait out (see ratelimit.enforced)');
    for (let attempt = 0; attempt < WAIT_TRIES; attempt++) {
      // The window's end, and the client's hold-back of the key (itself bounded by the window length).
      const held = Math.min(ctx.keyStates.get(r.key).blockedUntil, r.ex.localTime + WINDOW_MS + TOLERANCE_MS);
      await waitUntil(ctx, Math.max(refusedWindowEnd(r.key, r.ex), held));
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
      return ctx.ledger.fail(
        id,
        plan,
        `still refused (${refusedAs(ex)}) after Retry-After and Reset had passed; key suspected banned`,
        ex,
      );
    }
    if (r.ex.status === 429) ctx.refusals.push(r.key, r.ex);
    ctx.ledger.skip(
      id,
      plan,
      `refused each time in a window that began after the wait: the key's next window was already spent (another client is using the key), or ${FOREIGN}`,
    );
  },
};

/** K in Limit+K: enough to see over-admission, few enough that the refused requests are not "knocking". */
/** How many requests beyond the limit the burst probe sends at once. */
export const BURST_EXTRA = 5;

interface Burst {
  key: ApiKey;
  limit: number;
  results: Exchange[];
  accepted: Exchange[];
}

async function burstOnce(ctx: ProbeContext, key: ApiKey, limit: number, tag: string): Promise<Burst> {
  const results = await ctx.sendSimultaneous(Array.from({ length: limit + BURST_EXTRA }, () => cheapList(key, tag)));
  const refused = results.filter((e) => e.status === 429).sort((a, b) => b.localTime - a.localTime);
  if (refused[0]) ctx.refusals.push(key, refused[0]);
  return { key, limit, results, accepted: results.filter(isAccepted) };
}

/**
 * Whether the target refuses sequential requests beyond its limit: the precondition of judging a burst's
 * over-admission (a target that does not enforce its limit at all is ratelimit.enforced's failure). A refusal in
 * the burst shows it; else one or two requests after it: a refusal shows it, an acceptance with Remaining above 0
 * shows a counter that missed the concurrent requests (a concurrency defect), two acceptances with nothing left show
 * no enforcement.
 */
async function enforcesAfter(
  ctx: ProbeContext,
  b: Burst,
  tag: string,
): Promise<{ enforces: true; note: string } | { enforces: false; reason: string }> {
  if (b.results.some(isRateLimitRefusal)) return { enforces: true, note: '' };
  const last = [...b.accepted].sort((x, y) => x.timing.done - y.timing.done).at(-1);
  const window = last === undefined ? null : tripleOf(last);
  for (let i = 0; i < 2; i++) {
    const ex = await ctx.send(cheapList(b.key, tag));
    if (ex.error !== null)
      return { enforces: false, reason: `the request after the burst got no whole response (see contract.transport)` };
    if (isRateLimitRefusal(ex)) return { enforces: true, note: '; a request sent afterwards was refused' };
    const t = tripleOf(ex);
    if (window !== null && t !== null && !sameWindow(window, t)) {
      return {
        enforces: false,
        reason:
          'the window ended before a request after the burst could show whether the target enforces its limit; not judged',
      };
    }
    if (isAccepted(ex) && t !== null && t.remaining > 0) {
      return {
        enforces: true,
        note: `; a request sent afterwards was accepted with Remaining ${t.remaining}: the counter missed requests of the burst`,
      };
    }
  }
  return {
    enforces: false,
    reason:
      'the target accepts sequential requests beyond its limit, so a burst cannot show over-admission (see ratelimit.enforced)',
  };
}

export const burstProbe: Probe = {
  name: 'burst',
  // Limit+K requests over four connections' worth of time.
  needs: {
    sends: 'alone',
    window: 'fresh',
    slot: 1,
    requests: (q) => q + BURST_EXTRA,
    span: (q) => (q + BURST_EXTRA) / 4,
  },
  checks: ['ratelimit.no-over-admission'],
  perPlan: true,
  async run(ctx, plan) {
    await withFreshKey(ctx, this.checks, plan, async (fk, plan) => {
      const id = 'ratelimit.no-over-admission';
      const tag = probeTag('burst');
      let b = await burstOnce(ctx, fk.key, minuteQuota(fk.key), tag);
      if (b.accepted.length > b.limit) {
        // A target that announces another Limit for the minute (limit-matches-plan's defect) is judged by what it
        // announces: burst again, on another fresh key, with that Limit.
        const announced = Math.max(
          0,
          ...b.accepted.map((e) => announcedMinuteLimit(e, fk.key, fk.how === 'unused') ?? 0),
        );
        const limit = Math.min(announced, fk.key.limits.perDay);
        if (limit > b.limit) {
          const again = await freshKey(ctx, plan);
          if (!again)
            return ctx.ledger.skip(
              id,
              plan,
              `the target announces Limit ${announced} (see ratelimit.limit-matches-plan), and no fresh ${plan} key is left to burst with it`,
            );
          ctx.ledger.info(
            id,
            plan,
            'limit',
            `judged against the Limit the target announces (${limit}), not the plan's figure (see ratelimit.limit-matches-plan)`,
          );
          b = await burstOnce(ctx, again.key, limit, tag);
        }
      }
      const { limit, results, accepted } = b;
      const n = results.length;
      const triples = accepted.map(tripleOf);
      const evidence = accepted[accepted.length - 1] ?? results[0];
      if (accepted.length > limit) {
        // Over the limit in total: judge each window the responses describe, since a burst may straddle two.
        const perWindow = new Map<string, number>();
        for (const t of triples)
          if (t) perWindow.set(`${t.limit}/${t.reset}`, (perWindow.get(`${t.limit}/${t.reset}`) ?? 0) + 1);
        const worst = Math.max(0, ...perWindow.values());
        const span = Math.max(...results.map((e) => e.timing.done)) - Math.min(...results.map((e) => e.timing.sent));
        const resets = triples.flatMap((t) => (t ? [t.reset] : []));
        const spread = resets.length === 0 ? 0 : Math.max(...resets) - Math.min(...resets);
        if (perWindow.size > 1 && spread > 1 && spread < MINUTE_S - 1) {
          // Resets a few seconds apart are no two windows: a Reset that moves with the requests (a bucket's "full
          // again"), whose refill during the burst was admitted too. That over-admission is enforced's to judge.
          return ctx.ledger.skip(
            id,
            plan,
            `${accepted.length} of ${n} accepted while the burst lasted ${(span / ctx.clock.scale / 1000).toFixed(1)} s, under Resets that moved with the requests: a limiter that refills admits its refill too (see ratelimit.algorithm); that over-admission is ratelimit.enforced's`,
          );
        }
        if (perWindow.size > 1 && worst <= limit) {
          ctx.ledger.pass(id, plan);
          return ctx.ledger.info(id, plan, 'note', 'the burst straddled two windows; each admitted at most the limit');
        }
        if (perWindow.size <= 1 && span >= WINDOW_MS - TOLERANCE_MS) {
          const slower =
            ctx.clock.scale > 1
              ? ` (the clock runs ${ctx.clock.scale} times faster than real time: a smaller --time-scale leaves more real time in each window)`
              : '';
          return ctx.ledger.skip(id, plan, `the burst lasted a whole window; not judged${slower}`);
        }
        const pre = await enforcesAfter(ctx, b, tag);
        if (!pre.enforces) return ctx.ledger.skip(id, plan, pre.reason);
        return ctx.ledger.fail(
          id,
          plan,
          `${accepted.length} of ${n} simultaneous requests accepted; the limit is ${limit}${pre.note}`,
          evidence,
        );
      }
      ctx.ledger.pass(id, plan);
      // Repeated Remaining values among the accepted answers (within one window) are a fact, not a failure: a server
      // may read Remaining after several increments have landed.
      const seen = new Map<string, number>();
      for (const t of triples)
        if (t)
          seen.set(`${t.limit}/${t.reset}/${t.remaining}`, (seen.get(`${t.limit}/${t.reset}/${t.remaining}`) ?? 0) + 1);
      const repeated = [...seen.values()].filter((c) => c > 1).reduce((a, c) => a + c, 0);
      ctx.ledger.info(
        id,
        plan,
        'repeatedRemaining',
        repeated === 0
          ? 'every accepted answer showed its own Remaining'
          : `${repeated} accepted answers shared a Remaining value with another`,
      );
    });
  },
};

export const keyIsolationProbe: Probe = {
  name: 'key-isolation',
  // Spends what is left of key A's window, then two requests on key B.
  needs: { sends: 'alone', window: 'pair', slots: [0, 1], second: 2, exhaustSpan },
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
    const before = await sendPatiently(ctx, cheapList(b.key, tag));
    const run = await exhaust(ctx, a.key, tag, (first) => minuteCapacity(first, a.key, a.how === 'unused'));
    if (run.refusal?.status === 429) ctx.refusals.push(a.key, run.refusal);
    else if (run.lost !== null) return ctx.ledger.skip(id, plan, `key A: ${NO_WHOLE_RESPONSE}`);
    else return ctx.ledger.skip(id, plan, 'key A could not be exhausted (see ratelimit.enforced)');
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

/** Requests with distinct unknown keys the quota-drain probe sends between its two valid ones. */
export const DRAIN_REQUESTS = 50;

export const quotaDrainProbe: Probe = {
  name: 'quota-drain',
  needs: { sends: 'alone', window: 'headroom', slot: 2, requests: 2, unkeyed: DRAIN_REQUESTS },
  checks: ['auth.no-quota-drain'],
  perPlan: true,
  async run(ctx, plan) {
    await withRoomyKey(ctx, this.checks, plan, async (fk, plan) => {
      const id = 'auth.no-quota-drain';
      const tag = probeTag('quota-drain');
      let why2 = '';
      for (let attempt = 0; attempt < 2; attempt++) {
        const others = othersSince(ctx);
        const first = await sendPatiently(ctx, cheapList(fk.key, tag));
        let sent = 0;
        // Invalid keys may be limited per client address: honour their 429s too, bounded in count.
        for (let i = 0; sent < DRAIN_REQUESTS && i < DRAIN_REQUESTS * 3 && !ctx.signal.aborted; i++) {
          const ex = await ctx.send({
            operation: 'listPets',
            method: 'GET',
            path: '/pets?limit=1',
            auth: { kind: 'raw', header: `Bearer pl-invalid-${randomBytes(8).toString('hex')}`, label: 'unknown key' },
            tag,
          });
          if (ex.status === 429)
            await waitUntil(ctx, ex.localTime + Math.min(retryAfterMs(ex) ?? WINDOW_MS, WINDOW_MS));
          else sent++;
        }
        const last = await ctx.send(cheapList(fk.key, tag));
        const why = notJudgeable(last) ?? (first.error !== null ? 'no whole response (see contract.transport)' : null);
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
        if (!t1 || !t2) return ctx.ledger.skip(id, plan, `no usable X-RateLimit-* headers (${HEADER_CHECKS})`);
        if (!sameWindow(t1, t2)) {
          why2 = 'the window changed during the sequence twice; not judged';
          continue; // the window ended in between: try once more
        }
        // A fall no larger than what other probes had out meanwhile (requests that must go out on time) may be
        // theirs: whether other keys' requests count against this key is key-isolation's to judge. Measured again.
        const fall = t1.remaining - 1 - t2.remaining;
        const overlapping = others();
        if (fall > 0 && fall <= overlapping) {
          why2 = `Remaining went ${t1.remaining} → ${t2.remaining} while other probes had ${overlapping} requests out, twice: ${FOREIGN}`;
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

/** What a step of the what-counts sequence showed: its status's quota use, or why it could not be told. */
type CountFact = { label: string; fact: string; ambiguous: boolean };

/**
 * The what-counts sequence once: 200, 400, 404, 200 on one key, each step's fall of Remaining read against the one
 * before. A fall that other probes' requests in flight meanwhile could explain is ambiguous (on a target whose keys
 * share a counter they show here; that is key-isolation's to judge).
 */
async function countOnce(ctx: ProbeContext, key: ApiKey, tag: string): Promise<CountFact[]> {
  const plan: [string, () => RequestSpec][] = [
    ['200', () => cheapList(key, tag)],
    ['400', () => keySpec(key, 'createPet', '/pets', tag, '{"categoryId":"not-an-int"}')],
    ['404', () => keySpec(key, 'getPet', '/pets/9223372036854775807', tag)],
    ['200', () => cheapList(key, tag)],
  ];
  const facts: CountFact[] = [];
  let prev: Exchange | null = null;
  for (const [label, spec] of plan) {
    const others = othersSince(ctx);
    const ex = await ctx.send(spec());
    const p = prev;
    prev = ex;
    if (p === null || label === '200') continue;
    if (String(ex.status) !== label) {
      facts.push({
        label,
        fact: `not measured: the probe got ${ex.status ?? 'no response'} instead`,
        ambiguous: false,
      });
      continue;
    }
    const [tp, tc] = [tripleOf(p), tripleOf(ex)];
    if (!sameWindow(tp, tc)) {
      facts.push({ label, fact: 'not measured: no usable headers in one window', ambiguous: false });
      continue;
    }
    const fall = tp!.remaining - tc!.remaining;
    facts.push({ label, fact: fall >= 1 ? 'counted' : 'not counted', ambiguous: fall >= 1 && fall <= others() });
  }
  return facts;
}

export const whatCountsProbe: Probe = {
  name: 'what-counts',
  checks: ['ratelimit.what-counts'],
  // 200, 400, 404, 200.
  needs: { sends: 'alone', window: 'headroom', slot: 2, requests: 4 },
  perPlan: true,
  async run(ctx, plan) {
    await withRoomyKey(ctx, this.checks, plan, async (fk, plan) => {
      const id = 'ratelimit.what-counts';
      const tag = probeTag('what-counts');
      let counted = await countOnce(ctx, fk.key, tag);
      // Once more when other probes' requests may have landed inside a step; what is still ambiguous is said so.
      if (counted.some((f) => f.ambiguous)) counted = await countOnce(ctx, fk.key, tag);
      const facts: Record<string, string> = {
        '401': 'never charged to a key (requests without a valid key carry no key); see auth.no-quota-drain',
        '429': 'not measured: it would need a request inside a Retry-After, which petload never sends',
      };
      for (const f of counted) {
        facts[f.label] ??= f.ambiguous
          ? `not measured: other probes had requests out meanwhile, and ${FOREIGN}`
          : f.fact;
      }
      for (const [k, v] of Object.entries(facts)) ctx.ledger.info(id, plan, k, v);
      ctx.ledger.pass(id, plan);
      ctx.note(
        `${plan}: quota use by status: ${Object.entries(facts)
          .map(([k, v]) => `${k} ${v.split(':')[0]}`)
          .join(', ')}.`,
      );
    });
  },
};
