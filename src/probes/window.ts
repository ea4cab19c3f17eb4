/** Rate-limit helpers shared by the probes: reading a response's window, exhausting a key, refusals to reuse. */
import { DAY_S, MINUTE_S, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { retryAfterMs, serverTimeOf, TOLERANCE_MS } from '../backoff/key-state.js';
import type { Exchange } from '../http/exchange.js';
import { rateLimitOf } from '../http/parsed.js';
import { cheapList, isAccepted, type ProbeContext } from './context.js';

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
  if (resetMs < at - TOLERANCE_MS || resetMs > at + (DAY_S + 1) * 1000) return null;
  return { limit: rl.limit.value, remaining: rl.remaining.value, reset: rl.reset.value };
}

/** Where a probe names the checks that judge unusable headers. */
export const HEADER_CHECKS = 'see ratelimit.headers-present, ratelimit.headers-syntax, ratelimit.reset-is-timestamp';

export const sameWindow = (a: Triple | null, b: Triple | null): boolean =>
  a !== null && b !== null && a.limit === b.limit && a.reset === b.reset;

/** How many requests a fresh minute window accepts: the smaller of the plan's figures. */
export const minuteQuota = (key: ApiKey) => Math.min(key.limits.perMinute, key.limits.perDay);

export interface Exhaustion {
  first: Exchange;
  accepted: number;
  /** The first refusal, or null if `cap` requests were all accepted. */
  refusal: Exchange | null;
  /** Accepted responses spanned more than one minute window (the run was too slow for the window). */
  rolledOver: boolean;
  /** A request got no whole response: whether the target counted it is unknown, so the count proves nothing. */
  lost: Exchange | null;
}

const PARALLEL = 8;
const SEQUENTIAL_TAIL = 8;

/**
 * Send cheap requests on `key` until one is refused or `cap` were accepted. Most are sent 8 at a time (so that a
 * 1000/min plan is exhausted well within a scaled minute); the last few strictly one after another, so the
 * boundary is exact. Bounded by `cap + PARALLEL` requests. Stops at the first refusal: nothing is sent after a 429.
 */
export async function exhaust(ctx: ProbeContext, key: ApiKey, tag: string, cap: number): Promise<Exhaustion> {
  const first = await ctx.send(cheapList(key, tag));
  let accepted = isAccepted(first) ? 1 : 0;
  let refusal: Exchange | null = isAccepted(first) ? null : first;
  let lost: Exchange | null = first.error !== null ? first : null;
  const firstLocal = first.localTime;
  const resets = new Set<number>();
  const t0 = tripleOf(first);
  if (t0) resets.add(t0.reset);
  const onAccepted = (ex: Exchange) => {
    accepted++;
    const t = tripleOf(ex);
    if (t && t0 && t.limit === t0.limit) resets.add(t.reset);
  };
  let sent = 1;
  const bulk = Math.max(0, cap - SEQUENTIAL_TAIL);
  const worker = async () => {
    while (refusal === null && sent < bulk && !ctx.signal.aborted) {
      sent++;
      const ex = await ctx.send(cheapList(key, tag));
      if (isAccepted(ex)) onAccepted(ex);
      else refusal ??= ex;
      if (ex.error !== null) lost ??= ex;
    }
  };
  if (refusal === null) await Promise.all(Array.from({ length: PARALLEL }, worker));
  while (refusal === null && sent < cap + 1 && !ctx.signal.aborted) {
    sent++;
    const ex = await ctx.send(cheapList(key, tag));
    if (isAccepted(ex)) onAccepted(ex);
    else refusal = ex;
    if (ex.error !== null) lost ??= ex;
  }
  const spanMs = (refusal ?? first).localTime - firstLocal;
  return { first, accepted, refusal, rolledOver: resets.size > 1 || spanMs > 59_000, lost };
}

/** Refusals a probe left behind (a key with a 429 and nothing sent since), for the next probe that needs one. */
export class Refusals {
  private readonly byPlan = new Map<PlanName, { key: ApiKey; ex: Exchange }[]>();
  push(key: ApiKey, ex: Exchange): void {
    const list = this.byPlan.get(key.plan) ?? [];
    list.push({ key, ex });
    this.byPlan.set(key.plan, list);
  }
  pop(plan: PlanName): { key: ApiKey; ex: Exchange } | undefined {
    return this.byPlan.get(plan)?.pop();
  }
}

/**
 * The minute window the first response of a sequence describes opened well before that request was sent, with
 * part of it spent: another client has been using the key, so the window is not the fresh one the probe needs.
 */
export function openedBefore(first: Exchange, t: Triple | null, key: ApiKey): boolean {
  if (t === null || t.limit !== key.limits.perMinute || t.remaining >= t.limit - 1) return false;
  return t.reset * 1000 - MINUTE_S * 1000 < serverTimeOf(first) - 2 * TOLERANCE_MS;
}

/**
 * A 429 that comes from a later minute window than the refusal waited out, used up and refusing as a spent window
 * does (Retry-After no longer than the window): another client spent the key's new window first.
 */
export function refusedInLaterWindow(waited: Exchange, again: Exchange, key: ApiKey): boolean {
  const [a, b] = [tripleOf(waited), tripleOf(again)];
  if (again.status !== 429 || a === null || b === null || b.limit !== key.limits.perMinute || b.remaining !== 0) return false;
  const wait = retryAfterMs(again);
  return b.reset > a.reset && wait !== null && wait <= (MINUTE_S + 1) * 1000;
}
