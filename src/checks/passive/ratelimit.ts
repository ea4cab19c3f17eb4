/**
 * Per-response rate-limit header checks: presence (on 2xx/429, and on 400/401/404), syntax, the plan's
 * figure, and Reset as a Unix timestamp. `readRateLimit` gathers what they found so that the stream and
 * Retry-After checks use only values these checks accepted, and skip naming them otherwise.
 */
import { windowOfLimit } from '../../api/plans.js';
import type { IntHeader, RateLimitHeaders } from '../../http/headers.js';
import { rateLimitOf } from '../../http/parsed.js';
import { ietfFieldNames } from '../../http/ratelimit-fields.js';
import type { CheckId } from '../catalogue.js';
import { see, type SkipReason } from '../skip-reason.js';
import { is2xx, windowSeconds, type Recorder, type View } from './view.js';

/** A header value the other checks may use, or why not (null: nothing required it, nothing to say). */
export type Field = { ok: true; value: number } | { ok: false; reason: SkipReason | null };

export interface RateLimitRead {
  limit: Field;
  remaining: Field;
  reset: Field;
  /** True when Reset passed ratelimit.reset-is-timestamp. */
  resetIsTimestamp: boolean;
  /** True when the three are present once, well formed and consistent, and Reset is a timestamp. */
  usable: boolean;
  /** Why `usable` is false, naming the check that judged it. */
  reason: SkipReason;
}

const NAMES = { limit: 'X-RateLimit-Limit', remaining: 'X-RateLimit-Remaining', reset: 'X-RateLimit-Reset' } as const;
type Part = keyof typeof NAMES;
const PARTS: readonly Part[] = ['limit', 'remaining', 'reset'];

interface Fields {
  limit: Field;
  remaining: Field;
  reset: Field;
}

type PresenceCheck = Extract<CheckId, 'ratelimit.headers-present' | 'ratelimit.headers-on-errors'>;

/** Which check judges the presence of the headers on a response with this status, if any. */
export function presenceCheckFor(status: number | null): PresenceCheck | null {
  if (status === null) return null;
  if (is2xx(status) || status === 429) return 'ratelimit.headers-present';
  if (status === 400 || status === 401 || status === 404) return 'ratelimit.headers-on-errors';
  return null;
}

/** ratelimit.headers-present / ratelimit.headers-on-errors: all three, once each. */
function judgePresence(v: View, raw: RateLimitHeaders, r: Recorder): void {
  const id = presenceCheckFor(v.status);
  if (id === null) return;
  if (raw.limit.ok && raw.remaining.ok && raw.reset.ok) return r.pass(id, v.ex);
  const problems: string[] = [];
  for (const p of PARTS) {
    const h = raw[p];
    if (!h.ok && h.problem === 'missing') problems.push(`${NAMES[p]} missing`);
    else if (!h.ok && h.problem === 'repeated') problems.push(`${NAMES[p]} repeated (${h.raw ?? ''})`);
  }
  if (problems.length === 0) return r.pass(id, v.ex);
  // Where the target sends the IETF fields instead, the evidence says so: they do not stand in for X-RateLimit-*.
  const instead = ietfFieldNames(v.ex.headers);
  r.fail(
    id,
    v.ex,
    `${v.status} response: ${problems.join('; ')}${instead.length > 0 ? `; it sends ${instead.join(', ')} instead (the IETF fields; the interface requires X-RateLimit-*)` : ''}`,
  );
}

/** Why a field is missing, naming the presence check that judged it (fixed strings: no per-exchange building). */
const ABSENT_REASON: Record<PresenceCheck, SkipReason> = {
  'ratelimit.headers-present': see('X-RateLimit-* missing or repeated', 'ratelimit.headers-present'),
  'ratelimit.headers-on-errors': see('X-RateLimit-* missing or repeated', 'ratelimit.headers-on-errors'),
};
const SYNTAX_REASON = see('an X-RateLimit-* value is not usable', 'ratelimit.headers-syntax');
const RESET_REASON = see('Reset is not a usable timestamp', 'ratelimit.reset-is-timestamp');

const isMissing = (h: IntHeader): boolean => !h.ok && h.problem === 'missing';

/** One header as a Field, noting a syntax problem in `problems`. */
function syntaxField(h: IntHeader, name: string, presence: PresenceCheck | null, problems: string[]): Field {
  if (h.ok) return h;
  // A repeated header is a list, so a syntax failure, unless a presence check already failed it.
  if (h.problem === 'missing' || (h.problem === 'repeated' && presence !== null))
    return { ok: false, reason: presence === null ? null : ABSENT_REASON[presence] };
  problems.push(`${name} ${JSON.stringify(h.raw ?? '')} is not a plain non-negative integer`);
  return { ok: false, reason: SYNTAX_REASON };
}

/**
 * ratelimit.headers-syntax: each header present is a plain non-negative integer, Limit > 0, Remaining <= Limit.
 * Returns the fields for the other checks. On the hot path: it builds no string unless something is wrong.
 */
function judgeSyntax(v: View, raw: RateLimitHeaders, r: Recorder): Fields {
  const presence = presenceCheckFor(v.status);
  const problems: string[] = [];
  const fields: Fields = {
    limit: syntaxField(raw.limit, NAMES.limit, presence, problems),
    remaining: syntaxField(raw.remaining, NAMES.remaining, presence, problems),
    reset: syntaxField(raw.reset, NAMES.reset, presence, problems),
  };
  if (isMissing(raw.limit) && isMissing(raw.remaining) && isMissing(raw.reset)) return fields;
  const { limit, remaining } = fields;
  if (limit.ok && limit.value === 0) {
    problems.push(`${NAMES.limit} is 0; a limit is at least 1`);
    fields.limit = { ok: false, reason: SYNTAX_REASON };
  } else if (limit.ok && remaining.ok && remaining.value > limit.value) {
    problems.push(`${NAMES.remaining} ${remaining.value} exceeds ${NAMES.limit} ${limit.value}`);
    fields.remaining = { ok: false, reason: SYNTAX_REASON };
  }
  if (problems.length === 0) r.pass('ratelimit.headers-syntax', v.ex);
  else r.fail('ratelimit.headers-syntax', v.ex, problems.join('; '));
  return fields;
}

/** ratelimit.limit-matches-plan: on valid-key responses, Limit is the plan's per-minute or per-day figure. */
function judgeLimitMatchesPlan(v: View, limit: Field, r: Recorder): void {
  const { ex } = v;
  if (ex.auth !== 'valid' || ex.plan === null) return;
  if (!limit.ok) {
    if (limit.reason !== null) r.skip('ratelimit.limit-matches-plan', ex, limit.reason);
    return;
  }
  const figures = v.planLimits;
  if (figures === undefined) return r.skip('ratelimit.limit-matches-plan', ex, `no figures known for plan ${ex.plan}`);
  if (windowOfLimit(limit.value, figures) !== null) return r.pass('ratelimit.limit-matches-plan', ex);
  r.fail(
    'ratelimit.limit-matches-plan',
    ex,
    `Limit ${limit.value} is neither the ${ex.plan} plan's per-minute (${figures.perMinute}) nor per-day (${figures.perDay}) figure`,
  );
}

/** Epoch seconds beyond this (year 5138) are taken for milliseconds. */
const MS_THRESHOLD = 1e11;
/** Epoch seconds below this (2001-09-09) are taken for a number of seconds rather than a timestamp. */
const DELTA_THRESHOLD = 1e9;

/**
 * ratelimit.reset-is-timestamp: `Date - 1 s <= Reset <= Date + window + 1 s` (each 1 s widened by the exchange's
 * duration: the server reads its counter and stamps its Date at moments of its own), the window being the one the
 * Limit describes (60 s or 86 400 s; the day when the Limit cannot be tied to the plan). Milliseconds and
 * seconds-until-reset are named as such. Returns whether Reset is usable as a timestamp.
 */
function judgeResetIsTimestamp(v: View, limit: Field, reset: Field, r: Recorder): boolean {
  const { ex } = v;
  if (!reset.ok) {
    if (reset.reason !== null) r.skip('ratelimit.reset-is-timestamp', ex, reset.reason);
    return false;
  }
  const window = windowSeconds(limit.ok ? limit.value : null, v.planLimits);
  const now = v.nowMs / 1000;
  const value = reset.value;
  // The triple describes the window at some instant while the request was at the server, and the Date may be stamped
  // at either end: the exchange's own duration widens the tolerance (a slow answer is not a Reset defect).
  const slack = 1 + Math.max(0, ex.timing.done - ex.timing.sent) / 1000;
  if (value >= now - slack && value <= now + window + slack) {
    r.pass('ratelimit.reset-is-timestamp', ex);
    return true;
  }
  const ref = `${v.nowSource} ${Math.floor(now)}`;
  let message: string;
  if (value > MS_THRESHOLD) {
    message = `Reset ${value} looks like Unix milliseconds (read as ms it is ${Math.round(value / 1000 - now)} s from ${ref}); expected Unix seconds`;
  } else if (value < DELTA_THRESHOLD) {
    message = `Reset ${value} looks like seconds until reset, not a Unix timestamp (${ref})`;
  } else if (value < now - 1) {
    message = `Reset ${value} is ${Math.round(now - value)} s before ${ref}`;
  } else {
    const limitText = limit.ok ? `Limit ${limit.value}` : 'an unknown Limit';
    message = `Reset ${value} is ${Math.round(value - now)} s after ${ref}, beyond the ${window} s window of ${limitText}`;
  }
  r.fail('ratelimit.reset-is-timestamp', ex, message);
  return false;
}

/** Why the other checks may not use the triple: the first field that is not usable, or null. */
function unusableReason(status: number | null, { limit, remaining, reset }: Fields): SkipReason | null {
  if (!limit.ok) return limit.reason ?? `no ${NAMES.limit} on a ${status} response`;
  if (!remaining.ok) return remaining.reason ?? `no ${NAMES.remaining} on a ${status} response`;
  if (!reset.ok) return reset.reason ?? `no ${NAMES.reset} on a ${status} response`;
  return null;
}

/** Judges the per-response rate-limit checks and returns what they found. */
export function readRateLimit(v: View, r: Recorder): RateLimitRead {
  const raw = rateLimitOf(v.ex);
  judgePresence(v, raw, r);
  const fields = judgeSyntax(v, raw, r);
  const { limit, remaining, reset } = fields;
  judgeLimitMatchesPlan(v, limit, r);
  const resetIsTimestamp = judgeResetIsTimestamp(v, limit, reset, r);
  const unusable = unusableReason(v.status, fields);
  if (unusable !== null) return { limit, remaining, reset, resetIsTimestamp, usable: false, reason: unusable };
  return {
    limit,
    remaining,
    reset,
    resetIsTimestamp,
    usable: resetIsTimestamp,
    reason: resetIsTimestamp ? '' : RESET_REASON,
  };
}
