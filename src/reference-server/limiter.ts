/**
 * The reference server's rate limiter: per subject (a key, or a client address) a minute window and a day
 * window, each a fixed window that opens at the subject's first request after the previous one ended,
 * aligned down to the whole second so that `X-RateLimit-Reset` (the window's end in Unix seconds) is exact.
 * A request is refused while either window is exhausted, until the end of the exhausted window (the later
 * one if both are). All times are milliseconds on the server clock, passed in by the caller.
 */
import { DAY_S, MINUTE_S, type PlanLimits, type WindowName } from '../api/plans.js';

/**
 * How the minute figure is kept: a fixed window from the subject's first request, or a sliding log (the accepted
 * requests of the trailing minute; Reset is when the log will have drained, a minute after its newest request).
 */
export const MINUTE_LIMITERS = ['fixed-window', 'sliding-log'] as const;
export type MinuteLimiter = (typeof MINUTE_LIMITERS)[number];

/** Which window the rate-limit headers describe: always one, always the other, or the one with fewer left. */
export const WINDOW_REPORTS = ['tightest', 'minute', 'day'] as const;
export type WindowReport = (typeof WINDOW_REPORTS)[number];

/** What the three rate-limit headers say, before any fault bends them. */
export interface WindowView {
  readonly window: WindowName;
  readonly limit: number;
  readonly remaining: number;
  /** The window's end, epoch ms on the server clock, a whole second. */
  readonly resetMs: number;
}

/** Counts of one fixed window: it opens at the first request after the previous one ended. */
class Window {
  start = -Infinity;
  count = 0;
  constructor(readonly lengthMs: number) {}

  /** When the window ends (the Reset it announces). */
  get end(): number {
    return this.start + this.lengthMs;
  }

  /** When a refused request would be accepted again. */
  get freesAt(): number {
    return this.end;
  }

  roll(now: number): void {
    if (now >= this.start + this.lengthMs) {
      this.start = now - (now % 1000);
      this.count = 0;
    }
  }

  add(_now: number): void {
    this.count++;
  }
}

/**
 * A sliding log: the times of the requests counted in the trailing window. It announces the end of the log (its newest request plus the window: Remaining is the figure again
 * then) and frees a place when its oldest request slides out. Memory: at most the figure's worth of times.
 */
class SlidingLog extends Window {
  private readonly times: number[] = [];

  override get end(): number {
    return (this.times.at(-1) ?? this.start) + this.lengthMs;
  }

  override get freesAt(): number {
    return (this.times[0] ?? this.start) + this.lengthMs;
  }

  override roll(now: number): void {
    let drop = 0;
    while (drop < this.times.length && this.times[drop]! + this.lengthMs <= now) drop++;
    if (drop > 0) this.times.splice(0, drop);
    this.count = this.times.length;
    this.start = this.times[0] ?? now - (now % 1000);
  }

  override add(now: number): void {
    this.times.push(Math.max(now, this.times.at(-1) ?? -Infinity));
    this.count = this.times.length;
  }
}

/** The counters of one subject. Several quotas share one under the `shared-quota` fault. */
class Counters {
  readonly minute: Window;
  constructor(minute: MinuteLimiter = 'fixed-window') {
    this.minute = minute === 'sliding-log' ? new SlidingLog(MINUTE_S * 1000) : new Window(MINUTE_S * 1000);
  }
  readonly day = new Window(DAY_S * 1000);
  /** Server time of the last request, for idle expiry. */
  lastSeen = 0;
}

/** Counts as read before an await: see `Quota.consumeFrom` (the `non-atomic-counter` fault). */
export interface QuotaSnapshot {
  readonly minuteStart: number;
  readonly minuteCount: number;
  readonly dayStart: number;
  readonly dayCount: number;
}

function remaining(w: Window, limit: number): number {
  return w.count >= limit ? 0 : limit - w.count;
}

/** A subject's two windows judged against its plan's figures. */
export class Quota {
  private readonly minute: Window;
  private readonly day: Window;

  constructor(
    readonly limits: PlanLimits,
    private readonly counters = new Counters(),
  ) {
    this.minute = counters.minute;
    this.day = counters.day;
  }

  /** A subject's quota whose minute figure is kept by `minute`. */
  static of(limits: PlanLimits, minute: MinuteLimiter): Quota {
    return new Quota(limits, new Counters(minute));
  }

  /** A quota with other figures over the same counters. */
  sharedWith(limits: PlanLimits): Quota {
    return new Quota(limits, this.counters);
  }

  get lastSeen(): number {
    return this.counters.lastSeen;
  }

  /** Opens fresh windows where the previous ones have ended. Call before reading anything else. */
  roll(now: number): void {
    this.counters.lastSeen = now;
    this.minute.roll(now);
    this.day.roll(now);
  }

  /**
   * When the refusal of a request now would end (server ms), or 0 when the request is admitted. `minuteOnly`: the
   * day's figure is not enforced (the day-not-enforced fault).
   */
  refusedUntil(minuteOnly = false): number {
    const m = this.minute.count >= this.limits.perMinute ? this.minute.freesAt : 0;
    const d = !minuteOnly && this.day.count >= this.limits.perDay ? this.day.end : 0;
    return Math.max(m, d);
  }

  consume(now: number): void {
    this.minute.add(now);
    this.day.count++;
  }

  snapshot(): QuotaSnapshot {
    return {
      minuteStart: this.minute.start,
      minuteCount: this.minute.count,
      dayStart: this.day.start,
      dayCount: this.day.count,
    };
  }

  /**
   * Writes back a count read earlier plus one: requests that ran in between are lost (a deliberate fault). On a
   * fixed window only: a log keeps every request.
   */
  consumeFrom(s: QuotaSnapshot): void {
    this.minute.count = this.minute.start === s.minuteStart ? s.minuteCount + 1 : this.minute.count + 1;
    this.day.count = this.day.start === s.dayStart ? s.dayCount + 1 : this.day.count + 1;
  }

  /**
   * The window the headers describe. On a refusal (`refusedUntil` > 0) it is a window still running when
   * the refusal ends, so that Retry-After never runs past Reset.
   */
  view(report: WindowReport, refusedUntil = 0): WindowView {
    const minute = remaining(this.minute, this.limits.perMinute);
    const day = remaining(this.day, this.limits.perDay);
    let useDay = report === 'day' || (report === 'tightest' && day < minute);
    if ((useDay ? this.day.end : this.minute.end) < refusedUntil) useDay = !useDay;
    return useDay
      ? { window: 'day', limit: this.limits.perDay, remaining: day, resetMs: this.day.end }
      : { window: 'minute', limit: this.limits.perMinute, remaining: minute, resetMs: this.minute.end };
  }
}

/**
 * Quotas of requests without a valid key, one per client address with the Free figures. An address's state
 * is dropped once it has been idle for a whole minute (its day count is forgotten with it): memory stays
 * bounded by the addresses active in the last couple of minutes.
 */
export class AddressLimiter {
  private readonly quotas = new Map<string, Quota>();

  constructor(
    private readonly limits: PlanLimits,
    private readonly minute: MinuteLimiter = 'fixed-window',
  ) {}

  /** The address's quota, rolled to `now`. */
  quota(address: string, now: number): Quota {
    let q = this.quotas.get(address);
    if (q === undefined) {
      q = Quota.of(this.limits, this.minute);
      this.quotas.set(address, q);
    }
    q.roll(now);
    return q;
  }

  sweep(now: number): void {
    for (const [address, q] of this.quotas) {
      if (now - q.lastSeen >= MINUTE_S * 1000) this.quotas.delete(address);
    }
  }

  get size(): number {
    return this.quotas.size;
  }
}
