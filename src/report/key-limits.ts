/**
 * Each key's judged figures (report.json's `keys[].limits`): written from the run's keys, read back by every report
 * reader through `keyLimitsOf`, which falls back to the legacy path for reports of older versions.
 */
import type { PlanLimits, PlanName } from '../api/plans.js';
import { legacyKeyLimits } from './legacy.js';
import type { KeyLimits, Report } from './schema.js';

type ReportKey = Report['keys'][number];

/** A key's figures as report.json records them (the tolerance in percent, one decimal, as `admission` has it). */
export function keyLimits(l: PlanLimits): KeyLimits {
  const base = { perMinute: l.perMinute, perDay: l.perDay };
  return l.tolerance === undefined ? base : { ...base, tolerancePercent: Math.round(l.tolerance * 1000) / 10 };
}

/** A run's key as report.json lists it: its label, plan and figures, never its secret. */
export function reportKey(k: { label: string; plan: PlanName; sacrificial: boolean; limits: PlanLimits }): ReportKey {
  return { label: k.label, plan: k.plan, sacrificial: k.sacrificial, limits: keyLimits(k.limits) };
}

/**
 * The figures a report's keys were judged against: `keys[].limits`, else (a report of an older version) its plan
 * table's figures sold, else its notes (src/report/legacy.ts). Keys whose figures the report does not hold are left out.
 */
export function keyLimitsOf(
  report: Pick<Report, 'keys' | 'notes' | 'planTable'>,
): { label: string; plan: PlanName; limits: KeyLimits }[] {
  return withKeyLimits(report).flatMap((k) =>
    k.limits === undefined ? [] : [{ label: k.label, plan: k.plan, limits: k.limits }],
  );
}

function fromPlanTable(report: Pick<Report, 'planTable'>, k: ReportKey): KeyLimits | null {
  const sold = report.planTable?.find((p) => p.plan === k.plan)?.sold.find((s) => s.keys.includes(k.label));
  return sold === undefined ? null : { perMinute: sold.perMinute, perDay: sold.perDay };
}

/** The keys with their figures filled in where the report holds them (a merge keeps them as data). */
export function withKeyLimits(report: Pick<Report, 'keys' | 'notes' | 'planTable'>): ReportKey[] {
  return report.keys.map((k) => {
    if (k.limits !== undefined) return k;
    const limits = fromPlanTable(report, k) ?? legacyKeyLimits(report, k);
    return limits === null ? k : { ...k, limits };
  });
}
