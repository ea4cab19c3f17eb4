/**
 * A 429 to wait out, for the probes that send one request after waiting one out (retry-after-honest, restore), and
 * for enforce: where the 429 comes from, when its window has certainly ended, and which window refused the request
 * sent after the wait.
 */
import { MINUTE_MS, MINUTE_S, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { retryAfterMs, serverOffset, TOLERANCE_MS } from '../backoff/key-state.js';
import type { Exchange } from '../http/exchange.js';
import { freshKey, type ProbeContext } from './context.js';
import { announcedMinuteLimit, exhaust, minuteCapacity, tripleOf } from './window.js';

/** A 429 to work with: one left by an earlier probe, or a fresh key exhausted now. */
export async function refusalFor(
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
export function refusedWindowEnd(key: ApiKey, ex: Exchange): number {
  const wait = retryAfterMs(ex);
  let end = ex.localTime + Math.min(wait ?? MINUTE_MS, MINUTE_MS);
  const t = tripleOf(ex);
  if (t && (t.limit === key.limits.perMinute || announcedMinuteLimit(ex, key, false) !== null)) {
    const reset = t.reset * 1000 + serverOffset(ex);
    if (reset >= ex.localTime - TOLERANCE_MS && reset <= ex.localTime + MINUTE_MS + TOLERANCE_MS)
      end = Math.max(end, reset);
  }
  return Math.min(end, ex.localTime + MINUTE_MS) + TOLERANCE_MS;
}

/**
 * Which window refused a request sent after waiting out a refusal:
 * - 'same': the window waited out (or it cannot be told): the wait was too short;
 * - 'later': a window of the same Limit that began after the waited one had ended: the wait was long enough, and the
 *   new window was used up before the key's request by requests the key did not send; waited out again;
 * - 'other': a window of another Limit (the day's, when the minute's was waited out): not the window waited out, so
 *   the wait is not judged by it.
 */
export function refusedBy(first: Exchange, again: Exchange): 'same' | 'later' | 'other' {
  const [a, b] = [tripleOf(first), tripleOf(again)];
  if (a === null || b === null) return 'same';
  if (a.limit !== b.limit) return 'other';
  return b.reset >= a.reset + MINUTE_S - 1 ? 'later' : 'same';
}

export const OTHER_WINDOW =
  'refused by another window (another Limit) than the one waited out, so the wait is not judged';

/** How many refusals a wait-then-request probe waits out: the first, and one in a later window. */
export const WAIT_TRIES = 2;
