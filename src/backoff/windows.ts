/**
 * Accepted requests per key and minute window, for backoff.no-ban ("accepted requests per window never exceed
 * the limit"). A window is known by its Reset when the accepted responses describe the key's minute window.
 * When they describe another window (a server reporting its day window), a minute refusal marks its window
 * instead: it ends when its Retry-After does, so the accepted requests sent in the 59 s before that end
 * (1 s less than the window, for rounding: never counting a request of the window before) belong to it.
 * Memory is bounded: a few windows per key, and the send times of the last minute only.
 */
import type { ApiKey } from '../core/api-key.js';
import { retryAfterMs } from '../http/server-time.js';
import type { Exchange } from '../http/exchange.js';
import { isAccepted, isRefusal, type ResponseWindow } from './response.js';
import { MINUTE_MS } from '../api/plans.js';
import { SentLog } from '../checks/passive/sent-log.js';

export interface WindowExcess {
  key: string;
  accepted: number;
  limit: number;
  /** How the window was told apart, for the evidence. */
  window: string;
  ex: Exchange;
}

interface KeyWindows {
  /** Reset (Unix s) of a minute window -> accepted requests in it. */
  readonly byReset: Map<number, number>;
  /** Send times (local run clock) of the accepted requests of the last minute. */
  readonly recent: SentLog;
  /** Windows already reported as exceeded (Reset, or the refusal's end in whole seconds). */
  readonly reported: Set<number>;
  /** The Reset the key's current window began with, when its first accepted answer came, and how often it moved. */
  anchor: number | null;
  firstAt: number;
  moves: number;
}

const KEPT_WINDOWS = 4;
const REFUSED_WINDOW_SPAN_MS = MINUTE_MS - 1000;
const MAX_EXCESSES = 5;

export class AcceptedWindows {
  private readonly perKey = new Map<string, KeyWindows>();
  /** The first few windows that accepted more than the limit. */
  readonly excesses: WindowExcess[] = [];
  excessCount = 0;
  /** The most requests accepted in one minute window told apart by its Reset. */
  maxAccepted = 0;
  /**
   * Whether Resets told the windows apart: false once a key's Reset moved (by more than rounding) more often than
   * a window a minute explains, as a token bucket's or a sliding window's does. Per-window figures are then not
   * measurable, and are said to be so rather than given as a number.
   */
  windowsKnown = true;

  private of(key: ApiKey): KeyWindows {
    let k = this.perKey.get(key.label);
    if (k === undefined) {
      k = {
        byReset: new Map(),
        recent: new SentLog(MINUTE_MS, Number.POSITIVE_INFINITY),
        reported: new Set(),
        anchor: null,
        firstAt: 0,
        moves: 0,
      };
      this.perKey.set(key.label, k);
    }
    return k;
  }

  /** Note the response to a request sent on `key` at local run-clock time `sentAt`; `w` is its window. */
  note(key: ApiKey, sentAt: number, ex: Exchange, w: ResponseWindow): void {
    const limit = key.limits.perMinute;
    if (isAccepted(ex)) {
      const k = this.of(key);
      k.recent.add(sentAt, sentAt, 'surely');
      if (w.window !== 'minute' || w.reset === null) return;
      if (k.anchor === null) [k.anchor, k.firstAt] = [w.reset, sentAt];
      else if (Math.abs(w.reset - k.anchor) > 1) {
        k.anchor = w.reset;
        if (++k.moves > (sentAt - k.firstAt) / MINUTE_MS + 2) this.windowsKnown = false;
      }
      const count = (k.byReset.get(w.reset) ?? 0) + 1;
      k.byReset.set(w.reset, count);
      if (k.byReset.size > KEPT_WINDOWS) k.byReset.delete(Math.min(...k.byReset.keys()));
      if (count > this.maxAccepted) this.maxAccepted = count;
      if (count > limit)
        this.exceeded(k, w.reset, {
          key: key.label,
          accepted: count,
          limit,
          window: `the minute window with Reset ${w.reset}`,
          ex,
        });
      return;
    }
    if (!isRefusal(ex) || w.window === 'minute') return;
    const wait = retryAfterMs(ex);
    if (wait === null || wait > MINUTE_MS) return;
    const end = ex.localTime + wait;
    const k = this.of(key);
    const from = end - REFUSED_WINDOW_SPAN_MS;
    const count = k.recent.surelyCountedFrom(from);
    if (count > limit) {
      this.exceeded(k, Math.round(end / 1000), {
        key: key.label,
        accepted: count,
        limit,
        window: `the minute window refused until ${new Date(end).toISOString()}`,
        ex,
      });
    }
  }

  private exceeded(k: KeyWindows, id: number, excess: WindowExcess): void {
    if (k.reported.has(id)) return;
    k.reported.add(id);
    this.excessCount++;
    if (this.excesses.length < MAX_EXCESSES) this.excesses.push(excess);
  }
}
