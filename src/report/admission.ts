/**
 * Each plan's measured admission against the figure sold (report.json's `admission`): the requests a key's limiter
 * accepted within a minute from a fresh start (the enforce probe's count), and within a day where the plan audit
 * measured one, with the over-admission in percent and the tolerance the plan declares for an approximate limiter.
 * Derived from the report alone (the facts ratelimit.enforced and ratelimit.day-enforced record), whether or not
 * the checks passed, so that compare and trend follow it night by night.
 */
import { infoOf } from './check-info.js';
import type { Admission, CheckResult, Report } from './schema.js';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Over-admission in percent of the figure, one decimal. */
export const excessPercent = (accepted: number, sold: number): number =>
  sold > 0 ? Math.round(((accepted - sold) / sold) * 1000) / 10 : 0;

function entry(
  plan: Admission['plan'],
  window: Admission['window'],
  accepted: number,
  sold: number,
  tolerance: number,
  atLeast: boolean,
): Admission {
  const tolerancePercent = Math.round(tolerance * 1000) / 10;
  const excess = excessPercent(accepted, sold);
  return {
    plan,
    window,
    accepted,
    sold,
    excessPercent: excess,
    tolerancePercent,
    atLeast,
    within: excess <= tolerancePercent,
  };
}

/** ratelimit.enforced's facts record more accepted within a minute than the figure sold. */
export function overTheFigureSold(info: Record<string, unknown>): boolean {
  const a = infoOf('ratelimit.enforced', { info }).admission;
  return a !== undefined && a.accepted > a.sold;
}

/** The minute admission ratelimit.enforced recorded for a plan, null when it recorded none. */
export function minuteOf(o: CheckResult['byPlan'][number]): Admission | null {
  const a = infoOf('ratelimit.enforced', o).admission;
  if (o.plan === null || a === undefined) return null;
  return entry(o.plan, 'minute', a.accepted, a.sold, a.tolerance ?? 0, a.atLeast === true);
}

function dayOf(o: CheckResult['byPlan'][number]): Admission | null {
  const info = infoOf('ratelimit.day-enforced', o);
  const [accepted, sold] = [num(info.acceptedInDay), num(info.dayLimitSold)];
  if (o.plan === null || accepted === null || sold === null) return null;
  return entry(o.plan, 'day', accepted, sold, num(info.tolerance) ?? 0, false);
}

export function deriveAdmission(report: Pick<Report, 'checks'>): Admission[] {
  const out: Admission[] = [];
  for (const [id, read] of [
    ['ratelimit.enforced', minuteOf],
    ['ratelimit.day-enforced', dayOf],
  ] as const) {
    for (const o of report.checks.find((c) => c.id === id)?.byPlan ?? []) {
      const a = read(o);
      if (a !== null) out.push(a);
    }
  }
  return out;
}

/** "62/min against 60, +3.3 %, within the declared 5 %": one plan's admission in words. */
export function describeAdmission(a: Admission): string {
  const unit = a.window === 'minute' ? '/min' : '/day';
  const sign = a.excessPercent > 0 ? '+' : '';
  const measured = `${a.atLeast ? 'at least ' : ''}${a.accepted}${unit} against ${a.sold}, ${sign}${a.excessPercent} %`;
  if (a.tolerancePercent === 0) return a.excessPercent > 0 ? `${measured}, no tolerance declared` : measured;
  return `${measured}, ${a.within ? 'within' : 'beyond'} the declared ${a.tolerancePercent} %`;
}
