/**
 * Stream checks: each valid key's sequence of Limit/Remaining/Reset triples, in completion order.
 *
 * - ratelimit.remaining-decrements: every 2xx leaves at most Limit-1 (it was counted); and between two
 *   consecutive exchanges of a key, neither overlapping another request on the key, in the same window:
 *   after a 2xx exactly previous-1; after a non-2xx previous or previous-1 (whether errors count is measured,
 *   not prescribed).
 * - ratelimit.window-consistency: within one window Remaining never rises for a request sent after the
 *   other completed; a Reset that moves (same Limit) before the previous Reset has passed, or sooner than
 *   the window the Limit names, shows a triple that does not describe one window.
 *
 * One defect, one failure: what other checks judge is skipped naming them, by a typed reference
 * (src/checks/skip-reason.ts) where the skip waits on nothing, by a deferral the catalogue declares where it depends
 * on what the run found (held to the end of the run, settled by the ledger: src/checks/deferrals.ts).
 * - A 2xx once the window showed Remaining 0 is an admission past the limit: see ratelimit.enforced. Unless the
 *   key's own requests that slid out of the trailing minute in between explain it (sent-log.ts): room again on a
 *   sliding log, past the limit only on a fixed window; the skip says so, naming ratelimit.algorithm too.
 * - Remaining lower than this key's own requests explain, when requests with other keys or without a valid key
 *   completed in between, at least as many as the shortfall: those may have been counted against this key, which
 *   ratelimit.key-isolation and auth.no-quota-drain judge (see them).
 * - Remaining that rises where requests on the key were in flight together may be a counter losing concurrent
 *   updates (a late write): held, deferred to ratelimit.no-over-admission (when it failed in the run); a rise in
 *   strictly sequential traffic is held as the headers' movement.
 * - The headers' movement (Remaining rising, Reset moving too soon or forward with the requests): held, deferred to
 *   ratelimit.algorithm's reading of the limiter (the truth of a bucket or a sliding window; a shape it cannot tell)
 *   and to ratelimit.enforced (a window that restarts too soon, when that check failed), else failed.
 * - Remaining up, from one answer of a key to the next, by exactly the key's own requests that slid out of the
 *   trailing minute in between (the key's log of its requests: sent-log.ts): a sliding log's count. Held, deferred to
 *   ratelimit.algorithm unless it read a fixed window; any other rise is excused only where it read a bucket or a
 *   sliding window from its Reset, not where the key's own requests showed a log (which they do not explain).
 * - A Limit that is the plan's per-day figure (and not its per-minute one) on windows that last a minute (a Reset
 *   that moved, by a minute or more, to at most a minute away): the minute window is announced with the wrong
 *   figure. That is the Limit not matching the plan (ratelimit.limit-matches-plan fails it here, where the window is
 *   known); window-consistency holds it, deferred to that failure.
 *
 * "Sent after the other completed" is strictly after: a request sent in the same instant another completed
 * may have reached the server first, so their order is unknown (a property test of stream.test.ts found a correct
 * server failed when the same instant counted as after). "Same window" is the same Limit with Resets at most
 * 1 s apart (whole-second rounding). Only triples the per-response checks accepted (syntax, and Reset as a
 * timestamp) are used; others skip naming those checks and break the chain, since the exchange may have been
 * counted. State is per key and bounded.
 */
import { MINUTE_MS, MINUTE_S, WINDOW_SECONDS, windowOfLimit } from '../../api/plans.js';
import type { PlanName } from '../../api/plans.js';
import type { Exchange } from '../../http/exchange.js';
import { ietfTriple } from '../../http/ratelimit-fields.js';
import type { HeldKind } from '../catalogue.js';
import type { LimiterReading } from '../deferrals.js';
import { MAX_EVIDENCE, type Ledger } from '../ledger.js';
import { see, type SkipReason } from '../skip-reason.js';
import { createAlgorithmReader, MOVING_SHAPES, type AlgorithmReader } from './algorithm.js';
import { createCounterReader, type CounterReader } from './counters.js';
import type { RateLimitRead } from './ratelimit.js';
import { readSlide, risesOf, SentLog } from './sent-log.js';
import { is2xx, type Recorder, type View } from './view.js';

interface Seen {
  limit: number;
  remaining: number;
  reset: number;
  status: number;
  overlapped: boolean;
  sent: number;
  done: number;
  /** The run's counts of completed exchanges with other valid keys, and without a valid key, once this one completed. */
  otherKeys: number;
  noKey: number;
}

interface WindowMin {
  limit: number;
  reset: number;
  min: number;
  /** Any of them overlapped another request on the key. */
  overlapped: boolean;
}

interface KeyState {
  /** The previous exchange in completion order; null when it had no usable triple. */
  last: Seen | null;
  /** The most recent exchanges, oldest first, for the never-rises rule across overlapping requests. */
  recent: Seen[];
  /** The lowest Remaining of exchanges dropped from `recent`, for one window. */
  settled: WindowMin | null;
  /** Per Limit, the exchange with the latest Reset: the window a new Reset must follow. */
  latestByLimit: Map<number, Seen>;
  /** The Limit updated last in latestByLimit (its last entry). */
  newestLimit: number | null;
  /** Completed exchanges of this key. */
  own: number;
  /** The key's requests of the last minute, as sent: what a sliding log's Remaining rises by (sent-log.ts). */
  readonly log: SentLog;
}

const RECENT = 16;
/** Distinct Limits remembered per key; a target that sends more is already failing limit-matches-plan. */
const MAX_LIMITS = 4;
const OVERLAP_REASON = 'overlapped another request on the same key: their order at the server is unknown';

function sameWindow(a: { limit: number; reset: number }, b: { limit: number; reset: number }): boolean {
  return a.limit === b.limit && Math.abs(a.reset - b.reset) <= 1;
}

function describe(s: Seen): string {
  return `Limit ${s.limit}, Remaining ${s.remaining}, Reset ${s.reset}, status ${s.status}`;
}

export const EXHAUSTED_REASON = see(
  'a 2xx after the window showed Remaining 0: an admission past the limit',
  'ratelimit.enforced',
);
/** A 2xx after Remaining 0 where the key's own requests of a minute before slid out in between (sent-log.ts). */
export const SLID_AFTER_EXHAUSTED_REASON = see(
  "a 2xx after the window showed Remaining 0, once the key's own requests of the minute before slid out: room again on a sliding log, an admission past the limit on a fixed window",
  'ratelimit.algorithm',
  'ratelimit.enforced',
);
const FELL = "Remaining fell further than this key's requests explain";
export const FOREIGN_REASONS = {
  otherKeys: see(`${FELL}, while other keys sent: whether they share its counter is judged`, 'ratelimit.key-isolation'),
  noKey: see(
    `${FELL}, while requests without a valid key were sent: whether they count is judged`,
    'auth.no-quota-drain',
  ),
  both: see(
    `${FELL}, while other keys and requests without a valid key were sent`,
    'ratelimit.key-isolation',
    'auth.no-quota-drain',
  ),
} as const;
const NO_RESPONSE = see('no response', 'contract.transport');

type PairVerdict = { ok: true } | { ok: false; message: string } | { skip: SkipReason };
const PAIR_OK: PairVerdict = { ok: true };

/** What is wrong between two consecutive, sequential exchanges of one window. */
function judgePair(prev: Seen, cur: Seen): PairVerdict {
  if (is2xx(cur.status) && prev.remaining === 0) return { skip: EXHAUSTED_REASON };
  // After a non-2xx, a 2xx may also show previous (not previous-1): a server may count an error and then
  // refund it once answered (e.g. a skip-failed-requests option), so that the error's Remaining read one low.
  const onlyDecrement = is2xx(cur.status) && is2xx(prev.status);
  if (cur.remaining === prev.remaining - 1 || (!onlyDecrement && cur.remaining === prev.remaining)) return PAIR_OK;
  const lowest = prev.remaining - 1;
  if (cur.remaining < lowest) {
    // Each request of another key, or without a valid key, completed in between may have been counted here.
    const otherKeys = cur.otherKeys - prev.otherKeys;
    const noKey = cur.noKey - prev.noKey;
    if (lowest - cur.remaining <= otherKeys + noKey) {
      return {
        skip: noKey === 0 ? FOREIGN_REASONS.otherKeys : otherKeys === 0 ? FOREIGN_REASONS.noKey : FOREIGN_REASONS.both,
      };
    }
  }
  const allowed = onlyDecrement ? [prev.remaining - 1] : [prev.remaining, prev.remaining - 1].filter((x) => x >= 0);
  return {
    ok: false,
    message: `Remaining ${cur.remaining} on a ${cur.status} after (${describe(prev)}) in the same window; expected ${allowed.join(' or ')}`,
  };
}

export interface StreamJudge {
  (v: View, rl: RateLimitRead | null, r: Recorder): void;
  /**
   * Hand what was held back to the ledger, which settles it with the catalogue's deferrals at the end of the run
   * (`Ledger.resolveDeferrals`): rises under concurrency, the headers' movement and a day's figure on minute
   * windows; then record ratelimit.algorithm itself.
   */
  finish(ledger: Ledger): void;
  /** The limiter's shape per plan, as read so far. */
  readonly algorithm: AlgorithmReader;
  /** What the limiter's shape on the plan makes of the headers' movement, as read so far (the deferrals read it). */
  limiterOf(plan: PlanName | null): LimiterReading;
  /** How many independent counters answer a key, per plan, as read so far. */
  readonly counters: CounterReader;
}

/** Rises under concurrency held per plan: their count and the first few for evidence. */
interface HeldRises {
  count: number;
  first: { ex: Exchange; message: string }[];
}

type HeldCheck = 'ratelimit.remaining-decrements' | 'ratelimit.window-consistency';

/** Hold one judgement of a plan: counted, with the first few kept for evidence. */
function holdIn(byPlan: Map<PlanName | null, HeldRises>, ex: Exchange, message: string): void {
  let h = byPlan.get(ex.plan);
  if (h === undefined) byPlan.set(ex.plan, (h = { count: 0, first: [] }));
  h.count++;
  if (h.first.length < MAX_EVIDENCE) h.first.push({ ex, message });
}

/**
 * Judgements held to the end of the run, when the limiter's shape and the other checks' outcomes are known. Rises
 * of Remaining and moves of Reset within what a fixed window calls one are, on a token bucket or a sliding window,
 * their truthful movement, not a defect (the over-admission a refill causes is ratelimit.enforced's).
 */
interface Held {
  /** Rises of Remaining under concurrency, per plan. */
  readonly rises: Map<PlanName | null, HeldRises>;
  /** The headers' movement, per check and plan, until the limiter's shape is known (the end of the run). */
  readonly moving: Map<HeldCheck, Map<PlanName | null, HeldRises>>;
  /**
   * Resets moved forward with the requests (a window after an accepted answer), per plan: a sliding log's truth, a
   * fixed window's defect; which one is known once the limiter's shape is, if the evidence tells at all.
   */
  readonly forward: Map<PlanName | null, HeldRises>;
  /** A day's figure announced on windows of a minute (ratelimit.limit-matches-plan's failure), per plan. */
  readonly dayFigure: Map<PlanName | null, HeldRises>;
  /**
   * Rises of Remaining by exactly the key's own requests that slid out of the trailing minute, per plan: a sliding
   * log's truth, a fixed window's defect; which one is known once the limiter's shape is.
   */
  readonly slid: Map<PlanName | null, HeldRises>;
  /**
   * Remaining fell further than the key's requests and the other requests answered in between explain, per plan: a
   * defect of the counter, or, on a target whose keys share one, other keys' requests counted before this one whose
   * answers came back after it (a long link's order); which one is known once key-isolation is judged.
   */
  readonly fellFurther: Map<PlanName | null, HeldRises>;
}

function holdMoving(held: Held, id: HeldCheck, ex: Exchange, message: string): void {
  let byPlan = held.moving.get(id);
  if (byPlan === undefined) held.moving.set(id, (byPlan = new Map()));
  holdIn(byPlan, ex, message);
}

function stateOf(keys: Map<string, KeyState>, label: string): KeyState {
  let st = keys.get(label);
  if (st === undefined)
    keys.set(
      label,
      (st = {
        last: null,
        recent: [],
        settled: null,
        latestByLimit: new Map(),
        newestLimit: null,
        own: 0,
        log: new SentLog(MINUTE_MS),
      }),
    );
  return st;
}

/** Keep `cur` as the key's last exchange, among its recent ones, and as its Limit's latest window if it is. */
function remember(st: KeyState, cur: Seen): void {
  st.last = cur;
  st.recent.push(cur);
  if (st.recent.length > RECENT) {
    const old = st.recent.shift()!;
    // Updated in place: this runs for nearly every exchange of a load run.
    if (st.settled !== null && sameWindow(st.settled, old)) {
      st.settled.min = Math.min(st.settled.min, old.remaining);
      st.settled.overlapped ||= old.overlapped;
    } else st.settled = { limit: old.limit, reset: old.reset, min: old.remaining, overlapped: old.overlapped };
  }
  const latest = st.latestByLimit.get(cur.limit);
  if (latest === undefined || cur.reset >= latest.reset) {
    if (cur.limit === st.newestLimit) {
      // Already the most recent entry: replaced in place. Deleting and adding again on every exchange would
      // make V8 rebuild the map's table every few exchanges, and a discarded table keeps a pointer to its
      // successor: once one of them is in the old generation, every later table (with what it holds) survives
      // the young-generation collections that follow (measured: scavenges 5x longer, throughput -15%).
      st.latestByLimit.set(cur.limit, cur);
    } else {
      // Moved to the end, so that the least recently updated Limit is the one dropped.
      st.latestByLimit.delete(cur.limit);
      st.latestByLimit.set(cur.limit, cur);
      st.newestLimit = cur.limit;
      if (st.latestByLimit.size > MAX_LIMITS) st.latestByLimit.delete(st.latestByLimit.keys().next().value!);
    }
  }
}

/**
 * Whether Remaining rose from `prev` to `cur` by exactly the key's own requests that slid out of the trailing minute in
 * between (at least one), as a sliding log's does: the count, said for the evidence; null when it did not.
 * `afterExhausted`: `prev` showed Remaining 0 and `cur` is a 2xx, which a plain count cannot explain (it would have
 * refused): at least one request must have slid out.
 */
function slidOut(st: KeyState, prev: Seen, cur: Seen, v: View, afterExhausted = false): string | null {
  if (v.planLimits === undefined || windowOfLimit(cur.limit, v.planLimits) !== 'minute') return null;
  const slid = st.log.slidOut(prev, cur);
  if (slid === null) return null;
  const p = { remaining: prev.remaining, accepted: is2xx(prev.status) };
  const rises = risesOf(p, { remaining: cur.remaining, accepted: is2xx(cur.status) });
  if (readSlide(afterExhausted ? rises.filter((x) => x >= 1) : rises, slid) !== 'slid') return null;
  const count = slid.lo === slid.hi ? `${slid.lo}` : `between ${slid.lo} and ${slid.hi}`;
  return `${count} of the key's own requests slid out of the trailing minute in between`;
}

function judgeDecrements(st: KeyState, cur: Seen, v: View, r: Recorder, held: Held): void {
  // Made on the first problem: the passing path, nearly every exchange of a load, allocates nothing.
  let problems: string[] | null = null;
  let judged = false;
  let skipped: SkipReason | null = null;
  if (is2xx(cur.status)) {
    judged = true;
    if (cur.remaining > cur.limit - 1) {
      (problems ??= []).push(
        `a ${cur.status} shows Remaining ${cur.remaining} of Limit ${cur.limit}: the request it answers was not counted (at most ${cur.limit - 1} can remain)`,
      );
    }
  }
  const prev = st.last;
  if (prev !== null && sameWindow(prev, cur)) {
    if (prev.overlapped || cur.overlapped || cur.sent <= prev.done) skipped = OVERLAP_REASON;
    else {
      const p = judgePair(prev, cur);
      if ('skip' in p && p.skip === EXHAUSTED_REASON) {
        // Not the limit overrun it looks like where the key's own requests slid out of a log in between.
        skipped = slidOut(st, prev, cur, v, true) === null ? p.skip : SLID_AFTER_EXHAUSTED_REASON;
      } else if ('skip' in p) skipped = p.skip;
      else if (!p.ok && cur.remaining > prev.remaining - 1 && problems === null) {
        // Higher than this key's request leaves: its requests sliding out of a log, requests given back (a refill),
        // or a defect of a fixed window.
        const slid = slidOut(st, prev, cur, v);
        if (slid !== null) return holdIn(held.slid, v.ex, `${p.message}; ${slid}`);
        return holdMoving(held, 'ratelimit.remaining-decrements', v.ex, p.message);
      } else if (!p.ok && cur.remaining < prev.remaining - 1 && problems === null) {
        return holdIn(held.fellFurther, v.ex, p.message);
      } else {
        judged = true;
        if (!p.ok) (problems ??= []).push(p.message);
      }
    }
  }
  if (problems !== null) r.fail('ratelimit.remaining-decrements', v.ex, problems.join('; '));
  // An overlapped 2xx was still judged on its own (Remaining below Limit); a pair another check owns was not.
  else if (skipped !== null && (!judged || skipped !== OVERLAP_REASON))
    r.skip('ratelimit.remaining-decrements', v.ex, skipped);
  else if (judged) r.pass('ratelimit.remaining-decrements', v.ex);
}

/** Whether the exchange `e` completed before `cur` was sent, in the same window: an order the server saw. */
const before = (e: Seen, cur: Seen): boolean => e.done < cur.sent && sameWindow(e, cur);

/** Whether the exchanges dropped from `recent` (st.settled) completed before `cur` was sent, in its window. */
function settledBefore(st: KeyState, cur: Seen): boolean {
  const oldest = st.recent[0];
  // Exchanges dropped from `recent` completed before its oldest one: usable when that one is, too.
  return st.settled !== null && oldest !== undefined && cur.sent > oldest.done && sameWindow(st.settled, cur);
}

/** The lowest Remaining of the key's remembered exchanges of the window that completed before `cur` was sent. */
function lowestBefore(st: KeyState, cur: Seen): number {
  let low = Infinity;
  for (const e of st.recent) if (before(e, cur)) low = Math.min(low, e.remaining);
  if (settledBefore(st, cur)) low = Math.min(low, st.settled!.min);
  return low;
}

/** Whether requests on the key were in flight together where Remaining rose: this one, or a lower one before it. */
function roseInFlightTogether(st: KeyState, cur: Seen): boolean {
  if (cur.overlapped) return true;
  for (const e of st.recent) if (before(e, cur) && e.overlapped && e.remaining < cur.remaining) return true;
  return settledBefore(st, cur) && st.settled!.overlapped && st.settled!.min < cur.remaining;
}

/**
 * A new Reset for the same Limit: not judged (none), or judged with what moved too soon (null when nothing did) and
 * a day's figure announced on windows of a minute (null unless so).
 */
type NewReset =
  | { judged: false }
  | { judged: true; moved: string | null; minuteLimitWrong: string | null; withRequests?: boolean };
const NO_NEW_RESET: NewReset = { judged: false };

/** A new Reset for the same Limit must follow the end of the previous window, at least a window later. */
function judgeNewReset(st: KeyState, cur: Seen, v: View): NewReset {
  const p = st.latestByLimit.get(cur.limit);
  if (p === undefined || cur.sent <= p.done || Math.abs(cur.reset - p.reset) <= 1) return NO_NEW_RESET;
  const nowS = v.nowMs / 1000;
  const window = v.planLimits === undefined ? null : windowOfLimit(cur.limit, v.planLimits);
  if (nowS < p.reset - 1) {
    const moved = `Reset moved from ${p.reset} to ${cur.reset} (Limit ${cur.limit}) at ${v.nowSource} ${Math.floor(nowS)}, before the earlier window was due to end`;
    // Forward, to a window after an accepted answer, with the count going on (no restart): where a sliding log's
    // Reset goes with each request.
    const withRequests =
      window !== null &&
      is2xx(cur.status) &&
      cur.remaining <= p.remaining &&
      cur.reset > p.reset &&
      cur.reset - nowS >= WINDOW_SECONDS[window] - 2 &&
      cur.reset - nowS <= WINDOW_SECONDS[window] + 2;
    return { judged: true, moved, minuteLimitWrong: null, withRequests };
  }
  if (window !== null && cur.reset - p.reset < WINDOW_SECONDS[window] - 1) {
    // A Limit that matches no figure of the plan is limit-matches-plan's failure; its window is unknown.
    const apart = cur.reset - p.reset;
    // The new window began between the old one's end and this response: it lasts between Reset-now and
    // `apart` seconds. A minute fits when Reset is at most a minute away and the Resets a minute or more apart.
    if (window === 'day' && cur.reset - nowS <= MINUTE_S + 1 && apart >= MINUTE_S - 1 && v.planLimits !== undefined) {
      // Windows of a minute: the Limit is the minute window's, with the day's figure.
      const minuteLimitWrong = `Limit ${cur.limit} is the ${v.ex.plan ?? ''} plan's per-day figure, but it is announced on windows of a minute (consecutive Resets ${p.reset} → ${cur.reset}); the per-minute figure is ${v.planLimits.perMinute}`;
      return { judged: true, moved: null, minuteLimitWrong };
    }
    // A window that ended too soon, or a Reset that follows the requests (a bucket full again, a log drained):
    // which one is known once the limiter's shape is (ratelimit.algorithm).
    const moved = `Limit ${cur.limit} names a ${WINDOW_SECONDS[window]} s window, but consecutive Resets are ${apart} s apart (${p.reset} → ${cur.reset})`;
    return { judged: true, moved, minuteLimitWrong: null };
  }
  return { judged: true, moved: null, minuteLimitWrong: null };
}

function judgeConsistency(st: KeyState, cur: Seen, v: View, r: Recorder, held: Held): void {
  let judged = false;

  // Never rises: against every remembered exchange of the window that completed before this one was sent.
  // A rise where requests on the key were in flight together (this one, or a lower one) may be a late write of a
  // counter that loses concurrent updates: held to the end of the run, then skipped naming
  // ratelimit.no-over-admission if that check found such a counter, else failed.
  const low = lowestBefore(st, cur);
  let rise: string | null = null;
  let moved: string | null = null;
  if (low !== Infinity) {
    if (cur.remaining <= low) judged = true;
    else {
      const message = `Remaining rose from ${low} to ${cur.remaining} within one window (Limit ${cur.limit}, Reset ${cur.reset}), on a request sent after the other completed`;
      if (roseInFlightTogether(st, cur)) rise = message;
      else moved = message;
    }
  }

  const reset = judgeNewReset(st, cur, v);
  let minuteLimitWrong: string | null = null;
  if (reset.judged) {
    judged = true;
    if (reset.moved !== null && reset.withRequests === true && moved === null && rise === null)
      return holdIn(held.forward, v.ex, reset.moved);
    if (reset.moved !== null) moved = moved === null ? reset.moved : `${moved}; ${reset.moved}`;
    minuteLimitWrong = reset.minuteLimitWrong;
  }

  if (minuteLimitWrong !== null) {
    r.fail('ratelimit.limit-matches-plan', v.ex, minuteLimitWrong);
    if (moved === null) return holdIn(held.dayFigure, v.ex, minuteLimitWrong);
  }
  if (moved !== null) holdMoving(held, 'ratelimit.window-consistency', v.ex, moved);
  else if (rise !== null) holdIn(held.rises, v.ex, rise);
  else if (judged) r.pass('ratelimit.window-consistency', v.ex);
}

/**
 * An answer without a usable X-RateLimit-* triple: the stream checks skip it and the key's chain breaks. A target
 * that sends only the IETF fields: its limiter's shape is read from them (the stream checks judge X-RateLimit-*
 * alone).
 */
function skipUnusable(v: View, rl: RateLimitRead | null, r: Recorder, st: KeyState, algorithm: AlgorithmReader): void {
  const { ex } = v;
  if (rl !== null && v.status !== null && ex.plan !== null && !rl.limit.ok && !rl.remaining.ok && !rl.reset.ok) {
    const t = ietfTriple(ex.headers, v.nowMs);
    if (t !== null) {
      const sample = {
        ...t,
        serverMs: v.nowMs,
        sent: ex.timing.sent,
        done: ex.timing.done,
        accepted: is2xx(v.status),
        overlapped: ex.overlapped,
      };
      algorithm.see(ex.plan, ex.keyLabel!, v.planLimits, sample);
    }
  }
  const reason = rl === null ? NO_RESPONSE : rl.reason;
  r.skip('ratelimit.remaining-decrements', ex, reason);
  r.skip('ratelimit.window-consistency', ex, reason);
  st.last = null;
}

/**
 * Hand what was held to the ledger, which settles it at the end of the run with the deferrals the catalogue declares
 * for its kind (several counters, a counter losing concurrent requests, the limiter's shape, a window that restarts
 * too soon, a day's figure on minute windows), else as failures.
 */
function handOver(ledger: Ledger, held: Held): void {
  const give = (id: HeldCheck, kind: HeldKind, byPlan: Map<PlanName | null, HeldRises>) => {
    for (const [plan, h] of byPlan) ledger.hold(id, plan, { kind, ...h });
    byPlan.clear();
  };
  give('ratelimit.window-consistency', 'concurrent-rise', held.rises);
  for (const [id, byPlan] of held.moving) give(id, 'short-window', byPlan);
  give('ratelimit.window-consistency', 'forward-reset', held.forward);
  give('ratelimit.window-consistency', 'day-figure', held.dayFigure);
  give('ratelimit.remaining-decrements', 'slid-out', held.slid);
  give('ratelimit.remaining-decrements', 'fell-further', held.fellFurther);
}

/** What a limiter's shape makes of the headers' movement (src/checks/deferrals.ts). */
function readingOf(algorithm: AlgorithmReader, plan: PlanName | null): LimiterReading {
  const shape = algorithm.shapeOf(plan);
  if (algorithm.slidesOf(plan)) return 'log';
  return MOVING_SHAPES.has(shape) ? 'moves' : shape === 'unknown' ? 'unknown' : 'still';
}

export function createStreamJudge(): StreamJudge {
  const keys = new Map<string, KeyState>();
  const algorithm = createAlgorithmReader((key) => keys.get(key)?.log);
  const counters = createCounterReader();
  const held: Held = {
    rises: new Map(),
    moving: new Map(),
    forward: new Map(),
    dayFigure: new Map(),
    slid: new Map(),
    fellFurther: new Map(),
  };

  // Completed exchanges of the run, by credential: with a valid key (per key, and in all), without one.
  let validKey = 0;
  let noKey = 0;

  const judge = (v: View, rl: RateLimitRead | null, r: Recorder): void => {
    const { ex } = v;
    if (ex.auth !== 'valid' || ex.keyLabel === null) {
      noKey++;
      return;
    }
    validKey++;
    const st = stateOf(keys, ex.keyLabel);
    st.own++;
    // Logged once judged (its own pair reads the requests before it): a 2xx was surely counted, anything else may be.
    const counted = is2xx(v.status) ? 'surely' : 'maybe';
    if (rl === null || !rl.usable || v.status === null || !rl.limit.ok || !rl.remaining.ok || !rl.reset.ok) {
      skipUnusable(v, rl, r, st, algorithm);
      st.log.add(ex.timing.sent, ex.timing.done, counted);
      return;
    }
    const cur: Seen = {
      limit: rl.limit.value,
      remaining: rl.remaining.value,
      reset: rl.reset.value,
      status: v.status,
      overlapped: ex.overlapped,
      sent: ex.timing.sent,
      done: ex.timing.done,
      otherKeys: validKey - st.own,
      noKey,
    };
    if (ex.plan !== null) {
      const sample = {
        limit: cur.limit,
        remaining: cur.remaining,
        reset: cur.reset,
        serverMs: v.nowMs,
        sent: cur.sent,
        done: cur.done,
        accepted: is2xx(cur.status),
        overlapped: cur.overlapped,
      };
      algorithm.see(ex.plan, ex.keyLabel, v.planLimits, sample);
      counters.see(ex.plan, ex.keyLabel, sample);
    }
    judgeDecrements(st, cur, v, r, held);
    judgeConsistency(st, cur, v, r, held);
    remember(st, cur);
    st.log.add(cur.sent, cur.done, counted);
  };
  const finish = (ledger: Ledger): void => {
    handOver(ledger, held);
    algorithm.record(ledger, counters);
  };
  const limiterOf = (plan: PlanName | null) => readingOf(algorithm, plan);
  return Object.assign(judge, { finish, algorithm, counters, limiterOf });
}
