/**
 * How the ban probe reads answers, paces the requests that follow a ban, and measures a ban's duration. An answer is
 * its status and Error `code`; two answers are the same when both agree. A duration is measured on the target's
 * clock, from the first banned answer to the first answer that is not the ban's, as a range: on the run clock (the
 * instants the target handled the requests) and on the target's Date headers (whole seconds). The run clock is used
 * when the two ranges agree (it runs at the target's rate), unless Date's is the narrower; Date's alone otherwise (a
 * target on a clock of its own, such as a reference server on a scaled clock judged on another).
 */
import type { Exchange } from '../http/exchange.js';
import { dateOf } from '../http/parsed.js';
import { retryAfterMs } from '../http/server-time.js';

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
  /** Half the width of the range the duration is known to lie in (Date's rounding included when Date measured it). */
  uncertaintySeconds: number;
  /** What measured it. */
  clock: 'run clock, agreeing with the target Date headers' | 'target Date headers' | 'run clock (no Date header)';
}

const tenths = (ms: number) => Math.round(ms / 100) / 10;
/** Up to the next tenth of a second (a float's last bit aside). */
const tenthsUp = (ms: number) => Math.ceil(ms / 100 - 1e-9) / 10;

/** Run-clock wall time of a monotonic instant of the exchange (localTime is the wall time at `timing.done`). */
export const wallAt = (ex: Exchange, mono: number) => ex.localTime - (ex.timing.done - mono);
/** When the target may have handled the request: after it was sent, before its response's headers arrived. */
const handled = (ex: Exchange) => ({
  from: wallAt(ex, ex.timing.sent),
  to: wallAt(ex, ex.timing.headers ?? ex.timing.done),
});

/** Clock ms of margin before the earliest end a ban's Retry-After allows, at the least. */
const MARGIN_MS = 300;
/**
 * Real ms of margin at the least: a busy machine's event loop can hold a timer back by a few hundred real ms (a
 * clock 20 times faster turns 250 ms into 5 s), and a first poll held back past the ban's end leaves the ban's
 * own first answer as the last banned one: the duration then known only to within half the ban.
 */
const MARGIN_REAL_MS = 500;
/** Clock ms between two polls once the ban may have ended. */
const POLL_STEP_MS = 100;

/**
 * When to send the next request that follows a ban, after `ex` (still the ban's answer), on a clock `scale` times
 * faster than real time; `blindGap` is the wait without a usable Retry-After. A Retry-After of R whole seconds
 * (rounded up) says the ban ends after R-1 s and by R s: the first poll comes a margin before R-1 s, the next ones
 * halve the way left to it, and once it is reached they come every POLL_STEP_MS.
 */
export function nextPoll(ex: Exchange, blindGap: number, scale: number): number {
  const ra = ex.status === null ? null : retryAfterMs(ex);
  if (ra === null) return ex.localTime + blindGap;
  const left = ra - 1000;
  const margin = Math.max(MARGIN_MS, MARGIN_REAL_MS * scale);
  return ex.localTime + Math.max(POLL_STEP_MS, left - margin, left / 2);
}

/** A range of ms by its middle and half-width. */
interface Range {
  mid: number;
  half: number;
}
const range = (shortest: number, longest: number): Range => ({
  mid: (shortest + longest) / 2,
  half: (longest - shortest) / 2,
});

/**
 * The ban's duration from its first answer `ban`, the last banned answer and the first one after it (`end`): the
 * ban began while the target handled `ban`, and ended after it handled `lastBanned` and before it handled `end`.
 * On the run clock that is a range of instants; on the Date headers each instant is floored to its second, so the
 * range widens by a second on either side. The figure is the middle of the range used, the uncertainty its
 * half-width.
 */
export function banDuration(ban: Exchange, lastBanned: Exchange, end: Exchange): BanDuration {
  const began = handled(ban);
  const run = range(handled(lastBanned).from - began.to, handled(end).to - began.from);
  // The figure is rounded to a tenth; the uncertainty is rounded up, and covers that rounding too.
  const figure = (r: Range, clock: BanDuration['clock']): BanDuration => ({
    seconds: tenths(r.mid),
    uncertaintySeconds: tenthsUp(r.half + Math.abs(r.mid - tenths(r.mid) * 1000)),
    clock,
  });
  const from = dateOf(ban);
  const last = dateOf(lastBanned);
  const to = dateOf(end);
  if (from === null || last === null || to === null) return figure(run, 'run clock (no Date header)');
  const date = range(last - from - 1000, to - from + 1000);
  // Ranges of one duration overlap: the run clock runs at the target's rate.
  if (Math.abs(run.mid - date.mid) <= run.half + date.half && run.half <= date.half)
    return figure(run, 'run clock, agreeing with the target Date headers');
  return figure(date, 'target Date headers');
}
