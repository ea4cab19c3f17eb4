/**
 * ratelimit.algorithm (info): the limiter's shape per plan, read from each valid key's sequence of answers (what
 * the probes and the load already send), never from extra traffic.
 *
 * What tells the shapes apart, between two answers of a key where the second was sent after the first completed
 * (same Limit; times on the target's clock, from Date):
 * - a **rise** of Remaining before the earlier answer's Reset has passed: requests given back while the limiter was
 *   still counting. Within a minute of the key's fresh start it is a refill (a token bucket, GCRA); later, with no
 *   earlier rise, requests sliding out of a trailing minute (a sliding window).
 * - a **move** of Reset (more than 1 s of rounding) before the earlier Reset has passed: a Reset that follows the
 *   requests (a bucket's "full again", a log's "drained") rather than a window's fixed end.
 * - a **hold**: Remaining down by one with the same Reset, as a fixed window shows.
 * - a **slide**: Remaining up by exactly the key's own requests that slid out of the trailing minute in between (at
 *   least one, with some left: not a window starting over), as petload's own log of the key's requests tells it
 *   (sent-log.ts). A sliding log shows nothing else once its requests slide out; a fixed window or a bucket that
 *   rises otherwise contradicts it (a **miss**).
 *
 * Shapes: `fixed-window` (aligned to the clock when every window ends on a whole minute, else from the key's first
 * request), `token-bucket` (burst = Limit, refill from Reset: what is missing over the time to full), `sliding-window`
 * (a log of the trailing minute: slides and hardly a miss, whatever its Reset says, the oldest request's end or the
 * newest's; or Reset about a window ahead of each answer, Remaining never rising within a minute), `unknown`. GCRA and a leaky
 * bucket used as a meter admit exactly as a token bucket does and cannot be told from one outside; they are named
 * together, with the spacing (one request per 1/refill s).
 */
import { MINUTE_MS, MINUTE_S, type PlanLimits, type PlanName } from '../../api/plans.js';
import type { CheckInfo } from '../../report/check-info.js';
import type { Ledger } from '../ledger.js';
import type { CounterReader, RateLimitSample } from './counters.js';
import { readSlide, risesOf, type SentLog } from './sent-log.js';

/** One answer of a valid key with usable X-RateLimit-*: the sample the counters read too. */
export type AlgorithmSample = RateLimitSample;

export type Shape = 'fixed-window' | 'token-bucket' | 'sliding-window' | 'unknown';

/** Shapes whose truthful headers move (Remaining rising, Reset moving forward) within what a fixed window calls one. */
export const MOVING_SHAPES: ReadonlySet<Shape> = new Set(['token-bucket', 'sliding-window']);

const TOLERANCE_MS = 1000;
/** How long one key's Reset must be seen to hold, without a turnover, before the window is called fixed. */
const FIXED_EVIDENCE_MS = 10_000;
/** Refill estimates kept per plan (a bounded sample, enough for a median and a spread). */
const MAX_RATES = 64;
/** A refill is estimated only from a Reset at least this far ahead, where whole-second rounding matters little. */
const RATE_MIN_MS = 5_000;
/** Estimates of one bucket agree within this ratio (rounding); a window's spread over orders of magnitude. */
const RATE_SPREAD = 1.5;

interface PlanFacts {
  pairs: number;
  holds: number;
  /**
   * Holds of an accepted answer whose Reset is less than a window ahead of it: a window's fixed end, which a sliding
   * log (its Reset a window after its newest request) never shows. Without one, a fixed window cannot be told from a
   * log whose requests all came within a second or two.
   */
  aged: number;
  moves: number;
  /** Moves whose new Reset is about a window ahead of the answer (a log drained a window after its newest request). */
  movesAWindowAhead: number;
  earlyRises: number;
  lateRises: number;
  /** Rises by exactly the key's own requests that slid out of the trailing minute, with some left: a log's. */
  slides: number;
  /** Pairs a sliding log does not explain: a rise beyond what slid out, or less than what surely did. */
  slideMisses: number;
  /** Distinct Resets of the minute Limit seen on holds, and how many of them end on a whole minute. */
  resets: Set<number>;
  aligned: number;
  /** A key's Reset passed and its next window ended a window or more later: a window turned over. */
  turnovers: number;
  /** The longest time one key's answers held one Reset (ms): how long a window was watched. */
  longestHoldMs: number;
  /** Refill per second estimated from answers: (Limit - Remaining) / (Reset - Date). */
  rates: number[];
  limit: number | null;
  firstRise: { from: number; to: number; afterMs: number } | null;
}

interface KeyTrack {
  last: AlgorithmSample | null;
  /** Target-clock ms of the key's fresh start (an accepted answer with Limit-1 left), null until seen. */
  start: number | null;
  /** The Reset the key's current stretch began with: a window's stays put, a bucket's or a log's drifts from it. */
  anchor: number | null;
  /** Target-clock ms of the first answer under the current anchor. */
  anchoredAt: number;
}

export interface AlgorithmReader {
  see(plan: PlanName, key: string, limits: PlanLimits | undefined, s: AlgorithmSample): void;
  shapeOf(plan: PlanName | null): Shape;
  /** Whether the plan's limiter was read as a sliding log from its own requests sliding out (not from Reset alone). */
  slidesOf(plan: PlanName | null): boolean;
  /** The info check's outcome per plan that had any answer, with how many independent counters answer a key. */
  record(ledger: Ledger, counters?: Pick<CounterReader, 'countersOf' | 'evidenceOf'>): void;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

/** Several refill estimates that agree: a Reset that tells when a steadily refilled bucket is full again. */
function steadyRefill(rates: readonly number[]): boolean {
  if (rates.length < 3) return false;
  return Math.max(...rates) <= RATE_SPREAD * Math.min(...rates);
}

function newFacts(): PlanFacts {
  return {
    pairs: 0,
    holds: 0,
    aged: 0,
    moves: 0,
    movesAWindowAhead: 0,
    earlyRises: 0,
    lateRises: 0,
    slides: 0,
    slideMisses: 0,
    resets: new Set(),
    aligned: 0,
    turnovers: 0,
    longestHoldMs: 0,
    rates: [],
    limit: null,
    firstRise: null,
  };
}

/**
 * Follow the key's anchor (the Reset its current stretch began with) to answer `s`: count a window turning over, or
 * how long the anchor held. Whether Reset moved before the anchor had passed (it drifted) is returned.
 */
function followAnchor(f: PlanFacts, k: KeyTrack, s: AlgorithmSample): boolean {
  const anchorPassed = k.anchor === null || s.serverMs >= k.anchor * 1000 - TOLERANCE_MS;
  const drifted = !anchorPassed && Math.abs(s.reset - k.anchor!) > 1;
  if (k.anchor !== null && anchorPassed && s.reset - k.anchor >= MINUTE_S - 1 && s.remaining === s.limit - 1)
    f.turnovers++;
  if (anchorPassed || drifted) {
    k.anchor = s.reset;
    k.anchoredAt = s.serverMs;
  } else f.longestHoldMs = Math.max(f.longestHoldMs, s.serverMs - k.anchoredAt);
  return drifted;
}

/** Read the pair of a key's sequential answers `p` then `s`: a rise, a move (Reset drifted) or a hold. */
function readPair(f: PlanFacts, k: KeyTrack, p: AlgorithmSample, s: AlgorithmSample, drifted: boolean): void {
  f.pairs++;
  const beforeReset = s.serverMs < p.reset * 1000 - TOLERANCE_MS;
  if (s.remaining > p.remaining && beforeReset) {
    const afterMs = k.start === null ? Infinity : s.serverMs - k.start;
    if (afterMs < MINUTE_MS - TOLERANCE_MS) f.earlyRises++;
    else f.lateRises++;
    f.firstRise ??= { from: p.remaining, to: s.remaining, afterMs };
    return;
  }
  if (drifted) {
    f.moves++;
    if (s.reset * 1000 - s.serverMs >= MINUTE_MS - 2 * TOLERANCE_MS) f.movesAWindowAhead++;
    return;
  }
  if (s.remaining === p.remaining - 1 || s.remaining === p.remaining) {
    f.holds++;
    if (s.accepted && s.reset * 1000 - s.serverMs <= MINUTE_MS - 2 * TOLERANCE_MS) f.aged++;
    if (!f.resets.has(p.reset)) {
      f.resets.add(p.reset);
      if (p.reset % MINUTE_S === 0) f.aligned++;
    }
  }
}

/** Read the pair `p` then `s` against the key's requests that slid out of the trailing minute in between. */
function readLog(f: PlanFacts, log: SentLog | undefined, p: AlgorithmSample, s: AlgorithmSample): void {
  const slid = log?.slidOut(p, s) ?? null;
  if (slid === null) return;
  const reading = readSlide(risesOf(p, s), slid);
  // Up to Limit-1 again: a window starting over and a drained log look alike.
  if (reading === 'slid' && s.remaining < s.limit - 1) f.slides++;
  else if (reading === 'not-a-log') f.slideMisses++;
}

/** Slides, no rise within a minute of a fresh start (nothing of a log's can slide out yet), hardly a miss. */
const slidesAsALog = (f: PlanFacts): boolean => f.slides > 0 && f.earlyRises === 0 && f.slideMisses * 10 <= f.slides;

function shapeOfFacts(f: PlanFacts | undefined): Shape {
  if (f === undefined || f.pairs === 0) return 'unknown';
  // A rise under a Reset that never drifts is a window's defect (window-consistency's), not a refill.
  if (f.earlyRises > 0 && f.moves > 0) return 'token-bucket';
  if (slidesAsALog(f)) return 'sliding-window';
  if (f.moves >= 2 && f.movesAWindowAhead * 2 >= f.moves) return 'sliding-window';
  if (f.moves >= 2 && steadyRefill(f.rates)) return 'token-bucket';
  // A Reset that held for a while, or a window seen to turn over: a few answers in one second say nothing. And one
  // held under a Reset less than a window ahead: a sliding log's answers in one second look like a window's, and it
  // turns over alike (drained, it starts again).
  if (f.moves === 0 && f.aged > 0 && (f.turnovers > 0 || f.longestHoldMs >= FIXED_EVIDENCE_MS)) return 'fixed-window';
  return 'unknown';
}

/** The limiter's figures, as ratelimit.algorithm's info declares them. */
type Figures = CheckInfo<'ratelimit.algorithm'>;

/** A token bucket's figures: burst, refill and spacing, and the evidence (the first rise, or a steady refill). */
function describeBucket(f: PlanFacts, evidence: string): Figures {
  const rate = median(f.rates);
  const figures: Figures = {
    shape: 'token bucket (or GCRA / leaky bucket: they admit alike)',
    burst: String(f.limit),
  };
  if (Number.isFinite(rate)) {
    figures.refillPerSecond = rate.toFixed(2);
    figures.spacing = `${(1 / rate).toFixed(2)} s`;
  }
  const r = f.firstRise;
  figures.evidence =
    r === null
      ? `${evidence}; Reset tells when the bucket is full again (what is missing over the time to Reset is steady)`
      : `${evidence}; first rise ${r.from} → ${r.to}${Number.isFinite(r.afterMs) ? ` ${(r.afterMs / 1000).toFixed(1)} s after a fresh start` : ''}`;
  return figures;
}

function describe(f: PlanFacts, shape: Shape): Figures {
  const evidence = `${f.pairs} pairs of sequential answers: ${f.holds} with the same Reset (${f.aged} of them less than a window ahead; held up to ${(f.longestHoldMs / 1000).toFixed(0)} s; ${f.turnovers} windows turned over), ${f.moves} with Reset moved before the earlier one had passed, ${f.earlyRises} with Remaining rising within a minute of a fresh start, ${f.lateRises} later, ${f.slides} with Remaining up by exactly the key's own requests that slid out of the trailing minute (${f.slideMisses} that a sliding log does not explain)`;
  switch (shape) {
    case 'fixed-window': {
      const aligned = f.resets.size >= 2 && f.aligned === f.resets.size;
      return {
        shape: aligned ? 'fixed window aligned to the clock' : "fixed window from a key's first request",
        limit: String(f.limit),
        evidence,
      };
    }
    case 'token-bucket':
      return describeBucket(f, evidence);
    case 'sliding-window':
      return { shape: 'sliding window (a log of the trailing minute)', limit: String(f.limit), evidence };
    default:
      return { shape: 'unknown', evidence };
  }
}

/**
 * Several counters answer a key: each keeps the limit alone, so the fleet admits about their number times the figure.
 * Their interleaved answers say nothing reliable of one counter's shape (one's Remaining "rises" to the other's).
 */
function describeInstances(f: PlanFacts, n: number, seen: { keys: number; returns: number } | null): Figures {
  const returns =
    seen === null ? '' : `: ${seen.returns} answers on ${seen.keys} key(s) continued another counter's sequence`;
  return {
    shape: `${n} independent counters: the limit is kept per instance, not for the fleet`,
    counters: String(n),
    limit: String(f.limit),
    evidence: `Remaining sequences that interleave, each going down by one on its own${returns}`,
  };
}

/**
 * `logOf` gives a key's log of its own requests, as sent (the stream judge keeps it): the requests that slide out of
 * the trailing minute between two answers. Without it, no slide is read.
 */
export function createAlgorithmReader(logOf: (key: string) => SentLog | undefined = () => undefined): AlgorithmReader {
  const plans = new Map<PlanName, PlanFacts>();
  const keys = new Map<string, KeyTrack>();

  const factsOf = (plan: PlanName): PlanFacts => {
    let f = plans.get(plan);
    if (f === undefined) plans.set(plan, (f = newFacts()));
    return f;
  };

  const see: AlgorithmReader['see'] = (plan, key, limits, s) => {
    // Only the minute figure's answers: a day window's movement says nothing of the minute's limiter.
    if (limits !== undefined && s.limit !== limits.perMinute) return;
    const f = factsOf(plan);
    f.limit ??= s.limit;
    let k = keys.get(key);
    if (k === undefined) keys.set(key, (k = { last: null, start: null, anchor: null, anchoredAt: s.serverMs }));
    if (s.accepted && s.remaining === s.limit - 1) k.start = s.serverMs;
    const toReset = s.reset * 1000 - s.serverMs;
    // What is missing over the time to full: constant on a bucket; on a window it grows as the window's end nears.
    if (toReset >= RATE_MIN_MS && s.remaining < s.limit && f.rates.length < MAX_RATES)
      f.rates.push((s.limit - s.remaining) / (toReset / 1000));
    const drifted = followAnchor(f, k, s);
    const p = k.last;
    k.last = s;
    if (p === null || p.limit !== s.limit || s.sent <= p.done || p.overlapped || s.overlapped) return;
    readPair(f, k, p, s, drifted);
    readLog(f, logOf(key), p, s);
  };

  const shapeOf = (plan: PlanName | null): Shape => shapeOfFacts(plan === null ? undefined : plans.get(plan));
  const slidesOf = (plan: PlanName | null): boolean => {
    const f = plan === null ? undefined : plans.get(plan);
    return f !== undefined && shapeOfFacts(f) === 'sliding-window' && slidesAsALog(f);
  };

  const record: AlgorithmReader['record'] = (ledger, counters) => {
    for (const [plan, f] of plans) {
      if (f.pairs === 0) {
        ledger.skip(
          'ratelimit.algorithm',
          plan,
          'no two sequential answers of one key with usable X-RateLimit-* to read',
        );
        continue;
      }
      const shape = shapeOf(plan);
      const n = counters?.countersOf(plan) ?? 1;
      const figures =
        n >= 2 ? describeInstances(f, n, counters!.evidenceOf(plan)) : { ...describe(f, shape), counters: '1' };
      ledger.facts('ratelimit.algorithm', plan, figures);
      ledger.pass('ratelimit.algorithm', plan);
    }
  };

  return { see, shapeOf, slidesOf, record };
}
