/**
 * `petload compare`: what changed between a baseline run and the current one, from their report.json files.
 * Pure: reports in, a Comparison (compare.json's shape) out; the CLI reads the files and sets the exit code.
 */
import { PetloadError } from '../core/errors.js';
import { formatIssues } from '../core/zod-issues.js';
import { FAILING_SEVERITIES } from '../report/severity.js';
import type { Report } from '../report/schema.js';
import { diffChecks } from './checks.js';
import { diffContract } from './contract.js';
import { differencesOf, requireSameRun, runRef } from './identity.js';
import { promiseMessage } from './promises.js';
import { statusMessage } from './status-latency.js';
import { diffOperations, latencyMessage, latencyTrafficOf, trafficMismatch } from './latency.js';
import {
  COMPARE_SCHEMA_VERSION,
  type CompareOptions,
  type CompareOptionsInput,
  CompareOptionsSchema,
  type Comparison,
  type ChecksDiff,
  type OperationDrift,
  type PlanContract,
  type Regression,
} from './schema.js';
import { checkName } from './words.js';

function checkRegressions(checks: ChecksDiff): Regression[] {
  return checks.newlyFailing
    .filter((c) => FAILING_SEVERITIES.has(c.severity))
    .map((c) => ({
      kind: 'check' as const,
      id: c.id,
      plan: c.plan,
      severity: c.severity,
      title: c.title,
      message: `${checkName(c.id, c.plan)} (${c.severity}) newly fails (${c.baseline} before)${c.currentDetail ? `: ${c.currentDetail}` : ''}`,
    }));
}

function promiseRegressions(contract: readonly PlanContract[]): Regression[] {
  return contract.flatMap((p) =>
    (p.promises ?? [])
      .filter((f) => f.drift)
      .map((f) => ({
        kind: 'promise' as const,
        plan: p.plan,
        figure: f.figure,
        baseline: f.baseline,
        current: f.current,
        message: promiseMessage(p.plan, f),
      })),
  );
}

function latencyRegressions(operations: readonly OperationDrift[]): Regression[] {
  return operations.flatMap((op) =>
    op.percentiles
      .filter((p) => p.regression)
      .map((p) => ({
        kind: 'latency' as const,
        operation: op.operation,
        percentile: p.percentile,
        baselineMs: p.baselineMs,
        currentMs: p.currentMs,
        changeMs: p.changeMs,
        changeRatio: p.changeRatio,
        p: p.exceedance!.p,
        superiority: op.test!.superiority,
        superiorityBeyondMargin: op.test!.superiorityBeyondMargin,
        message: latencyMessage(op, p),
      })),
  );
}

function statusRegressions(operations: readonly OperationDrift[]): Regression[] {
  return operations.flatMap((op) =>
    (op.statuses ?? [])
      .filter((s) => s.regression)
      .map((s) => ({
        kind: 'status' as const,
        operation: op.operation,
        status: s.status,
        baselineMs: s.baselineP50,
        currentMs: s.currentP50,
        changeMs: s.changeMs,
        p: s.p,
        superiorityBeyondMargin: s.superiorityBeyondMargin,
        message: statusMessage(op.operation, s, op.test?.marginMs ?? 0),
      })),
  );
}

/** The options with every default filled in; a PetloadError E_USAGE naming each invalid field. */
export function resolveCompareOptions(options: CompareOptionsInput = {}): CompareOptions {
  const res = CompareOptionsSchema.safeParse(options);
  if (res.success) return res.data;
  throw new PetloadError(
    'E_USAGE',
    `invalid compare options\n  ${formatIssues(res.error, options, undefined, CompareOptionsSchema).join('\n  ')}`,
    {
      hint: 'See docs/compare.md (options).',
    },
  );
}

/**
 * Compares two reports (either may be a merged sharded report). Throws a PetloadError E_USAGE (exit 2) for
 * reports of different scenarios or targets unless `allowDifferent`, and for invalid options.
 */
export function compareReports(baseline: Report, current: Report, options: CompareOptionsInput = {}): Comparison {
  const o = resolveCompareOptions(options);
  const b = runRef(baseline);
  const c = runRef(current);
  requireSameRun(b, c, o.allowDifferent);
  const checks = diffChecks(baseline, current);
  const operations = diffOperations(baseline, current, o);
  // Latency only between runs of one traffic class: the load's against the load's, the probes' against the probes'.
  const mismatch = trafficMismatch(baseline, current);
  const contract = diffContract(baseline, current);
  // Checks first: a newly failing contract says more than a slower percentile; then the promises that moved.
  const regressions = [
    ...checkRegressions(checks),
    ...promiseRegressions(contract),
    ...latencyRegressions(operations),
    ...statusRegressions(operations),
  ];
  return {
    schemaVersion: COMPARE_SCHEMA_VERSION,
    baseline: b,
    current: c,
    differences: [...differencesOf(b, c), ...(mismatch === null ? [] : [`latency ${mismatch}`])],
    options: o,
    regressed: regressions.length > 0,
    regressions,
    checks,
    contract,
    operations,
    latencyTraffic: latencyTrafficOf(baseline, current),
  };
}

/** The exit code `petload compare` is to end with: 0 no regression, 1 a regression. */
export function compareExitCode(c: Comparison): 0 | 1 {
  return c.regressed ? 1 : 0;
}
