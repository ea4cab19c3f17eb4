/**
 * The enforce probe: on a fresh window, cheap requests until one is refused; the window must accept its limit and
 * refuse the next one with a 429 (ratelimit.enforced), and its first answer must show Limit-1
 * (ratelimit.remaining-decrements).
 */
import { OPERATIONS } from '../api/operations.js';
import { allowedWithTolerance, MINUTE_MS, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { heldUntil, retryAfterMs, serverOffset, serverTimeOf, TOLERANCE_MS } from '../backoff/key-state.js';
import { RETRY_AFTER_MARGIN_MS } from '../http/server-time.js';
import type { Exchange } from '../http/exchange.js';
import {
  cheapList,
  type FreshKey,
  freshKey,
  isAccepted,
  keySpec,
  othersSince,
  type ProbeContext,
  probeTag,
  skipAll,
  waitUntil,
} from './context.js';
import type { Probe } from './probe.js';
import { FOREIGN, refusedAs, UNKNOWN_COUNT } from './reasons.js';
import { refusedWindowEnd } from './refusal.js';
import {
  announcedMinuteLimit,
  type Exhaustion,
  exhaust,
  exhaustSpan,
  minuteCapacity,
  minuteQuota,
  restartedAfterAMinute,
  type Triple,
  tripleOf,
  unusableHeaders,
} from './window.js';
import { see, prefixed } from '../checks/skip-reason.js';

const DECREMENTS = 'ratelimit.remaining-decrements';
const ORDERS_PATH = OPERATIONS.listOrders.path;

/** A run that spanned two windows says nothing about one: try again on another fresh key, this many times. */
const ROLLOVER_TRIES = 2;

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
      if (outcome === 'crowded') continue; // once at most: the turn is then everyone's
      if (outcome === 'over-admitted-concurrently' && !sequential) {
        sequential = true;
        ctx.again(`enforce [${plan}]: over-admitted with requests sent together; counted again one at a time`);
      } else if (++rollovers < ROLLOVER_TRIES)
        ctx.again(
          `enforce [${plan}]: the window restarted or a minute passed before the limit was reached; counted again`,
        );
    }
    ctx.ledger.skip(
      'ratelimit.enforced',
      plan,
      sequential
        ? see(
            'requests sent together were over-admitted, and strictly sequential requests could not reach the limit within one window, twice',
            'ratelimit.no-over-admission',
          )
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
    return Math.max(refusedWindowEnd(key, first), heldUntil(ctx.keyStates.get(key), first.localTime));
  }
  const t = tripleOf(first);
  if (!isAccepted(first) || t === null || t.remaining >= t.limit - 1) return null;
  if (t.limit !== key.limits.perMinute && announcedMinuteLimit(first, key, fresh) === null) return null;
  return Math.min(t.reset * 1000 + serverOffset(first), first.localTime + MINUTE_MS) + TOLERANCE_MS;
}

/**
 * What one sequence came to: judged (or skipped), or to be counted again (see enforceProbe). `crowded`: refused
 * short by no more requests than other probes sent meanwhile, while other plans' counts shared the wire (a long
 * link): counted again with no other probe's request on the wire, in the key's next window. On a target whose keys
 * keep their own counters nothing of another plan is counted on the key, so a short count is the target's; on one
 * whose keys share a counter (key-isolation's defect), the count alone tells the two apart.
 */
type Outcome = 'judged' | 'rolled-over' | 'over-admitted-concurrently' | 'crowded';

/** The first request of a sequence, on the window the count is taken in. */
interface Opened {
  first: Exchange;
  /** The key had no window under way at `first` (announcedMinuteLimit): unused, or its window in use waited out here. */
  fresh: boolean;
  /** The window was already in use when the probe started, and again after it ended. */
  inUse: boolean;
}

/**
 * The sequence's first request, again once the window it finds in use has ended. Null when the first request of
 * that fresh window was refused as well (the checks are skipped, the refusal left for the probes that wait one out).
 */
async function openWindow(ctx: ProbeContext, plan: PlanName, fk: FreshKey, tag: string): Promise<Opened | null> {
  const { key } = fk;
  let first = await ctx.send(cheapList(key, tag));
  let fresh = fk.how === 'unused';
  // A fresh window must start fresh: an unused key whose window is already in use had requests counted against it
  // that it did not send (other keys', keyless ones: see key-isolation, no-quota-drain). Wait for that window's end.
  let inUse = false;
  const until = first.error === null ? windowInUseUntil(ctx, first, key, fresh) : null;
  if (until !== null) {
    ctx.again(
      `enforce [${plan}]: ${key.label}'s window was already open and partly spent (another client is using the key, or requests of others were counted against it); again on a fresh window`,
    );
    await waitUntil(ctx, until, { who: key.label, for: `a fresh window to restart the count (enforce [${plan}])` });
    first = await ctx.send(cheapList(key, tag));
    fresh = true; // the window it opens is fresh, unless something else is counted against the key meanwhile
    inUse = first.error === null && windowInUseUntil(ctx, first, key, true) !== null;
    if (inUse && first.status === 429) {
      ctx.refusals.push(key, first);
      skipAll(
        ctx,
        ['ratelimit.enforced', DECREMENTS],
        plan,
        prefixed('the first request of a fresh window was refused, again after that window ended: ', FOREIGN),
      );
      return null;
    }
  }
  return { first, fresh, inUse };
}

/** One sequence's count, and what it is judged against. */
interface Count extends Opened {
  key: ApiKey;
  tag: string;
  /** The first answer's Limit/Remaining/Reset. */
  t0: Triple | null;
  /** What the window accepts: minuteCapacity. */
  quota: number;
  /** The accepted requests the window should count to: the quota, or the day's rest when that is less. */
  expected: number;
  /** The most it may accept: `expected`, or more by the tolerance declared for an approximate limiter. */
  allowed: number;
  run: Exhaustion;
}

/** One decrement-to-Limit+1 sequence. */
async function enforceOnce(ctx: ProbeContext, plan: PlanName, fk: FreshKey, sequential: boolean): Promise<Outcome> {
  const { key } = fk;
  const tag = probeTag('enforce');
  const others = othersSince(ctx);
  const opened = await openWindow(ctx, plan, fk, tag);
  if (opened === null) return 'judged';
  const { first, fresh } = opened;
  const t0 = tripleOf(first);
  const quota = minuteCapacity(first, key, fresh);
  const run = await exhaust(ctx, key, tag, allowedWithTolerance(quota, key.limits), {
    first,
    ...(sequential ? { parallel: 1, stopOnRollover: true } : {}),
    // The request over the limit goes to GET /store/orders once: the interface's 429 holds for any endpoint.
    overLimit: () => keySpec(key, 'listOrders', ORDERS_PATH, tag),
  });
  // With headers on the day window, a key with less than a minute's quota left for the day is refused sooner.
  const expected = !fresh && t0 !== null && t0.limit === key.limits.perDay ? Math.min(quota, t0.remaining + 1) : quota;
  const allowed = allowedWithTolerance(expected, key.limits);
  const r = run.refusal;
  // The 429 is left for the probes that wait one out, unless the refill follow-up (judgeEnforced) sends on the key
  // after it.
  let followUp = false;
  try {
    const unjudged = countVoid(ctx, plan, run, allowed, sequential);
    if (unjudged !== null) return unjudged;
    if (r !== null && run.accepted < expected && expected - run.accepted <= others() && (await ctx.widenTurn?.())) {
      ctx.again(
        `enforce [${plan}]: refused after ${run.accepted} of ${expected} while other plans' counts shared the wire; counted again alone`,
      );
      return 'crowded';
    }
    const count: Count = { ...opened, key, tag, t0, quota, expected, allowed, run };
    judgeDecrement(ctx, plan, count);
    if (quota !== minuteQuota(key)) {
      ctx.ledger.info('ratelimit.enforced', plan, 'announcedLimit', quota);
      ctx.ledger.info(
        'ratelimit.enforced',
        plan,
        'limit',
        `counted against the Limit the target announces (${quota}), not the plan's figure (see ratelimit.limit-matches-plan)`,
      );
    }
    followUp = await judgeEnforced(ctx, plan, count, others);
    judgeOrdersRefused(ctx, plan, run);
    return 'judged';
  } finally {
    if (!followUp && r?.status === 429) ctx.refusals.push(key, r);
  }
}

/**
 * The request over the limit sent to GET /store/orders must be refused as /pets' would be. A 2xx there, once the
 * window's requests were accepted, is a request over the limit served (counted with the rest by exhaust, and named
 * here): ratelimit.enforced fails, naming the endpoint.
 * A 404 or 405 is contract.every-endpoint's (the observer's), a 429 the sequence's refusal, judged with the count.
 */
function judgeOrdersRefused(ctx: ProbeContext, plan: PlanName, run: Exhaustion): void {
  const ex = run.overLimit;
  if (ex === null || !isAccepted(ex)) return;
  ctx.ledger.fail(
    'ratelimit.enforced',
    plan,
    `GET ${ORDERS_PATH} answered ${ex.status} once the key's window was spent: a request over the limit gets 429 on any endpoint`,
    ex,
  );
}

/**
 * Why a sequence's count cannot be judged: it is to be taken again ('rolled-over', 'over-admitted-concurrently'),
 * or a request got no whole response ('judged': the checks are skipped); null when it can be judged.
 */
function countVoid(
  ctx: ProbeContext,
  plan: PlanName,
  run: Exhaustion,
  allowed: number,
  sequential: boolean,
): Outcome | null {
  // Spanning two windows, too many accepted, or stopped at the rollover: the count says nothing of one window.
  if (run.rolledOver && (run.accepted > allowed || run.refusal === null)) return 'rolled-over';
  if (run.lost !== null) {
    skipAll(ctx, ['ratelimit.enforced', DECREMENTS], plan, UNKNOWN_COUNT);
    return 'judged';
  }
  if (run.accepted > allowed && run.concurrent && !sequential) return 'over-admitted-concurrently';
  return null;
}

/**
 * ratelimit.remaining-decrements. "A key's first request in a fresh window shows Limit-1": judgeable when every
 * window is fresh (unused key, or a window waited out) or when the headers describe the minute window whose end we
 * waited for.
 */
function judgeDecrement(ctx: ProbeContext, plan: PlanName, count: Count): void {
  const { first, t0, inUse, fresh, key, run } = count;
  if (!isAccepted(first)) {
    ctx.ledger.skip(DECREMENTS, plan, see('first request of the window was refused', 'ratelimit.enforced'));
  } else if (t0 === null) {
    ctx.ledger.skip(DECREMENTS, plan, unusableHeaders('first response has no usable X-RateLimit-*'));
  } else if (inUse) {
    ctx.ledger.skip(
      DECREMENTS,
      plan,
      prefixed('the window was already in use when the probe started, and again after it ended: ', FOREIGN),
    );
  } else if (fresh || t0.limit === key.limits.perMinute) {
    ctx.ledger.judge(
      DECREMENTS,
      plan,
      t0.remaining === t0.limit - 1,
      () =>
        `first request in a fresh window shows Remaining ${t0.remaining} with Limit ${t0.limit} (expected ${t0.limit - 1})`,
      run.first,
    );
  }
}

/**
 * ratelimit.enforced: `expected` requests accepted, then the next one refused with a 429. `others`: a reading of the
 * requests other probes sent since the sequence began. Whether it sent the refill follow-up (refillFollowUp).
 */
async function judgeEnforced(ctx: ProbeContext, plan: PlanName, count: Count, others: () => number): Promise<boolean> {
  const { run, expected, allowed, key, tag } = count;
  const r = run.refusal;
  const within = `within ${(run.spanMs / 1000).toFixed(1)} s of the first (target clock)`;
  const declared = allowed > expected ? ` (${allowed} with the declared tolerance)` : '';
  recordAdmission(ctx, plan, count);
  if (r === null) {
    ctx.ledger.fail(
      'ratelimit.enforced',
      plan,
      `${run.accepted} requests accepted ${within}; the limit is ${expected} a minute${declared}: request ${allowed + 1} was not refused`,
      run.first,
    );
  } else if (run.accepted > allowed) {
    ctx.ledger.fail(
      'ratelimit.enforced',
      plan,
      `${run.accepted} requests accepted ${within} before the first refusal (${refusedAs(r)}); the limit is ${expected} a minute${declared}`,
      r,
    );
  } else if (run.accepted > expected) {
    // An approximate limiter within what the plan declares it may over-admit: held, with the figure measured.
    ctx.ledger.pass('ratelimit.enforced', plan);
  } else if (run.accepted < expected && expected - run.accepted <= others()) {
    // Refused early, by no more requests than other probes sent meanwhile (a probe whose one request must go out on
    // time): whether those count against this key is key-isolation's or no-quota-drain's to judge.
    ctx.ledger.skip(
      'ratelimit.enforced',
      plan,
      prefixed(
        `refused after ${run.accepted} of ${expected} accepted requests, while other probes sent requests: `,
        FOREIGN,
      ),
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
    return await refillFollowUp(ctx, plan, key, tag, run, expected);
  }
  return false;
}

/**
 * The plan's measured admission, as a fact of ratelimit.enforced (report.json's `admission` reads it): the
 * requests accepted within a minute from a fresh start, against the figure sold and the declared tolerance. A count
 * that met no refusal is a lower bound (`atLeast`).
 */
function recordAdmission(ctx: ProbeContext, plan: PlanName, count: Count): void {
  const { run, expected, key } = count;
  ctx.ledger.info('ratelimit.enforced', plan, 'admission', {
    accepted: run.accepted,
    sold: expected,
    spanSeconds: Math.round(run.spanMs / 100) / 10,
    tolerance: key.limits.tolerance ?? 0,
    atLeast: run.refusal === null,
  });
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
  const minuteEnds = serverTimeOf(run.first) + MINUTE_MS - FOLLOW_UP_MARGIN_MS;
  if (wait === null || wait > FOLLOW_UP_MAX_MS || serverTimeOf(r) + wait + RETRY_AFTER_MARGIN_MS >= minuteEnds)
    return false;
  await waitUntil(ctx, r.localTime + wait + RETRY_AFTER_MARGIN_MS, {
    who: key.label,
    for: `its 429's Retry-After to end (enforce [${plan}])`,
  });
  const ex = await ctx.send(cheapList(key, tag));
  if (!isAccepted(ex)) {
    if (ex.status === 429) ctx.refusals.push(key, ex);
    return true;
  }
  const spanMs = serverTimeOf(ex) - serverTimeOf(run.first);
  if (restartedAfterAMinute(tripleOf(run.first), tripleOf(ex)) || spanMs >= MINUTE_MS - TOLERANCE_MS) return true;
  ctx.ledger.fail(
    'ratelimit.enforced',
    plan,
    `${expected + 1} requests accepted within ${(spanMs / 1000).toFixed(1)} s of the first (target clock); the limit is ${expected} a minute: after the 429, the request sent once its Retry-After (${wait / 1000} s) had passed was accepted (the limiter refills within the minute; see ratelimit.algorithm)`,
    ex,
  );
  return true;
}
