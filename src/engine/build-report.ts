/** Assembles report.json from what a run collected: ledger outcomes, metrics, thresholds, notes. */
import type { PlanName } from '../api/plans.js';
import { CATALOGUE, CHECK_IDS, metaOf, notExercised, type AnyCheckId, type Severity } from '../checks/catalogue.js';
import { statusOf, type Outcome } from '../checks/ledger.js';
import type { ApiKey } from '../core/api-key.js';
import type { MetricsSnapshot } from '../metrics/recorder.js';
import { deriveAdmission } from '../report/admission.js';
import { derivePlanTable, soldFromKeys } from '../report/plan-table.js';
import { reportKey } from '../report/key-limits.js';
import { REPORT_SCHEMA_VERSION, type CheckResult, type Report } from '../report/schema.js';
import { summaryOf, totalCounts, verdictOf } from '../report/verdict.js';
import { VERSION } from './version.js';

/** What a focused run was asked (report.json's `focus`). */
type Focus = { readonly checks: readonly string[]; readonly probes: readonly string[] };

export interface ReportInput {
  scenario: { name: string; description?: string; file?: string };
  target: Report['target'];
  plans: readonly PlanName[];
  /** Plans named in the run's scope that it did not judge (a partial run). */
  notJudged?: Report['notJudged'];
  keys: readonly ApiKey[];
  startedAt: Date;
  endedAt: Date;
  outcomes: readonly Outcome[];
  thresholds: Report['thresholds'];
  /** Severity per threshold check id (default major). */
  thresholdSeverity: ReadonlyMap<string, Severity>;
  metrics: MetricsSnapshot;
  notes: readonly string[];
  schedule?: Report['schedule'];
  aborted?: { reason: string; exitCode: number };
  /** A focused run (src/config/focus.ts): what was asked, the checks it judges, and the rest, out of scope. */
  scope?: { focus: Focus; inScope: readonly string[]; outOfScope: readonly string[] };
}

function checkResult(
  id: AnyCheckId,
  outcomes: readonly Outcome[],
  severity: Severity,
  fallbackReason: string,
): CheckResult {
  const meta = metaOf(id);
  const mine = outcomes.filter((o) => o.id === id);
  const byPlan: CheckResult['byPlan'] =
    mine.length === 0
      ? [
          {
            plan: null,
            status: 'skip',
            counts: { passed: 0, failed: 0, skipped: 0 },
            evidence: [],
            reasons: [fallbackReason],
            info: {},
          },
        ]
      : mine.map((o) => ({
          plan: o.plan,
          status: statusOf(o),
          counts: { passed: o.passed, failed: o.failed, skipped: o.skipped },
          evidence: o.evidence,
          reasons: o.skipReasons,
          info: o.info,
          ...(o.cutShort !== undefined ? { cutShort: o.cutShort } : {}),
        }));
  const counts = totalCounts(byPlan);
  return { id, title: meta.title, severity, status: statusOf(counts), counts, byPlan };
}

/** What every report of a run starts with, assembled or not: the scenario, the target, plans, keys and times. */
export function reportHead(
  input: ReportInput,
): Pick<
  Report,
  'scenario' | 'target' | 'plans' | 'notJudged' | 'focus' | 'outOfScope' | 'keys' | 'startedAt' | 'endedAt'
> {
  const { scope } = input;
  return {
    scenario: input.scenario,
    target: input.target,
    plans: [...input.plans],
    ...(input.notJudged && input.notJudged.length > 0 ? { notJudged: [...input.notJudged] } : {}),
    ...(scope
      ? {
          focus: { checks: [...scope.focus.checks], probes: [...scope.focus.probes] },
          outOfScope: [...scope.outOfScope],
        }
      : {}),
    keys: input.keys.map(reportKey),
    startedAt: input.startedAt.toISOString(),
    endedAt: input.endedAt.toISOString(),
  };
}

export function buildReport(input: ReportInput): Report {
  const { outcomes } = input;
  const judged = input.scope ? CHECK_IDS.filter((id) => input.scope!.inScope.includes(id)) : CHECK_IDS;
  const checks: CheckResult[] = judged.map((id) => checkResult(id, outcomes, CATALOGUE[id].severity, notExercised(id)));
  // A focused run judges no threshold: they are out of scope (their ids are in outOfScope).
  for (const t of input.scope ? [] : input.thresholds) {
    checks.push(
      checkResult(t.checkId as AnyCheckId, outcomes, input.thresholdSeverity.get(t.checkId) ?? 'major', 'no data'),
    );
  }
  const v = verdictOf(checks);
  const verdict = input.aborted ? 'aborted' : v.verdict;
  const exitCode = input.aborted ? input.aborted.exitCode : v.verdict === 'pass' ? 0 : 1;
  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: 'petload', version: VERSION },
    ...reportHead(input),
    durationMs: input.endedAt.getTime() - input.startedAt.getTime(),
    verdict,
    exitCode,
    summary: summaryOf(checks.length, v),
    checks,
    thresholds: input.thresholds,
    ...input.metrics,
    notes: [...new Set(input.notes)],
    ...(input.schedule ? { schedule: input.schedule } : {}),
  };
  // Sold against measured per plan: the keys' figures, and what the checks above made of them.
  report.planTable = derivePlanTable(report, soldFromKeys(input.keys));
  report.admission = deriveAdmission(report);
  if (input.aborted) report.abortReason = input.aborted.reason;
  return report;
}
