/**
 * What one response on a valid key tells the backoff policy: whether it is a refusal, the window its
 * rate-limit headers describe, where that window ends on the local run clock, and how long a wait it can
 * justify. Every figure the target sends is bounded by the window length before it is trusted (ground rules:
 * "Waits follow what the target says, bounded by the window length").
 */
import { DAY_MS, MINUTE_MS, type WindowName, windowOfLimit } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { retryAfterMs, serverOffset, serverTimeOf, TOLERANCE_MS } from '../http/server-time.js';
import type { Exchange } from '../http/exchange.js';
import { rateLimitOf } from '../http/parsed.js';
import { ietfTriple } from '../http/ratelimit-fields.js';

/**
 * A refusal: 429, or a status that also means "not now" for a valid key: 503 with a Retry-After (RFC 9110
 * §10.2.3), and 403 (a ban's status is undocumented; treating it as a refusal stops traffic on the key).
 */
export function isRefusal(ex: Exchange): boolean {
  const s = ex.status;
  return s === 429 || s === 403 || (s === 503 && ex.headers['retry-after'] !== undefined);
}

export const isAccepted = (ex: Exchange): boolean => ex.status !== null && ex.status >= 200 && ex.status < 300;

export interface ResponseWindow {
  /** The key's window the Limit names (null: absent, unusable, or a figure of neither window). */
  window: WindowName | null;
  remaining: number | null;
  /** Reset as a Unix second, when present and well formed. */
  reset: number | null;
  /** Local run-clock time (epoch ms) by which the described window has ended; null when Reset is unusable. */
  resetLocal: number | null;
}

/**
 * The window a response describes (by X-RateLimit-*, or by the IETF fields when it sends only those). Reset is converted to the local clock with the Date header (which floors
 * the server's time, so the local end is never early), and is unusable when it is in the past or further
 * than the described window's length (+1 s): milliseconds, or seconds-until-reset, are caught that way.
 */
export function readWindow(ex: Exchange, key: ApiKey): ResponseWindow {
  const rl = rateLimitOf(ex);
  // A target that sends only the IETF fields (no X-RateLimit-* at all): the backoff follows what they say.
  const none = !rl.limit.ok && !rl.remaining.ok && !rl.reset.ok;
  const ietf = none ? ietfTriple(ex.headers, serverTimeOf(ex)) : null;
  const limit = ietf?.limit ?? (rl.limit.ok ? rl.limit.value : null);
  const window = limit === null ? null : windowOfLimit(limit, key.limits);
  const remaining = ietf?.remaining ?? (rl.remaining.ok ? rl.remaining.value : null);
  const reset = ietf?.reset ?? (rl.reset.ok ? rl.reset.value : null);
  let resetLocal: number | null = null;
  if (reset !== null && window !== null) {
    const local = reset * 1000 + serverOffset(ex);
    const lengthMs = window === 'day' ? DAY_MS : MINUTE_MS;
    if (local >= ex.localTime - TOLERANCE_MS && local <= ex.localTime + lengthMs + TOLERANCE_MS) resetLocal = local;
  }
  return { window, remaining, reset, resetLocal };
}

/**
 * The longest wait a refusal can justify (ms), as backoff.respects-retry-after reads it: the minute when the
 * refused window is the minute window the headers describe (Remaining 0), else the day, since another window
 * refused or the headers do not say which; one second of rounding on top.
 */
function waitBoundMs(w: ResponseWindow): number {
  return (w.window === 'minute' && w.remaining === 0 ? MINUTE_MS : DAY_MS) + TOLERANCE_MS;
}

/**
 * The wait Retry-After asks for (ms), or null when it is missing, unreadable, or beyond what a refusal can justify
 * (an epoch, milliseconds, an HTTP-date in year 9999: retry-after.plausible's failure). Such a value is not waited
 * for at all, not even clamped to the day: the refusal waits as one that says nothing usable does (a usable Reset,
 * else the minute window; see BackoffPolicy.ends).
 */
export function retryAfterWaitMs(ex: Exchange, w: ResponseWindow): number | null {
  const ms = retryAfterMs(ex);
  return ms === null || ms > waitBoundMs(w) ? null : ms;
}
