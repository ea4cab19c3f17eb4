/**
 * `petload merge`: one report from several runs of the same scenario, taken to have run side by side (the
 * basis for running on several machines). Metrics merge exactly (src/metrics/merge.ts); check outcomes
 * combine per check and plan (counts added, evidence and reasons capped as the ledger caps them, a failure
 * wins over a pass, a pass over a skip); thresholds are evaluated again on the merged metrics, so that
 * `p(99) < 500ms` judges the runs' combined latency, not each run's; the verdict is recomputed.
 */
import { PLAN_NAMES } from '../api/plans.js';
import type { AnyCheckId } from '../checks/catalogue.js';
import { Ledger, type Outcome } from '../checks/ledger.js';
import { parseThreshold, type Threshold } from '../checks/thresholds.js';
import { evaluateThreshold, thresholdMessage } from '../checks/threshold-eval.js';
import { deriveAdmission } from '../report/admission.js';
import { withKeyLimits } from '../report/key-limits.js';
import type { CheckResult, Report } from '../report/schema.js';
import { summaryOf, totalCounts, verdictOf } from '../report/verdict.js';
import { EXIT, PetloadError } from '../core/errors.js';
import { mergeSnapshots } from '../metrics/merge.js';
import type { MetricsSnapshot } from '../metrics/recorder.js';
import { checkShardSet } from '../shard/merge-check.js';

export interface SourcedReport {
  report: Report;
  /** The file it came from, named in messages and notes. */
  source: string;
}

type Status = CheckResult['status'];
const RANK: Record<Status, number> = { skip: 0, pass: 1, fail: 2 };

export function combineStatus(statuses: readonly Status[]): Status {
  return statuses.reduce<Status>((a, b) => (RANK[b] > RANK[a] ? b : a), 'skip');
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

function planKey(plan: string | null): string {
  return plan ?? '';
}

function combineChecks(inputs: readonly SourcedReport[]): CheckResult[] {
  const ledger = new Ledger();
  const first = new Map<string, CheckResult>();
  const statuses = new Map<string, Status[]>();
  const outcomeStatuses = new Map<string, Status[]>();
  for (const { report } of inputs) {
    for (const c of report.checks) {
      if (!first.has(c.id)) first.set(c.id, c);
      statuses.set(c.id, [...(statuses.get(c.id) ?? []), c.status]);
      const outcomes: Outcome[] = c.byPlan.map((o) => {
        const k = `${c.id}\u0000${planKey(o.plan)}`;
        outcomeStatuses.set(k, [...(outcomeStatuses.get(k) ?? []), o.status]);
        return {
          id: c.id as AnyCheckId,
          plan: o.plan,
          passed: o.counts.passed,
          failed: o.counts.failed,
          skipped: o.counts.skipped,
          evidence: o.evidence,
          skipReasons: o.reasons,
          info: o.info,
          ...(o.cutShort !== undefined ? { cutShort: o.cutShort } : {}),
        };
      });
      ledger.absorb(outcomes);
    }
  }
  const all = ledger.all();
  return [...first.values()].map((c) => {
    const byPlan: CheckResult['byPlan'] = all
      .filter((o) => o.id === c.id)
      .map((o) => ({
        plan: o.plan,
        status: combineStatus(outcomeStatuses.get(`${c.id}\u0000${planKey(o.plan)}`) ?? []),
        counts: { passed: o.passed, failed: o.failed, skipped: o.skipped },
        evidence: o.evidence,
        reasons: o.skipReasons,
        info: o.info,
        ...(o.cutShort !== undefined ? { cutShort: o.cutShort } : {}),
      }));
    const counts = totalCounts(byPlan);
    return {
      id: c.id,
      title: c.title,
      severity: c.severity,
      status: combineStatus(statuses.get(c.id) ?? []),
      counts,
      byPlan,
    };
  });
}

/** A threshold of a shard's report, parsed again: one that does not parse is a usage error naming the report. */
function parseAgain(expression: string, source: string): Threshold {
  try {
    return parseThreshold(expression);
  } catch (e) {
    throw new PetloadError(
      'E_USAGE',
      `${source}: threshold ${JSON.stringify(expression)} cannot be judged again: ${(e as Error).message}`,
    );
  }
}

/** Thresholds judged again on the merged metrics; their checks follow the new judgement. */
function reevaluateThresholds(
  inputs: readonly SourcedReport[],
  metrics: MetricsSnapshot,
  checks: CheckResult[],
): Report['thresholds'] {
  const seen = new Map<string, { t: Report['thresholds'][number]; source: string }>();
  for (const { report, source } of inputs)
    for (const t of report.thresholds) if (!seen.has(t.checkId)) seen.set(t.checkId, { t, source });
  return [...seen.values()].map(({ t, source }) => {
    const r = evaluateThreshold(parseAgain(t.expression, source), metrics);
    const index = checks.findIndex((c) => c.id === t.checkId);
    const message = thresholdMessage(t.expression, r);
    const counts = { passed: r.ok ? 1 : 0, failed: r.ok ? 0 : 1, skipped: 0 };
    const status: Status = r.ok ? 'pass' : 'fail';
    const check: CheckResult = {
      id: t.checkId,
      title: checks[index]?.title ?? `Threshold ${t.expression}`,
      severity: t.severity,
      status,
      counts,
      byPlan: [{ plan: null, status, counts, evidence: r.ok ? [] : [{ message }], reasons: [], info: {} }],
    };
    if (index === -1) checks.push(check);
    else checks[index] = check;
    return { ...t, observed: r.observed, unit: r.unit, ok: r.ok };
  });
}

/** The plans a partial run left out: those some report names that no report judged, each once. */
function notJudgedOf(reports: readonly Report[]): Pick<Report, 'notJudged'> {
  const judged = new Set(reports.flatMap((r) => r.plans));
  const seen = new Set<string>();
  const notJudged = reports
    .flatMap((r) => r.notJudged ?? [])
    .filter((n) => !judged.has(n.plan) && !seen.has(n.plan) && seen.add(n.plan));
  return notJudged.length > 0 ? { notJudged } : {};
}

/**
 * The focus of runs merged: a run of the whole scenario judged every check, so the merge has none; runs all focused
 * judged the union of their focuses, and what none of them judged is out of scope.
 */
function focusOf(reports: readonly Report[]): Pick<Report, 'focus' | 'outOfScope'> {
  const focuses = reports.map((r) => r.focus);
  if (focuses.some((f) => f === undefined)) return {};
  const outOfScope = (reports[0]?.outOfScope ?? []).filter((id) => reports.every((r) => r.outOfScope?.includes(id)));
  const focus = {
    checks: unique(focuses.flatMap((f) => f?.checks ?? [])),
    probes: unique(focuses.flatMap((f) => f?.probes ?? [])),
  };
  return { focus, outOfScope };
}

/** Merge runs of one scenario. Refuses runs of different scenarios. */
export function mergeReports(inputs: readonly SourcedReport[]): Report {
  const base = inputs[0];
  if (base === undefined) throw new PetloadError('E_USAGE', 'name at least one report.json to merge');
  const other = inputs.find((i) => i.report.scenario.name !== base.report.scenario.name);
  if (other) {
    throw new PetloadError(
      'E_USAGE',
      `cannot merge runs of different scenarios: ${base.source} is "${base.report.scenario.name}", ${other.source} is "${other.report.scenario.name}"`,
      { hint: 'Merge only reports of one scenario (the same name), e.g. the same run on several machines.' },
    );
  }
  // The shards of one sharded run: all of them, each once, on disjoint keys (src/shard/merge-check.ts).
  const shard = checkShardSet(inputs);
  const reports = inputs.map((i) => i.report);
  const metrics = reports
    .map(
      (r): MetricsSnapshot => ({
        totals: r.totals,
        operations: r.operations,
        ...(r.traffic ? { traffic: r.traffic } : {}),
        ...(r.probeOperations ? { probeOperations: r.probeOperations } : {}),
        timeline: r.timeline,
        keyTimelines: r.keyTimelines,
      }),
    )
    .reduce((a, b) => mergeSnapshots(a, b));
  const checks = combineChecks(inputs);
  const thresholds = reevaluateThresholds(inputs, metrics, checks);
  const v = verdictOf(checks);

  const started = Math.min(...reports.map((r) => Date.parse(r.startedAt)));
  const ended = Math.max(...reports.map((r) => Date.parse(r.endedAt)));
  const aborted = inputs.filter((i) => i.report.verdict === 'aborted');
  const notes = [
    shard
      ? `merged from the ${shard.count} shards of run ${shard.runId}: ${[...inputs]
          .sort((x, y) => x.report.shard!.index! - y.report.shard!.index!)
          .map((i) => i.source)
          .join(', ')}`
      : `merged from ${inputs.length} runs: ${inputs.map((i) => i.source).join(', ')}`,
  ];
  const urls = unique(reports.map((r) => r.target.url));
  if (urls.length > 1) notes.push(`the merged runs had different targets: ${urls.join(', ')}`);
  const versions = unique(reports.map((r) => r.tool.version));
  if (versions.length > 1) notes.push(`the merged runs were made by petload ${versions.join(', ')}`);

  // Each key with its figures as data, also when a report merged is of an older version (its notes: the legacy path).
  const keys = new Map<string, Report['keys'][number]>();
  for (const k of reports.flatMap(withKeyLimits))
    if (!keys.has(`${k.plan}\u0000${k.label}`)) keys.set(`${k.plan}\u0000${k.label}`, k);

  const merged: Report = {
    schemaVersion: base.report.schemaVersion,
    tool: base.report.tool,
    scenario: base.report.scenario,
    target: { ...base.report.target, faults: unique(reports.flatMap((r) => r.target.faults)) },
    plans: PLAN_NAMES.filter((p) => reports.some((r) => r.plans.includes(p))),
    ...notJudgedOf(reports),
    ...focusOf(reports),
    keys: [...keys.values()],
    startedAt: new Date(started).toISOString(),
    endedAt: new Date(ended).toISOString(),
    durationMs: ended - started,
    verdict: aborted.length > 0 ? 'aborted' : v.verdict,
    exitCode: aborted[0]?.report.exitCode ?? (v.verdict === 'pass' ? EXIT.pass : EXIT.fail),
    summary: summaryOf(checks.length, v),
    checks,
    thresholds,
    ...metrics,
    notes: unique([...notes, ...reports.flatMap((r) => r.notes)]),
    ...(shard ? { shard } : {}),
  };
  if (aborted.length > 0)
    merged.abortReason = aborted.map((i) => `${i.source}: ${i.report.abortReason ?? 'aborted'}`).join('; ');
  // Each plan's admission, from the merged checks' facts (as a run derives it).
  const admission = deriveAdmission(merged);
  if (admission.length > 0) merged.admission = admission;
  return merged;
}
