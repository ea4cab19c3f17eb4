/**
 * What the suite knows about each key's rate-limit windows, learnt from the responses it got.
 * Used to start rate-limit probes on a fresh window ("it waits until X-RateLimit-Reset has passed, or uses a key
 * that has not been used in the current window") and to honour Retry-After everywhere.
 */
import { DAY_MS, MINUTE_MS, type PlanName } from '../api/plans.js';
import type { PlanSent } from '../core/progress.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import type { Exchange } from '../http/exchange.js';
import { IMPLAUSIBLE_WAIT_MS } from '../checks/passive/client.js';
import { rateLimitOf } from '../http/parsed.js';
import { retryAfterMs, serverOffset, TOLERANCE_MS } from '../http/server-time.js';

// The server's timeline (its Date, to the second): every reading of a Reset or a Retry-After goes through it.
export { retryAfterMs, serverOffset, serverTimeOf, TOLERANCE_MS } from '../http/server-time.js';

export interface KeyState {
  readonly key: ApiKey;
  /** Any request sent on this key during the run. */
  used: boolean;
  /** Run-clock wall time of the last request sent on the key. */
  lastSentAt: number | null;
  /** Local wall time (run clock) until which no request may be sent: the end of the latest Retry-After. */
  blockedUntil: number;
  /** Whose request got the 429 that set `blockedUntil`: `probe enforce`, `load phase 1 (constant-rate)`. */
  blockedBy: string | null;
  /** Local wall time by which the minute window that held the last request has certainly ended. */
  minuteWindowEndsBy: number | null;
  suspectedBan: boolean;
  /** Requests sent on the key, and responses 429 to them (for progress). */
  sent: number;
  refused: number;
  /** The latest 429 on the key, with the one before it (src/engine/probe-bounds.ts reads whether a wait was kept). */
  refusal: Refusal | null;
  /** Answers on the key other than 429 to requests sent after its latest 429 had come back (or since the start). */
  answeredSinceRefusal: number;
}

/** A 429 on a key, the 429 before it, and how many other answers the key got between the two (to requests sent after it). */
export interface Refusal {
  readonly ex: Exchange;
  readonly before: Exchange | null;
  readonly answeredBetween: number;
}

/** Whose request an exchange was, for people: `probe enforce`, `load phase 1 (constant-rate)`, `the load`. */
export function senderOf(ex: Pick<Exchange, 'traffic'>): string {
  if (ex.traffic === undefined) return 'the load';
  return ex.traffic.class === 'probes' ? `probe ${ex.traffic.name}` : `load ${ex.traffic.name}`;
}

/**
 * The longest a minute window's Reset holds a key from an answer on: a minute, Reset's rounding and Date's. A Reset
 * further away is no minute window's (noteResponse trusts none beyond it).
 */
const MINUTE_HOLD_MS = MINUTE_MS + 2 * TOLERANCE_MS;

/**
 * The longest Retry-After the key states follow as it is for a minute window (a minute and Reset's rounding): a
 * client that waits a refusal out exactly waits up to this, or the send path still holds its key.
 */
export const MINUTE_WAIT_MS = MINUTE_MS + TOLERANCE_MS;

/**
 * Until when a key is held back from `from` on (local run-clock time): the end of its latest Retry-After, bounded by
 * a minute window's longest hold (MINUTE_HOLD_MS) from `from`, so that no wait a target asks holds a key longer.
 */
export const heldUntil = (s: Pick<KeyState, 'blockedUntil'>, from: number): number =>
  Math.min(s.blockedUntil, from + MINUTE_HOLD_MS);

/** What a probe sees of the key states: the keys it was given. */
export type KeyView = Pick<KeyStates, 'get' | 'all' | 'blockedNow'>;

export class KeyStates {
  private readonly states = new Map<string, KeyState>();
  /** The state get() found last. */
  private last: KeyState | null = null;

  constructor(keys: readonly ApiKey[]) {
    for (const key of keys) {
      this.states.set(key.label, {
        key,
        used: false,
        lastSentAt: null,
        blockedUntil: 0,
        blockedBy: null,
        minuteWindowEndsBy: null,
        suspectedBan: false,
        sent: 0,
        refused: 0,
        refusal: null,
        answeredSinceRefusal: 0,
      });
    }
  }

  get(key: ApiKey): KeyState {
    // The send path asks of one request's key several times in a row: the last answer first.
    if (key === this.last?.key) return this.last;
    const s = this.states.get(key.label);
    if (!s) throw new Error(`unknown key ${key.label}`);
    this.last = s;
    return s;
  }

  /** True while a Retry-After received on the key (by label) is running. */
  blockedNow(label: string, now: number): boolean {
    const s = this.states.get(label);
    return s !== undefined && s.blockedUntil > now;
  }

  /**
   * blockedNow at the clock's time, read only for a key a Retry-After has held at all: the send path asks it of
   * every request as it is written, and most keys are never held.
   */
  blockedOn(label: string, clock: Pick<Clock, 'now'>): boolean {
    const s = this.states.get(label);
    return s !== undefined && s.blockedUntil > 0 && s.blockedUntil > clock.now();
  }

  all(): KeyState[] {
    return [...this.states.values()];
  }

  /** Requests sent and refused so far, per plan (in the order of the keys). */
  perPlan(): PlanSent[] {
    const out = new Map<PlanName, PlanSent>();
    for (const s of this.states.values()) {
      const p = out.get(s.key.plan) ?? { plan: s.key.plan, sent: 0, refused: 0 };
      p.sent += s.sent;
      p.refused += s.refused;
      out.set(s.key.plan, p);
    }
    return [...out.values()];
  }

  noteSent(key: ApiKey, at: number): void {
    const s = this.get(key);
    s.used = true;
    s.sent++;
    s.lastSentAt = at;
    // Without better knowledge, the minute window holding this request ends at most a minute (+rounding) later.
    const bound = at + MINUTE_MS + TOLERANCE_MS;
    s.minuteWindowEndsBy =
      s.minuteWindowEndsBy === null || s.minuteWindowEndsBy < at ? bound : Math.min(s.minuteWindowEndsBy, bound);
  }

  /** Learn from a response on a valid key: the minute window's end (when the headers describe it) and Retry-After. */
  noteResponse(key: ApiKey, ex: Exchange): void {
    const s = this.get(key);
    const rl = rateLimitOf(ex);
    /** The end of the minute window the headers describe, when they do and it is plausible (+rounding). */
    let minuteEnd: number | null = null;
    if (
      rl.limit.ok &&
      rl.reset.ok &&
      rl.limit.value === key.limits.perMinute &&
      key.limits.perMinute !== key.limits.perDay
    ) {
      const resetLocal = rl.reset.value * 1000 + serverOffset(ex) + TOLERANCE_MS;
      // Only trust a Reset that is plausible for a minute window (a broken Reset is judged by its own check).
      if (resetLocal >= ex.localTime - TOLERANCE_MS && resetLocal <= ex.localTime + MINUTE_HOLD_MS) {
        minuteEnd = resetLocal;
        s.minuteWindowEndsBy = s.minuteWindowEndsBy === null ? resetLocal : Math.min(s.minuteWindowEndsBy, resetLocal);
      }
    }
    // Answers to requests sent once the latest 429 had come back: those the new window may have counted.
    if (ex.status !== 429) {
      if (s.refusal === null || ex.timing.sent >= s.refusal.ex.timing.done) s.answeredSinceRefusal++;
    } else {
      s.refusal = { ex, before: s.refusal?.ex ?? null, answeredBetween: s.answeredSinceRefusal };
      s.answeredSinceRefusal = 0;
    }
    if (ex.status === 429) {
      s.refused++;
      const wait = retryAfterMs(ex);
      if (wait !== null) {
        // Waits follow the target, bounded by the length of the window that refused: the day when the headers
        // say the day is used up, else the minute (a Retry-After in milliseconds must not hold a key for hours).
        const dayRefused =
          rl.limit.ok && rl.remaining.ok && rl.limit.value === key.limits.perDay && rl.remaining.value === 0;
        const bound = dayRefused ? DAY_MS + TOLERANCE_MS : MINUTE_WAIT_MS;
        // A wait beyond that (an epoch, milliseconds, a date in year 9999: retry-after.plausible's failure) is not
        // trusted: the key is held until its minute window's Reset when the headers give a usable one, else for the
        // backoff's cap.
        const held =
          wait <= bound ? wait : minuteEnd !== null ? Math.max(0, minuteEnd - ex.localTime) : IMPLAUSIBLE_WAIT_MS;
        if (ex.localTime + held > s.blockedUntil) {
          s.blockedUntil = ex.localTime + held;
          s.blockedBy = senderOf(ex);
        }
        // The refused window ends when Retry-After says (bounded by the window length).
        const end = ex.localTime + Math.min(held, MINUTE_MS) + TOLERANCE_MS;
        s.minuteWindowEndsBy = Math.max(
          s.minuteWindowEndsBy ?? 0,
          Math.min(end, ex.localTime + (MINUTE_MS + TOLERANCE_MS)),
        );
      }
    }
  }
}
