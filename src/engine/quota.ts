/**
 * A run against a remote target: how much of each key's daily quota is left, read from a response on the key
 * (quota-gate.ts reads the first one), and whether the run's estimate (estimate.ts) fits in it. A run that would
 * use up a key's day stops unless the user says it may (--allow-quota-exhaustion): a production key with no quota
 * left for the day is an outage for whoever else uses it.
 */
import type { PlanName } from '../api/plans.js';
import { readWindow } from '../backoff/response.js';
import type { ApiKey } from '../core/api-key.js';
import type { Exchange } from '../http/exchange.js';
import { formatCount, type Estimate } from './estimate.js';

export interface DayQuota {
  /** The key's label (never the key). */
  readonly key: string;
  readonly plan: PlanName;
  readonly perDay: number;
  /** Requests left today, or null when the response does not tell. */
  readonly remaining: number | null;
  /** Why `remaining` is null. */
  readonly unknownBecause?: string;
}

/** What one response on `key` says about the key's day: X-RateLimit-Remaining when the headers describe the day window. */
export function readDayQuota(key: ApiKey, ex: Exchange): DayQuota {
  const base = { key: key.label, plan: key.plan, perDay: key.limits.perDay };
  if (ex.status === null)
    return { ...base, remaining: null, unknownBecause: `no response (${ex.error?.kind ?? 'error'})` };
  const w = readWindow(ex, key);
  if (w.window === 'day' && w.remaining !== null && key.limits.perDay !== key.limits.perMinute)
    return { ...base, remaining: w.remaining };
  if (w.window === 'minute')
    return { ...base, remaining: null, unknownBecause: 'its rate-limit headers describe the minute window' };
  return { ...base, remaining: null, unknownBecause: 'its rate-limit headers do not describe the day window' };
}

export interface QuotaDecision {
  /** False: stop before sending more. */
  readonly proceed: boolean;
  /** What to tell the user either way: one line per key, then a line per plan the estimate does not fit. */
  readonly lines: readonly string[];
  /** Why the run stops (when it does). */
  readonly problem?: string;
}

/** One key's day, for people: what it has left, or why that is unknown. */
export function keyLine(q: DayQuota): string {
  return q.remaining === null
    ? `${q.key}: today's remaining quota is unknown (${q.unknownBecause ?? 'not reported'})`
    : `${q.key}: ${formatCount(q.remaining)} of ${formatCount(q.perDay)} requests left today`;
}

/**
 * Compare each plan's estimate with what its keys have left today. A key whose day is unknown counts for its
 * whole daily quota (the most it can have left): a run that needs more than that stops; one that fits only
 * if the unknown days are fresh enough goes ahead with a note saying so.
 */
export function decideQuota(
  estimate: Pick<Estimate, 'plans'>,
  quotas: readonly DayQuota[],
  allowExhaustion: boolean,
): QuotaDecision {
  const lines = quotas.map(keyLine);
  const over: string[] = [];
  for (const p of estimate.plans) {
    const mine = quotas.filter((q) => q.plan === p.plan);
    if (mine.length === 0 || p.total === 0) continue;
    const known = mine.reduce((s, q) => s + (q.remaining ?? 0), 0);
    const unknown = mine.filter((q) => q.remaining === null);
    const atMost = known + unknown.reduce((s, q) => s + q.perDay, 0);
    if (p.total > atMost) {
      const left =
        unknown.length === 0 ? `the ${formatCount(known)} left today` : `at most ${formatCount(atMost)} left today`;
      over.push(
        `${p.plan} needs ${formatCount(p.total)} requests, more than ${left} on its key${mine.length === 1 ? '' : 's'}`,
      );
    } else if (p.total > known) {
      lines.push(
        `${p.plan}: whether the keys have the ${formatCount(p.total - known)} more requests the run needs left today is unknown`,
      );
    }
  }
  if (over.length === 0) return { proceed: true, lines };
  const problem = `the run would use up a key's daily quota: ${over.join('; ')}`;
  if (allowExhaustion)
    return { proceed: true, lines: [...lines, `going ahead anyway (--allow-quota-exhaustion): ${problem}`] };
  return { proceed: false, lines, problem };
}
