/** Rate-limit helpers shared by the probes: reading a response's window, exhausting a key, refusals to reuse. */
import { DAY_MS, MINUTE_MS, MINUTE_S, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { serverTimeOf, TOLERANCE_MS } from '../backoff/key-state.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import { rateLimitOf } from '../http/parsed.js';
import { cheapList, isAccepted, type LeftRefusal, type ProbeContext, type RefusalShelf } from './context.js';
import { see } from '../checks/skip-reason.js';
import { exhaustMs, sizeFor } from './in-flight.js';

export interface Triple {
  limit: number;
  remaining: number;
  reset: number;
}

/**
 * The response's Limit/Remaining/Reset when all three are usable, else null (their checks judge why): present,
 * plain integers, and a Reset that reads as a Unix timestamp no further than a day ahead (reset-is-timestamp).
 */
export function tripleOf(ex: Exchange): Triple | null {
  const rl = rateLimitOf(ex);
  if (!rl.limit.ok || !rl.remaining.ok || !rl.reset.ok) return null;
  const at = serverTimeOf(ex);
  const resetMs = rl.reset.value * 1000;
  if (resetMs < at - TOLERANCE_MS || resetMs > at + DAY_MS + 1000) return null;
  return { limit: rl.limit.value, remaining: rl.remaining.value, reset: rl.reset.value };
}

/** A skip for headers a probe cannot read, naming the checks that judge them. */
export const unusableHeaders = (text: string) =>
  see(text, 'ratelimit.headers-present', 'ratelimit.headers-syntax', 'ratelimit.reset-is-timestamp');

export const sameWindow = (a: Triple | null, b: Triple | null): boolean =>
  a !== null && b !== null && a.limit === b.limit && a.reset === b.reset;

/** How many requests a fresh minute window accepts: the smaller of the plan's figures. */
export const minuteQuota = (key: ApiKey) => Math.min(key.limits.perMinute, key.limits.perDay);

/**
 * The Limit a response announces for its minute window when that is not the plan's per-minute figure (a defect
 * ratelimit.limit-matches-plan judges), else null. The triple describes a minute window when its Reset is at most a
 * minute away and it cannot be a day window near its end: its Limit is not the plan's day figure, or the key had no
 * window under way (`fresh`), or Remaining is Limit-1 (this request opened the window, so it is no day window).
 * Limit-driven probes count with this Limit: judging a target by a figure it does not announce would fail their
 * checks for limit-matches-plan's defect.
 */
export function announcedMinuteLimit(ex: Exchange, key: ApiKey, fresh: boolean): number | null {
  const t = tripleOf(ex);
  if (t === null || t.limit === key.limits.perMinute) return null;
  if (t.reset * 1000 - serverTimeOf(ex) > MINUTE_MS + TOLERANCE_MS) return null;
  if (t.limit === key.limits.perDay && !fresh && t.remaining !== t.limit - 1) return null;
  return t.limit;
}

/** How many requests the minute window `first` opened accepts: minuteQuota, or the announced minute Limit (bounded by the day). */
export function minuteCapacity(first: Exchange, key: ApiKey, fresh: boolean): number {
  const announced = announcedMinuteLimit(first, key, fresh);
  return announced === null ? minuteQuota(key) : Math.min(announced, key.limits.perDay);
}

/**
 * A new window that keeps the promise: as much left as at the start, under a Reset a minute or more after the first
 * one (a window aligned to the clock begins before a key's first request, and the next one a minute after it). A
 * window that restarts sooner (a Reset a few seconds on) is a limit over a shorter window: the count goes on.
 */
export function restartedAfterAMinute(t0: Triple | null, t: Triple | null): boolean {
  return (
    t0 !== null &&
    t !== null &&
    t.limit === t0.limit &&
    t.remaining >= t0.remaining &&
    t.reset >= t0.reset + MINUTE_S - 1
  );
}

export interface Exhaustion {
  first: Exchange;
  accepted: number;
  /** The first refusal, or null if `cap` requests (and the overshoot) were all accepted. */
  refusal: Exchange | null;
  /**
   * The limiter restarted during the sequence a minute on (restartedAfterAMinute), or the sequence outlived a
   * minute: the count says nothing of one minute.
   */
  rolledOver: boolean;
  /** The target-clock time from the first answer to the last one counted (Date, else the local clock). */
  spanMs: number;
  /** A request got no whole response: whether the target counted it is unknown, so the count proves nothing. */
  lost: Exchange | null;
  /** Some requests were in flight together (the parallel bulk): a counter that misses concurrent requests over-admits. */
  concurrent: boolean;
  /**
   * Requests of the bulk already out when the first refusal came back (a target that refuses before the quota):
   * counted in `accepted` or refused, at most the bulk's in-flight less one.
   */
  pastRefusal: number;
  /** Requests in flight at once in the bulk (sized from the round trip: in-flight.ts). */
  inFlight: number;
  /** The answer to ExhaustOptions.overLimit, or null when it was not sent. */
  overLimit: Exchange | null;
}

export interface ExhaustOptions {
  /** A request already sent on the key, opening the window: the sequence continues from it. */
  first?: Exchange;
  /**
   * Requests in flight at once before the sequential tail (default: sized from the round trip, 8 on loopback,
   * in-flight.ts); 1 sends strictly one after another.
   */
  parallel?: number;
  /** Stop once the accepted responses show a second window, or a minute has passed: the count is void then. */
  stopOnRollover?: boolean;
  /**
   * Sent once, strictly in sequence, when `cap` requests were accepted, in place of the next cheap list: a request
   * to another endpoint, which must be refused too ("429 on any endpoint"). A refusal of it is the sequence's
   * refusal, a 2xx one more accepted request; a 404 or 405 (no such endpoint) is not counted: the sequence goes on.
   */
  overLimit?: () => RequestSpec;
}

const ROLLOVER_SPAN_MS = 59_000;
/**
 * Requests past `cap` still sent while they are accepted: a limiter that refills as it goes (a token bucket, GCRA)
 * admits its burst and the refill, and the count must see it. Bounded: one more is enough to show over-admission.
 */
const OVERSHOOT = 8;

/** Real ms exhausting a window of `requests` takes at `requestMs` a request: the bulk, then the tail one by one. */
export const exhaustSpan = (requests: number, requestMs: number): number => exhaustMs(requests, requestMs);

/**
 * The round trip to size an exhaust by, real ms: the run's shortest so far (the probe context's), or the first
 * answer's own when it is shorter or the only one.
 */
function roundTripOf(ctx: ProbeContext, first: Exchange): number {
  const own = first.timing.headers === null ? null : (first.timing.headers - first.timing.sent) / ctx.clock.scale;
  const seen = ctx.roundTripMs?.() ?? null;
  return Math.min(seen ?? Number.POSITIVE_INFINITY, own ?? Number.POSITIVE_INFINITY, 60_000);
}

/**
 * Send cheap requests on `key` until one is refused, or `cap` and the overshoot were accepted. Most are sent many at
 * a time, as many as the round trip asks for (in-flight.ts: 8 on loopback, up to 128 across a long link, so that a
 * 1000/min plan is exhausted well within a scaled minute, and in about the same time far away as near); the last few
 * (the tail) strictly one after another, so the boundary is exact: the bulk stops `tail` short of `cap`. Bounded by
 * `cap + 1 + OVERSHOOT` requests. Stops at the first refusal: nothing is sent after a 429 has come back (the bulk's
 * requests already out then, fewer than its in-flight, are counted in `pastRefusal`). `cap` may depend on the first
 * response (the Limit the target announces).
 *
 * Whether the sequence stayed within one stretch of the limiter is told by what it admitted and by the clock, not
 * by Reset: a bucket's Reset (when it is full again) moves forward with every request, a window's stays put.
 */
export async function exhaust(
  ctx: ProbeContext,
  key: ApiKey,
  tag: string,
  capOf: number | ((first: Exchange) => number),
  opts: ExhaustOptions = {},
): Promise<Exhaustion> {
  const first = opts.first ?? (await ctx.send(cheapList(key, tag)));
  const cap = typeof capOf === 'number' ? capOf : capOf(first);
  const sizing = sizeFor(roundTripOf(ctx, first));
  const parallel = Math.max(1, opts.parallel ?? sizing.inFlight);
  let accepted = isAccepted(first) ? 1 : 0;
  let refusal: Exchange | null = isAccepted(first) ? null : first;
  let lost: Exchange | null = first.error !== null ? first : null;
  const firstLocal = first.localTime;
  const t0 = tripleOf(first);
  let restarted = false;
  const onAccepted = (ex: Exchange) => {
    accepted++;
    const t = tripleOf(ex);
    if (isAccepted(first) && restartedAfterAMinute(t0, t)) restarted = true;
  };
  let sent = 1;
  let pastRefusal = 0;
  const bulk = parallel === 1 ? 0 : Math.max(0, cap - sizing.tail);
  const void_ = () => opts.stopOnRollover === true && (restarted || ctx.clock.now() - firstLocal > ROLLOVER_SPAN_MS);
  const worker = async () => {
    while (refusal === null && sent < bulk && !ctx.signal.aborted) {
      sent++;
      const ex = await ctx.send(cheapList(key, tag));
      if (refusal !== null) pastRefusal++;
      if (isAccepted(ex)) onAccepted(ex);
      else refusal ??= ex;
      if (ex.error !== null) lost ??= ex;
    }
  };
  const concurrent = refusal === null && bulk > 1;
  const workers = Math.min(parallel, Math.max(1, bulk - 1));
  if (refusal === null) await Promise.all(Array.from({ length: workers }, worker));
  let last = first;
  let overLimit: Exchange | null = null;
  while (refusal === null && sent < cap + 1 + OVERSHOOT + (overLimit ? 1 : 0) && !ctx.signal.aborted && !void_()) {
    sent++;
    const over = opts.overLimit !== undefined && overLimit === null && accepted >= cap;
    const ex = await ctx.send(over ? opts.overLimit!() : cheapList(key, tag));
    last = ex;
    if (over) overLimit = ex;
    if (over && (ex.status === 404 || ex.status === 405)) continue;
    if (isAccepted(ex)) onAccepted(ex);
    else refusal = ex;
    if (ex.error !== null) lost ??= ex;
  }
  const end = refusal ?? last;
  const spanMs = Math.max(0, serverTimeOf(end) - serverTimeOf(first));
  // The time the sequence took on the local clock too (a target without Date, or one that outlived its minute).
  const outlived =
    (refusal ?? last).localTime - firstLocal > ROLLOVER_SPAN_MS ||
    (refusal === null && ctx.clock.now() - firstLocal > ROLLOVER_SPAN_MS);
  return {
    first,
    accepted,
    refusal,
    rolledOver: restarted || spanMs > ROLLOVER_SPAN_MS || outlived,
    spanMs,
    lost,
    concurrent,
    pastRefusal,
    inFlight: bulk > 1 ? workers : 1,
    overLimit,
  };
}

/** Refusals a probe left behind (a key with a 429 and nothing sent since), for the next probe that needs one. */
export class Refusals implements RefusalShelf {
  private readonly byPlan = new Map<PlanName, LeftRefusal[]>();
  push(key: ApiKey, ex: Exchange): void {
    const list = this.byPlan.get(key.plan) ?? [];
    list.push({ key, ex });
    this.byPlan.set(key.plan, list);
  }
  pop(plan: PlanName): LeftRefusal | undefined {
    return this.byPlan.get(plan)?.pop();
  }
}

/**
 * The minute window the first response of a sequence describes opened well before that request was sent, with
 * part of it spent: another client has been using the key, so the window is not the fresh one the probe needs.
 */
export function openedBefore(first: Exchange, t: Triple | null, key: ApiKey): boolean {
  if (t === null || t.limit !== key.limits.perMinute || t.remaining >= t.limit - 1) return false;
  return t.reset * 1000 - MINUTE_MS < serverTimeOf(first) - 2 * TOLERANCE_MS;
}
