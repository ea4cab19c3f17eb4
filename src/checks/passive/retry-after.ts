/**
 * 429 checks: exactly one Retry-After, in a form a sender may generate, asking for a plausible wait.
 * Returns the wait for the client-discipline check. (The 429's body is judged in error-body.ts.)
 */
import { DAY_S } from '../../api/plans.js';
import { headerValues } from '../../http/exchange.js';
import { isImfFixdate, parseRetryAfter } from '../../http/headers.js';
import type { PlanLimits, PlanName } from '../../api/plans.js';
import type { Exchange } from '../../http/exchange.js';
import type { CheckId } from '../catalogue.js';
import { readRateLimit, type RateLimitRead } from './ratelimit.js';
import { createViewer, windowSeconds, type Recorder, type View } from './view.js';
import { see, type SkipReason } from '../skip-reason.js';

/** The wait a 429 asks for, when its Retry-After is usable. */
export interface RetryAfterWait {
  raw: string;
  /** Seconds from the response (negative for an HTTP-date already past), measured from the view's reference time. */
  waitS: number;
  /** For the HTTP-date form, the instant it names (epoch ms); null for delay-seconds. */
  untilEpochMs: number | null;
  /** The Reset instant (epoch ms) when Reset bounds the wait; null when the bound is a window length. */
  resetEpochMs: number | null;
  /** The longest wait this response can justify, in seconds (see `plausibleBound`). */
  boundS: number;
}

/**
 * The longest wait a 429 can justify: `Reset - Date + 1 s` when Reset is a usable timestamp, else the
 * window length of the Limit (+1 s). Chosen: when the 429 shows Remaining > 0, the window that refused is
 * not the one the triple describes (the server reports another of its windows), so its Reset does not bound
 * the wait; the longest window does. A 429 without its own Date is read on the local clock (or an earlier Date's
 * offset) at its completion, while the server wrote it as early as the request's send: the answer's time in transit
 * (a busy machine's late read included) is added to the bound.
 */
export function plausibleBound(
  v: View,
  rl: RateLimitRead,
): { boundS: number; basis: string; resetEpochMs: number | null } {
  if (!rl.reset.ok || !rl.resetIsTimestamp) {
    const w = windowSeconds(rl.limit.ok ? rl.limit.value : null, v.planLimits);
    return { boundS: w + 1, basis: `the ${w} s window length (Reset is not usable)`, resetEpochMs: null };
  }
  if (rl.remaining.ok && rl.remaining.value > 0) {
    return {
      boundS: DAY_S + 1,
      basis: `the ${DAY_S} s day window (Remaining ${rl.remaining.value}: another window refused)`,
      resetEpochMs: null,
    };
  }
  const transitMs = v.nowSource === 'Date' ? 0 : Math.max(0, v.ex.timing.done - v.ex.timing.sent);
  const boundS = rl.reset.value - v.nowMs / 1000 + 1 + transitMs / 1000;
  const tolerance = transitMs > 0 ? `1 s tolerance, and its ${transitMs} ms in transit: no Date` : '1 s tolerance';
  return {
    boundS,
    basis: `the ${Math.round(boundS)} s until Reset (${tolerance})`,
    resetEpochMs: rl.reset.value * 1000,
  };
}

const EPOCH_S = 1e9;
const EPOCH_MS = 1e11;

function implausibility(raw: string, kind: 'seconds' | 'date', waitS: number, boundS: number, basis: string): string {
  const base = `Retry-After ${raw} asks for ${Math.round(waitS)} s, more than ${basis}`;
  if (kind === 'seconds' && waitS >= EPOCH_MS)
    return `${base}: it looks like an epoch timestamp in milliseconds, not delay-seconds`;
  if (kind === 'seconds' && waitS >= EPOCH_S) return `${base}: it looks like an epoch timestamp, not delay-seconds`;
  // Read as milliseconds it fits, and it is far too large as seconds: a thousand times too large, give or take rounding.
  if (kind === 'seconds' && waitS / 1000 <= boundS && waitS >= 100 * boundS)
    return `${base}: it looks like milliseconds`;
  return base;
}

/** Judges the 429 checks (nothing for other statuses); returns the usable wait, or null. */
export function judgeRetryAfter(v: View, rl: RateLimitRead, r: Recorder): RetryAfterWait | null {
  const { ex } = v;
  if (v.status !== 429) return null;
  const values = headerValues(ex.headers, 'retry-after');

  // retry-after.present
  if (values.length !== 1) {
    r.fail(
      'retry-after.present',
      ex,
      values.length === 0 ? 'a 429 without Retry-After' : `Retry-After repeated: ${values.join(' | ')}`,
    );
    r.skip('retry-after.syntax', ex, NOT_SINGLE);
    r.skip('retry-after.plausible', ex, NOT_SINGLE);
    return null;
  }
  r.pass('retry-after.present', ex);
  const raw = values[0]!;
  const parsed = parseRetryAfter(raw);

  // retry-after.syntax: delay-seconds or IMF-fixdate (the obsolete date forms are readable, not sendable).
  if (parsed.kind === 'seconds' || isImfFixdate(raw)) r.pass('retry-after.syntax', ex);
  else if (parsed.kind === 'date')
    r.fail(
      'retry-after.syntax',
      ex,
      `Retry-After ${JSON.stringify(raw)} is an obsolete HTTP-date form; a sender must use IMF-fixdate`,
    );
  else r.fail('retry-after.syntax', ex, `Retry-After ${JSON.stringify(raw)} is neither delay-seconds nor an HTTP-date`);

  // retry-after.plausible: judged on any readable value, even an obsolete date form (one defect, one failure).
  if (parsed.kind === 'malformed') {
    r.skip('retry-after.plausible', ex, NOT_READABLE);
    return null;
  }
  const waitS = parsed.kind === 'seconds' ? parsed.seconds : (parsed.epochMs - v.nowMs) / 1000;
  const { boundS, basis, resetEpochMs } = plausibleBound(v, rl);
  if (waitS <= boundS) r.pass('retry-after.plausible', ex);
  else r.fail('retry-after.plausible', ex, implausibility(JSON.stringify(raw), parsed.kind, waitS, boundS, basis));
  return { raw, waitS, untilEpochMs: parsed.kind === 'date' ? parsed.epochMs : null, boundS, resetEpochMs };
}

/** What a probe may wait on: a 429's Retry-After read as the 429 checks read it, or why not, naming the check. */
export type ProbeWait = { ok: true; waitMs: number } | { ok: false; reason: SkipReason };

const NOT_SINGLE = see('no single Retry-After', 'retry-after.present');
const NOT_READABLE = see('Retry-After is not readable', 'retry-after.syntax');
const TOO_LONG = see('Retry-After asks for a longer wait than its window can justify', 'retry-after.plausible');

const DISCARD: Recorder = { pass() {}, fail() {}, skip() {}, info() {} };

/**
 * For probes that wait on a 429's Retry-After (retry-after.honest, the quota probes): the wait it asks for, by the
 * same rules as retry-after.present, .syntax and .plausible, or why it is not to be waited on, naming the check that
 * judges that defect (a Retry-After in milliseconds is plausible's failure, not a wait to judge as honest).
 */
export function retryAfterForProbe(ex: Exchange, planLimits: PlanLimits | undefined): ProbeWait {
  const plans = new Map<PlanName, PlanLimits>();
  if (ex.plan !== null && planLimits !== undefined) plans.set(ex.plan, planLimits);
  const v = createViewer(plans)(ex);
  const failed = new Set<CheckId>();
  const r: Recorder = { ...DISCARD, fail: (id) => void failed.add(id) };
  const wait = judgeRetryAfter(v, readRateLimit(v, DISCARD), r);
  if (failed.has('retry-after.present')) return { ok: false, reason: NOT_SINGLE };
  if (wait === null) return { ok: false, reason: NOT_READABLE };
  if (failed.has('retry-after.plausible')) return { ok: false, reason: TOO_LONG };
  return {
    ok: true,
    waitMs: Math.max(0, wait.untilEpochMs === null ? wait.waitS * 1000 : wait.untilEpochMs - v.nowMs),
  };
}
