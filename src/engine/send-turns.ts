/**
 * The turns of the probes that count (src/engine/run-schedule.ts): while a probe whose judgement counts what a key's
 * window admitted sends, the other probes' requests in its scope wait.
 */
import type { PlanName } from '../api/plans.js';

/** Whose requests a turn keeps off the wire: one plan's (its keys are their own counters), or everyone's. */
export type TurnScope = PlanName | 'all';
const overlap = (a: TurnScope, b: TurnScope) => a === 'all' || b === 'all' || a === b;

/**
 * Counting probes send alone: from a counting probe's first request to its end (its exclusive turn), no other
 * probe's request in its scope goes out, and the turn begins once those already out have come back. A turn's scope
 * is every probe's requests, or, where the link is long (countsSideBySide), the requests of its plan's probes only:
 * other plans' keys are other counters, so their counts overlap (a target whose keys share a counter is
 * key-isolation's to judge, and enforce counts again with a turn of everyone's when others' requests may explain a
 * short count). A wait before the first request (for a fresh window) holds nothing. Other probes' requests share the
 * turns among themselves. Waits hold nothing.
 */
export class SendTurns {
  /** The turns held (a turn is held from before its readers have drained). */
  private readonly writers: TurnScope[] = [];
  /** Shared requests out, by scope. */
  private readonly readers = new Map<TurnScope, number>();
  private wake: () => void = () => {};
  private changed: Promise<void> = this.renew();

  private renew(): Promise<void> {
    this.changed = new Promise<void>((r) => (this.wake = r));
    return this.changed;
  }

  private notify(): void {
    const wake = this.wake;
    this.renew();
    wake();
  }

  private held(scope: TurnScope): boolean {
    return this.writers.some((w) => overlap(w, scope));
  }

  private out(scope: TurnScope): number {
    let n = 0;
    for (const [s, count] of this.readers) if (overlap(s, scope)) n += count;
    return n;
  }

  /** One request of a probe that does not count: after any counting probe in its scope has finished. */
  async shared<T>(scope: TurnScope, fn: () => Promise<T>): Promise<T> {
    while (this.held(scope)) await this.changed;
    this.readers.set(scope, (this.readers.get(scope) ?? 0) + 1);
    try {
      return await fn();
    } finally {
      this.readers.set(scope, this.readers.get(scope)! - 1);
      this.notify();
    }
  }

  /**
   * A counting probe's turn, from its first request to its end: resolves once no other counting probe holds one in
   * an overlapping scope and the requests already out in it have come back; the returned function ends the turn.
   */
  async exclusive(scope: TurnScope): Promise<() => void> {
    while (this.held(scope)) await this.changed;
    this.writers.push(scope);
    while (this.out(scope) > 0) await this.changed;
    return () => {
      this.writers.splice(this.writers.indexOf(scope), 1);
      this.notify();
    };
  }
}
