/**
 * The backoff policy: per key, when it may be sent on again, and whether it is suspected banned.
 *
 * - After a refusal, the key waits the larger of what the target says (Retry-After and Reset, see `ends`)
 *   and a full-jitter exponential backoff `random(0, min(cap, base * 2^n))`, n counting the earlier
 *   refusals of the streak. A refusal that says nothing usable (no Retry-After, no usable Reset) waits the
 *   minute window's length.
 * - After a response with Remaining 0, the key pauses until Reset (when Reset is usable): the next request
 *   would only be refused. More generally, a key never has more requests in flight than the Remaining its
 *   window last showed: the end of a quota is met by one request, not by a herd that would all be refused
 *   (and whose stragglers would reach the target after the refusal).
 * - A key still refused for a request sent after both the Retry-After and the Reset of the streak's first
 *   refusal had passed (+1 s of rounding; the minute window's length where no usable Reset belongs to the
 *   refused window) is suspected banned: it is marked in the key states and no request is sent on it again.
 * - Once a refused key's wait is over, it takes one request at a time until one is answered (like a
 *   circuit breaker's half-open state): no herd of requests lands on a window that may still be refusing,
 *   and the request that tells a ban apart is the only one on its way.
 * Refusals of requests that were already on their way when the previous refusal arrived belong to the same
 * refusal: they do not lengthen the backoff.
 */
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import { IMPLAUSIBLE_WAIT_MS } from '../checks/passive/client.js';
import { heldUntil, type KeyStates } from './key-state.js';
import { retryAfterMs, TOLERANCE_MS } from '../http/server-time.js';
import type { Exchange } from '../http/exchange.js';
import { fullJitter } from './jitter.js';
import { isAccepted, isRefusal, readWindow, retryAfterWaitMs, type ResponseWindow } from './response.js';
import { MINUTE_MS } from '../api/plans.js';

export interface BackoffOptions {
  /** Without backoff, a refusal still waits what the target says, but there is no jitter and no retry. */
  readonly enabled: boolean;
  readonly baseMs: number;
  readonly capMs: number;
  readonly random?: () => number;
}

/** What a response meant for its key. */
export type Verdict = 'accepted' | 'answered' | 'refused' | 'banned' | 'no-response';

interface KeyBackoff {
  /** Counted refusals in a row (the `n` of the jitter). */
  streak: number;
  /** Local run-clock time the latest refusal was received. */
  lastRefusalAt: number;
  /** No request on the key before this local run-clock time. */
  readyAt: number;
  /** When the streak's first refusal is over by what the target said (+rounding); null outside a streak. */
  clearAt: number | null;
  /** When the one request allowed while the key is half-open (after a refusal) was sent; null: none on its way. */
  probeSentAt: number | null;
  /** Requests on their way on the key. */
  inFlight: number;
  /** The lowest Remaining seen in the window with Reset `remainingReset` (Unix s), which ends at `remainingUntil` (local). */
  remaining: number;
  remainingReset: number;
  remainingUntil: number;
}

export interface SuspectedBan {
  key: ApiKey;
  /** The refusal of a request sent after the first refusal's wait had passed. */
  refusal: Exchange;
}

export class BackoffPolicy {
  private readonly states = new Map<string, KeyBackoff>();
  /** The key state() answered for last, and its state. */
  private lastKey: ApiKey | null = null;
  private lastState: KeyBackoff | null = null;
  private readonly random: () => number;

  constructor(
    private readonly keyStates: KeyStates,
    private readonly clock: Clock,
    private readonly options: BackoffOptions,
    private readonly onBan: (ban: SuspectedBan) => void,
  ) {
    this.random = options.random ?? Math.random;
  }

  private state(key: ApiKey): KeyBackoff {
    // The executors ask of one key several times per request: the last answer first.
    if (key === this.lastKey && this.lastState !== null) return this.lastState;
    let s = this.states.get(key.label);
    if (s === undefined) {
      // A wait left by the probes' traffic still holds, bounded by the minute window from now.
      const inherited = heldUntil(this.keyStates.get(key), this.clock.now());
      s = {
        streak: 0,
        lastRefusalAt: -Infinity,
        readyAt: inherited,
        clearAt: null,
        probeSentAt: null,
        inFlight: 0,
        remaining: 0,
        remainingReset: 0,
        remainingUntil: 0,
      };
      this.states.set(key.label, s);
    }
    this.lastKey = key;
    this.lastState = s;
    return s;
  }

  isBanned(key: ApiKey): boolean {
    return this.keyStates.get(key).suspectedBan;
  }

  /** Local run-clock time from which the key may be sent on. */
  readyAt(key: ApiKey): number {
    return this.state(key).readyAt;
  }

  /** Whether a request may be sent on the key at local run-clock time `now`. */
  isFree(key: ApiKey, now: number): boolean {
    const s = this.state(key);
    if (s.readyAt > now || (s.clearAt !== null && s.probeSentAt !== null)) return false;
    if (now < s.remainingUntil && s.inFlight >= s.remaining) return false;
    return !this.isBanned(key);
  }

  /** Call when a request is sent on the key at local run-clock time `at` (the `sentAt` of its response). */
  noteSent(key: ApiKey, at: number): void {
    const s = this.state(key);
    s.inFlight++;
    if (s.clearAt !== null && s.probeSentAt === null) s.probeSentAt = at;
  }

  /** Remember the lowest Remaining of the latest window the responses described. */
  private noteRemaining(s: KeyBackoff, w: ResponseWindow): void {
    if (w.remaining === null || w.reset === null || w.resetLocal === null || w.reset < s.remainingReset) return;
    if (w.reset > s.remainingReset) {
      s.remainingReset = w.reset;
      s.remainingUntil = w.resetLocal;
      s.remaining = w.remaining;
    } else {
      s.remaining = Math.min(s.remaining, w.remaining);
    }
  }

  /**
   * Learn from the response to a request sent on `key` at local run-clock time `sentAt`; `w` is the
   * response's window (readWindow). 'banned' is returned once, for the refusal that made the key suspected.
   */
  onResponse(key: ApiKey, sentAt: number, ex: Exchange, w: ResponseWindow = readWindow(ex, key)): Verdict {
    const s = this.state(key);
    s.inFlight--;
    if (s.probeSentAt !== null && sentAt >= s.probeSentAt) s.probeSentAt = null;
    if (ex.status === null) return 'no-response';
    this.noteRemaining(s, w);
    if (!isRefusal(ex)) {
      // Only an answer to a request sent after the latest refusal was known ends the streak: one that was
      // already on its way says nothing about whether the refusal is over.
      if (sentAt >= s.lastRefusalAt) {
        s.streak = 0;
        s.clearAt = null;
      }
      if (w.remaining === 0 && w.resetLocal !== null) s.readyAt = Math.max(s.readyAt, w.resetLocal);
      return isAccepted(ex) ? 'accepted' : 'answered';
    }
    if (this.isBanned(key)) return 'refused';
    if (s.clearAt !== null && sentAt >= s.clearAt) {
      this.keyStates.get(key).suspectedBan = true;
      this.onBan({ key, refusal: ex });
      return 'banned';
    }
    const now = ex.localTime;
    if (sentAt >= s.lastRefusalAt) s.streak++;
    s.lastRefusalAt = now;
    const { told, clear } = this.ends(ex, w);
    const jitter = this.options.enabled
      ? fullJitter(s.streak - 1, this.options.baseMs, this.options.capMs, this.random)
      : 0;
    s.readyAt = Math.max(s.readyAt, told, now + jitter);
    s.clearAt ??= clear;
    return 'refused';
  }

  /**
   * When a refusal is over by what the target said, and from when a refusal of the key would mean a ban.
   * The end is the later of Retry-After and Reset, Reset counting when it can belong to the refused window:
   * Remaining 0, or a minute window (at most a minute away, so waiting for it costs little even when the
   * refusal came from another window, and it covers a Retry-After that is too short). When no usable Reset
   * belongs to the refused window, a ban is suspected only once the minute window's length has passed too.
   */
  private ends(ex: Exchange, w: ResponseWindow): { told: number; clear: number } {
    const now = ex.localTime;
    const ra = retryAfterWaitMs(ex, w);
    const raEnd = ra === null ? -Infinity : now + ra;
    const resetEnd = w.resetLocal !== null && (w.remaining === 0 || w.window === 'minute') ? w.resetLocal : null;
    // A Retry-After beyond what its window justifies (retry-after.plausible's failure), with no usable Reset: waited
    // for the backoff's default cap (IMPLAUSIBLE_WAIT_MS), as backoff.respects-retry-after holds it; a ban is still
    // suspected only once the minute window has passed too.
    if (ra === null && resetEnd === null && retryAfterMs(ex) !== null)
      return { told: now + IMPLAUSIBLE_WAIT_MS, clear: now + MINUTE_MS + TOLERANCE_MS };
    if (ra === null && resetEnd === null) return { told: now + MINUTE_MS, clear: now + MINUTE_MS + TOLERANCE_MS };
    const told = Math.max(raEnd, resetEnd ?? -Infinity);
    return { told, clear: Math.max(told, resetEnd ?? now + MINUTE_MS) + TOLERANCE_MS };
  }
}
