/**
 * The verdict rule of docs/checks.md ("Severities and the verdict"), in one place for the engine, `petload
 * merge` and the outputs:
 * a failed critical or major check fails the run; a failed minor, advisory (or info) check is a warning; and a
 * critical or major check left unjudged on a plan because its probe ended early (`cutShort`), with no check failed
 * for what ended it, fails the run too: a promise in scope went unjudged and nothing says why it was the target's
 * doing (docs/attribution.md).
 */
import { FAILING_SEVERITIES } from './severity.js';
import type { CheckResult, Report } from './schema.js';

export interface Verdict {
  verdict: 'pass' | 'fail';
  /** Failed checks whose severity fails the run. */
  failed: CheckResult[];
  /** Failed checks whose severity does not fail the run. */
  warnings: CheckResult[];
  skipped: CheckResult[];
  passed: CheckResult[];
  /**
   * Skipped checks whose severity fails the run, cut short on a plan (a probe ended early) with none of the checks
   * that own why failed: they fail the run (also listed in `skipped`).
   */
  cutShort: CheckResult[];
}

/**
 * A check of a failing severity cut short on the plan `p`, with no failure among the checks that own why (`failed`:
 * the ids of the report's failed checks).
 */
export function cutShortUnowned(
  c: Pick<CheckResult, 'severity'>,
  p: CheckResult['byPlan'][number],
  failed: ReadonlySet<string>,
): boolean {
  return (
    FAILING_SEVERITIES.has(c.severity) &&
    p.status === 'skip' &&
    p.cutShort !== undefined &&
    !p.cutShort.some((id) => failed.has(id))
  );
}

/** The ids of a report's failed checks. */
export const failedIds = (checks: readonly CheckResult[]): Set<string> =>
  new Set(checks.filter((c) => c.status === 'fail').map((c) => c.id));

const unownedCutShort = (c: CheckResult, failed: ReadonlySet<string>): boolean =>
  c.byPlan.some((p) => cutShortUnowned(c, p, failed));

export function verdictOf(checks: readonly CheckResult[]): Verdict {
  const v: Verdict = { verdict: 'pass', failed: [], warnings: [], skipped: [], passed: [], cutShort: [] };
  const failed = failedIds(checks);
  for (const c of checks) {
    if (c.status !== 'fail' && unownedCutShort(c, failed)) v.cutShort.push(c);
    if (c.status === 'pass') v.passed.push(c);
    else if (c.status === 'skip') v.skipped.push(c);
    else if (FAILING_SEVERITIES.has(c.severity)) v.failed.push(c);
    else v.warnings.push(c);
  }
  if (v.failed.length > 0 || v.cutShort.length > 0) v.verdict = 'fail';
  return v;
}

/** A check's counts over its plans. */
export function totalCounts(byPlan: CheckResult['byPlan']): CheckResult['counts'] {
  return byPlan.reduce(
    (a, p) => ({
      passed: a.passed + p.counts.passed,
      failed: a.failed + p.counts.failed,
      skipped: a.skipped + p.counts.skipped,
    }),
    { passed: 0, failed: 0, skipped: 0 },
  );
}

/** A report's summary line: how many checks, and how many of them passed, failed, warned and were skipped. */
export function summaryOf(checks: number, v: Verdict): Report['summary'] {
  return {
    checks,
    passed: v.passed.length,
    failed: v.failed.length,
    warnings: v.warnings.length,
    skipped: v.skipped.length,
  };
}

/** `a`, `a and b`, `a, b and c`. */
export const listed = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]!}`;

/**
 * What a partial run's verdict line adds after its word: `partial: business not judged, no key` (plans named in
 * the run's scope that it did not judge, by reason); empty when every plan named was judged.
 */
export function partialWords(report: Pick<Report, 'notJudged'>): string {
  const notJudged = report.notJudged ?? [];
  if (notJudged.length === 0) return '';
  const byReason = new Map<string, string[]>();
  for (const n of notJudged) byReason.set(n.reason, [...(byReason.get(n.reason) ?? []), n.plan]);
  return `partial: ${[...byReason].map(([reason, plans]) => `${listed(plans)} not judged, ${reason}`).join('; ')}`;
}

/** A focus as the flags that ask it: `--check ratelimit.enforced --probe auth` (report.json's `focus`). */
export const focusFlags = (focus: { readonly checks: readonly string[]; readonly probes: readonly string[] }): string =>
  [...focus.checks.map((c) => `--check ${c}`), ...focus.probes.map((p) => `--probe ${p}`)].join(' ');

/**
 * What every output says of a focused run's other checks: `Out of scope (--check ratelimit.enforced): 45 checks`;
 * empty for a run of the whole scenario. They are not judged: neither skipped nor in the verdict.
 */
export function scopeWords(report: Pick<Report, 'focus' | 'outOfScope'>): string {
  if (report.focus === undefined) return '';
  const n = report.outOfScope?.length ?? 0;
  return `Out of scope (${focusFlags(report.focus)}): ${n} check${n === 1 ? '' : 's'}`;
}
