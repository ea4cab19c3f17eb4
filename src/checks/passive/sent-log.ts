/**
 * A key's own requests of the last minute or so, as petload sent them: when each was sent and answered (run-clock
 * ms), and whether the limiter surely counted it (a 2xx) or may have (any other answer, a refusal included, or none).
 *
 * From it, how many of the key's requests a sliding log let slide out of its trailing window between two answers of
 * the key, one sent after the other completed: a log's Remaining rises by exactly that many (less the second
 * request's own count), where a fixed window's goes down by one. Each request reached the server somewhere between
 * its send and its answer; the count is given as a range, [lo, hi], with a second's slack either side for a server
 * that keeps whole seconds.
 *
 * Memory is bounded: the requests answered since a window (and the slack) before the newest one was sent, at most
 * `cap` of them. A question about requests already dropped is answered null (not known), never with a short count.
 */
export type Counted = 'surely' | 'maybe';

/** When a request was sent and when its answer completed, on the run clock (ms). */
export interface Span {
  readonly sent: number;
  readonly done: number;
}

/** How many of the key's requests slid out of the trailing window between two answers: at least lo, at most hi. */
export interface Slid {
  readonly lo: number;
  readonly hi: number;
}

/** A server's whole-second timestamps: what it counts may be up to a second off the request's arrival. */
export const SLIDE_SLACK_MS = 1000;
/** Requests kept per key at most: a sliding log of the plan's figure holds far fewer a minute. */
const DEFAULT_CAP = 20_000;

export class SentLog {
  /** Send and answer times, answer-time order; surely[i] is 1 when a 2xx answered it. Live from `head` on. */
  private readonly sent: number[] = [];
  private readonly done: number[] = [];
  private readonly surely: number[] = [];
  private head = 0;
  /** The latest answer time of a request dropped: the log holds every request answered after it. */
  private horizon = Number.NEGATIVE_INFINITY;
  /** The longest a request of the log took, send to answer (bounds how far apart send and answer order are). */
  private maxLatency = 0;

  constructor(
    private readonly windowMs: number,
    private readonly cap = DEFAULT_CAP,
  ) {}

  /** Note a request of the key, once answered (or failed): in answer order, as the observer sees them. */
  add(sent: number, done: number, counted: Counted): void {
    let i = this.done.length;
    // Answers arrive in order (pushed: this runs for every exchange of a load); one a hair earlier than the last is
    // put in its place.
    while (i > this.head && this.done[i - 1]! > done) i--;
    const surely = counted === 'surely' ? 1 : 0;
    if (i === this.done.length) {
      this.sent.push(sent);
      this.done.push(done);
      this.surely.push(surely);
    } else {
      this.sent.splice(i, 0, sent);
      this.done.splice(i, 0, done);
      this.surely.splice(i, 0, surely);
    }
    this.maxLatency = Math.max(this.maxLatency, done - sent);
    const keepFrom = sent - this.windowMs - 2 * SLIDE_SLACK_MS;
    while (this.head < this.done.length && (this.done[this.head]! < keepFrom || this.size > this.cap)) {
      this.horizon = Math.max(this.horizon, this.done[this.head]!);
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.done.length) this.compact();
  }

  get size(): number {
    return this.done.length - this.head;
  }

  /** How many requests the limiter surely counted among those sent at `from` or later (the kept ones). */
  surelyCountedFrom(from: number): number {
    let n = 0;
    for (let i = this.head; i < this.done.length; i++) if (this.surely[i] === 1 && this.sent[i]! >= from) n++;
    return n;
  }

  /**
   * How many of the key's requests slid out of a trailing window of `windowMs` between the answer `p` and the answer
   * `c` (sent after `p` completed): in the log at p's arrival, out of it at c's. Null when the log no longer holds
   * every request that could have.
   */
  slidOut(p: Span, c: Span): Slid | null {
    const w = this.windowMs;
    const from = p.sent - w - SLIDE_SLACK_MS;
    if (from < this.horizon) return null;
    // Surely slid out: surely counted, surely in the log at p (arrived after p's answer less a window), surely out at
    // c (answered before c was sent less a window). Perhaps: any request that could have been in at p and out at c.
    const inAtP = p.done - w + SLIDE_SLACK_MS;
    const outAtC = c.sent - w - SLIDE_SLACK_MS;
    const mayOutAtC = c.done - w + SLIDE_SLACK_MS;
    let lo = 0;
    let hi = 0;
    for (let i = this.firstAnsweredAfter(from); i < this.done.length; i++) {
      const done = this.done[i]!;
      if (done - this.maxLatency >= mayOutAtC) break;
      const sent = this.sent[i]!;
      if (sent >= mayOutAtC) continue;
      hi++;
      if (this.surely[i] === 1 && sent > inAtP && done < outAtC) lo++;
    }
    return { lo, hi };
  }

  private firstAnsweredAfter(t: number): number {
    let a = this.head;
    let b = this.done.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (this.done[m]! > t) b = m;
      else a = m + 1;
    }
    return a;
  }

  private compact(): void {
    for (const xs of [this.sent, this.done, this.surely]) xs.splice(0, this.head);
    this.head = 0;
  }
}

/**
 * What Remaining rose by from answer `p` to answer `c`, once c's own request is counted: one count per possible
 * reading (a 2xx after a 2xx was counted; around any other answer it may not have been, or may have been given back).
 */
export function risesOf(
  p: { remaining: number; accepted: boolean },
  c: { remaining: number; accepted: boolean },
): readonly number[] {
  const up = c.remaining - p.remaining;
  return p.accepted && c.accepted ? [up + 1] : [up, up + 1];
}

/** What a sliding log makes of a pair: Remaining up by requests that slid out (`slid`), a plain count, or neither. */
export type LogReading = 'slid' | 'counted' | 'not-a-log' | 'fell';

/**
 * Read a pair's rises (risesOf) against the requests that slid out between them. A pair a plain count explains (no
 * rise, where nothing surely slid out) is that, whatever may have slid: a refusal after a refusal at a window's limit
 * says nothing of a log.
 */
export function readSlide(rises: readonly number[], slid: Slid): LogReading {
  if (slid.lo === 0 && rises.includes(0)) return 'counted';
  if (rises.some((r) => r >= 1 && r >= slid.lo && r <= slid.hi)) return 'slid';
  // Down by more than one count: requests from elsewhere (other checks judge those), not the limiter's shape.
  return rises.every((r) => r < 0) ? 'fell' : 'not-a-log';
}
