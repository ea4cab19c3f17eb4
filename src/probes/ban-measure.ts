/**
 * How the ban probe reads answers and measures a ban's duration. An answer is its status and Error `code`; two
 * answers are the same when both agree. A duration is measured on the target's clock: from the Date header of the
 * first banned answer to that of the first answer that is not the ban's. Date has whole seconds; the run clock is
 * used as a finer ruler when it agrees with the Date headers to within their rounding (it runs at the target's
 * rate), and not otherwise (a target on a clock of its own, such as a reference server on a scaled clock).
 */
import type { Exchange } from '../http/exchange.js';
import { dateOf } from '../http/parsed.js';

export interface Answer {
  status: number | null;
  code: string | null;
}

export function answerOf(ex: Exchange): Answer {
  const body = ex.body.kind === 'json' ? (ex.body.value as { code?: unknown } | null) : null;
  const code = body !== null && typeof body === 'object' && typeof body.code === 'string' ? body.code : null;
  return { status: ex.status, code };
}

export const sameAnswer = (a: Answer, b: Answer): boolean => a.status === b.status && a.code === b.code;

export function describeAnswer(ex: Exchange): string {
  const a = answerOf(ex);
  return a.status === null ? 'no answer' : `status ${a.status}, code ${a.code ?? 'none'}`;
}

export interface BanDuration {
  /** Seconds of the target's clock from the first banned answer to the first answer that was not the ban's. */
  seconds: number;
  /** Half the width of the range the duration is known to lie in (plus Date's rounding when Date measured it). */
  uncertaintySeconds: number;
  /** What measured it. */
  clock: 'run clock, agreeing with the target Date headers' | 'target Date headers' | 'run clock (no Date header)';
}

const tenths = (ms: number) => Math.round(ms / 100) / 10;

/** Run-clock wall time of a monotonic instant of the exchange (localTime is the wall time at `timing.done`). */
export const wallAt = (ex: Exchange, mono: number) => ex.localTime - (ex.timing.done - mono);
/** When the target may have handled the request: after it was sent, before its response's headers arrived. */
const handled = (ex: Exchange) => ({
  from: wallAt(ex, ex.timing.sent),
  to: wallAt(ex, ex.timing.headers ?? ex.timing.done),
});

/**
 * The ban's duration from its first answer `ban`, the last banned answer and the first one after it (`end`).
 * On the run clock: the ban began while the target handled `ban`, and ended after it handled `lastBanned` and
 * before it handled `end`; the figure is the middle of that range and the uncertainty its half-width.
 */
export function banDuration(ban: Exchange, lastBanned: Exchange, end: Exchange): BanDuration {
  const began = handled(ban);
  const shortest = handled(lastBanned).from - began.to;
  const longest = handled(end).to - began.from;
  const localMs = (shortest + longest) / 2;
  const halfMs = (longest - shortest) / 2;
  const from = dateOf(ban);
  const to = dateOf(end);
  if (from === null || to === null)
    return { seconds: tenths(localMs), uncertaintySeconds: tenths(halfMs), clock: 'run clock (no Date header)' };
  const dateMs = to - from;
  // Both Dates are floored to the second: on a clock at the target's rate they differ from the run clock's
  // measure by less than a second (plus the range's half-width).
  if (Math.abs(localMs - dateMs) <= 1000 + halfMs) {
    return {
      seconds: tenths(localMs),
      uncertaintySeconds: tenths(halfMs),
      clock: 'run clock, agreeing with the target Date headers',
    };
  }
  return { seconds: dateMs / 1000, uncertaintySeconds: tenths(halfMs) + 1, clock: 'target Date headers' };
}
