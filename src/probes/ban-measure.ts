/**
 * How the ban probe reads answers and measures a ban's duration. An answer is its status and Error `code`; two
 * answers are the same when both agree. A duration is measured on the target's clock: from the Date header of the
 * first banned answer to that of the first answer that is not the ban's. Date has whole seconds; the run clock is
 * used as a finer ruler when it agrees with the Date headers to within their rounding (it runs at the target's
 * rate), and not otherwise (a target on a clock of its own, such as a reference server on a scaled clock).
 */
import { headerValue, type Exchange } from '../http/exchange.js';
import { parseHttpDate } from '../http/headers.js';

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
  /** How much earlier the ban may have ended: the gap since the last banned answer, plus Date's rounding if used. */
  uncertaintySeconds: number;
  /** What measured it. */
  clock: 'run clock, agreeing with the target Date headers' | 'target Date headers' | 'run clock (no Date header)';
}

const dateOf = (ex: Exchange): number | null => {
  const raw = headerValue(ex.headers, 'date');
  return raw === undefined ? null : parseHttpDate(raw);
};

const tenths = (ms: number) => Math.round(ms / 100) / 10;

/** The ban's duration from its first answer `ban`, the last banned answer and the first one after it (`end`). */
export function banDuration(ban: Exchange, lastBanned: Exchange, end: Exchange): BanDuration {
  const localMs = end.localTime - ban.localTime;
  const gapMs = end.localTime - lastBanned.localTime;
  const from = dateOf(ban);
  const to = dateOf(end);
  if (from === null || to === null) return { seconds: tenths(localMs), uncertaintySeconds: tenths(gapMs), clock: 'run clock (no Date header)' };
  const dateMs = to - from;
  // Both Dates are floored to the second: on a clock at the target's rate they differ from the run clock's
  // measure by less than a second.
  if (Math.abs(localMs - dateMs) <= 1000) {
    return { seconds: tenths(localMs), uncertaintySeconds: tenths(gapMs), clock: 'run clock, agreeing with the target Date headers' };
  }
  return { seconds: dateMs / 1000, uncertaintySeconds: tenths(gapMs) + 1, clock: 'target Date headers' };
}
