/**
 * The end of the run, once every judge has recorded: the ledger resolves the deferrals the catalogue declares
 * (src/checks/deferrals.ts), and where several counters answer a plan's keys and ratelimit.enforced found the
 * over-admission that makes, its `cause` says so. The echoes of that one defect (the sequence checks, quota
 * restored, Retry-After honest, key isolation, no over-admission, deprecation.behaviour-unchanged) declare their
 * deferral to ratelimit.enforced in the catalogue (`per-counter`).
 */
import { conditionHolds, type RunFacts } from './deferrals.js';
import type { Ledger } from './ledger.js';

/** `facts`: what the observer read of the answers (src/checks/observer.ts). */
export function resolveAtEnd(ledger: Ledger, facts: RunFacts): void {
  const view = ledger.resolveDeferrals(facts);
  for (const plan of new Set(ledger.all().map((o) => o.plan))) {
    if (!conditionHolds(view, 'per-counter', 'ratelimit.enforced', plan)) continue;
    const n = facts.countersOf(plan);
    ledger.info(
      'ratelimit.enforced',
      plan,
      'cause',
      `${n} independent counters answer each key, each keeping the limit alone (see ratelimit.algorithm): the fleet admits up to ${n} times the figure`,
    );
  }
}
