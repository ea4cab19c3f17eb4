/**
 * The verdict rule of docs/checks.md ("Severities and the verdict"), in one place for the engine, `petload
 * merge` and the outputs:
 * a failed critical or major check fails the run; a failed minor, advisory (or info) check is a warning.
 */
import { FAILING_SEVERITIES } from '../checks/catalogue.js';
import type { CheckResult } from './report-schema.js';

export interface Verdict {
  verdict: 'pass' | 'fail';
  /** Failed checks whose severity fails the run. */
  failed: CheckResult[];
  /** Failed checks whose severity does not fail the run. */
  warnings: CheckResult[];
  skipped: CheckResult[];
  passed: CheckResult[];
}

export function verdictOf(checks: readonly CheckResult[]): Verdict {
  const v: Verdict = { verdict: 'pass', failed: [], warnings: [], skipped: [], passed: [] };
  for (const c of checks) {
    if (c.status === 'pass') v.passed.push(c);
    else if (c.status === 'skip') v.skipped.push(c);
    else if (FAILING_SEVERITIES.has(c.severity)) v.failed.push(c);
    else v.warnings.push(c);
  }
  if (v.failed.length > 0) v.verdict = 'fail';
  return v;
}
