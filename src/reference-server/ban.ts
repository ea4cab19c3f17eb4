/**
 * The ban rule of the reference server.
 *
 * When a key is refused (429), the refusal runs until the exhausted window ends: that is the wait its
 * Retry-After gives (rounded up to whole seconds, so an honest client never arrives early). Every further
 * request of the key that arrives while that refusal is still running is a violation. Requests arriving
 * within a short grace period (`graceMs`, real milliseconds, default 250) after the refusal that started
 * the wait do not count: they were already on their way when the 429 was sent. A key with more than
 * `threshold` violations (default 10) in one refusal is banned for `durationMs` of server time (default
 * 15 minutes): every request gets 429 `key_banned` with a Retry-After to the ban's end, and counts toward
 * nothing. A request after the refusal has ended clears the violations; the ban clears them too when it ends.
 */
export interface BanPolicy {
  /** Violations tolerated in one refusal; one more bans the key. */
  readonly threshold: number;
  /** Ban length, server-clock ms. */
  readonly durationMs: number;
  /** Real ms after a refusal begins during which requests are treated as already in flight. */
  readonly graceMs: number;
}

/** One key's ban state. `now` is server-clock ms, `realNow` real monotonic ms. */
export class BanGuard {
  private refusedUntil = 0;
  private graceUntil = 0;
  private violations = 0;
  private bannedUntil = 0;

  constructor(private readonly policy: BanPolicy) {}

  /** Call first for every request of the key: the ban's end (server ms) if the key is banned, else 0. */
  check(now: number, realNow: number): number {
    if (now < this.bannedUntil) return this.bannedUntil;
    if (this.bannedUntil !== 0) {
      this.bannedUntil = 0;
      this.refusedUntil = 0;
      this.violations = 0;
    }
    if (now >= this.refusedUntil) {
      this.violations = 0;
      return 0;
    }
    if (realNow >= this.graceUntil && ++this.violations > this.policy.threshold) {
      this.bannedUntil = now + this.policy.durationMs;
      return this.bannedUntil;
    }
    return 0;
  }

  /** Call when the key is refused until `until` (server ms). */
  refused(until: number, now: number, realNow: number): void {
    if (now >= this.refusedUntil) this.graceUntil = realNow + this.policy.graceMs;
    if (until > this.refusedUntil) this.refusedUntil = until;
  }
}
