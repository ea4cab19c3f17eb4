/**
 * `petload rerun`: which checks of a report to judge again, and what the re-run made of them (docs/cli.md,
 * "petload rerun"). Pure: the command (src/cli/rerun.ts) reads the report, asks this what to re-judge, runs the
 * scenario focused on it, and compares the two reports here, with the pairing `petload compare` uses.
 */
import type { PlanName } from '../api/plans.js';
import { CATALOGUE, type CheckId, NOT_EXERCISED } from '../checks/catalogue.js';
import type { CheckResult, Report } from '../report/schema.js';
import { FAILING_SEVERITIES } from '../report/severity.js';
import { type CheckPair, changeOf, checkPairs, statusesOf } from './checks.js';
import type { CheckChange } from './schema.js';

type Outcome = CheckResult['byPlan'][number];

/**
 * Why a check is judged again on a plan: it failed; the probe that judges it was cut short by the target; its skip
 * waits on a check judged again (a failure it defers to, or the defect that kept it from judging); its judge ran
 * and recorded nothing (no 429 to read, say); its judge ran and could not judge, for a reason that names no check.
 */
export type RejudgeWhy = 'failed' | 'cut short' | 'waits on' | 'not exercised' | 'not judged';

/**
 * Why a check is not judged again: the scenario has no judge for it; what its skip waits on is no defect; a threshold
 * (judged on the whole run's traffic, which a focused run does not send: run the scenario again).
 */
export type LeftWhy = 'never judged' | 'no defect' | 'threshold';

export interface Rejudge {
  readonly check: string;
  readonly plan: PlanName | null;
  readonly why: RejudgeWhy;
  /** The report's words: the first evidence of a failure, the reasons of a skip. */
  readonly detail: string;
}

export interface LeftOut {
  readonly check: string;
  readonly plan: PlanName | null;
  readonly why: LeftWhy;
  readonly detail: string;
}

export interface RerunSelection {
  readonly chosen: readonly Rejudge[];
  readonly left: readonly LeftOut[];
  /** The checks to judge again, in the report's order. */
  readonly checks: readonly CheckId[];
  /** The plans to judge them on: those of the chosen outcomes, else the report's. */
  readonly plans: readonly PlanName[];
}

/** The check ids a skip reason names (`(see id)`, a deferral's `that defect is id's`): catalogue ids only. */
export function namedChecks(reason: string): string[] {
  return (reason.match(/[a-z][a-z-]*\.[a-z][a-z-]*/g) ?? []).filter(inCatalogue);
}

const inCatalogue = (id: string): id is CheckId => Object.hasOwn(CATALOGUE, id);

const notExercised = (o: Outcome): boolean =>
  o.reasons.length > 0 && o.reasons.every((r) => r.startsWith(NOT_EXERCISED));

/**
 * A check the run's judges recorded nothing for, given as one skip without a plan: it stands for every plan the
 * run judged (a re-run that judges it on those plans has judged what the report could not).
 */
function lone(c: CheckResult): boolean {
  const o = c.byPlan[0];
  return c.byPlan.length === 1 && o !== undefined && o.plan === null && o.status === 'skip' && notExercised(o);
}

/** Each outcome of a check, a lone skip without a plan spread over the run's plans. */
function outcomesOf(report: Report, c: CheckResult): Outcome[] {
  if (!lone(c) || report.plans.length === 0) return c.byPlan;
  return report.plans.map((plan) => ({ ...c.byPlan[0]!, plan }));
}

/** The report with each lone skip spread over its plans (both reports of a re-run are compared so). */
export function spread(report: Report): Report {
  return { ...report, checks: report.checks.map((c) => ({ ...c, byPlan: outcomesOf(report, c) })) };
}

type Verdict = { rejudge: RejudgeWhy } | { left: LeftWhy } | null;

/** One skip's verdict, given the checks judged again so far (null: undecided yet, it waits on others). */
function skipVerdict(id: string, o: Outcome, judges: (id: CheckId) => boolean, again: ReadonlySet<string>): Verdict {
  if (!inCatalogue(id)) return { left: 'threshold' };
  if (o.cutShort !== undefined) return { rejudge: 'cut short' };
  if (notExercised(o)) return judges(id) ? { rejudge: 'not exercised' } : { left: 'never judged' };
  const plain = o.reasons.some((r) => !r.startsWith(NOT_EXERCISED) && namedChecks(r).length === 0);
  if (plain || o.reasons.length === 0) return { rejudge: 'not judged' };
  return o.reasons.some((r) => namedChecks(r).some((n) => again.has(n))) ? { rejudge: 'waits on' } : null;
}

const detailOf = (o: Outcome): string =>
  o.status === 'fail' ? (o.evidence[0]?.message ?? 'failed') : o.reasons.join('; ');

/**
 * What to judge again of a report: every check that failed, on each plan it failed on; every check skipped where
 * the report's scope reached it (its probe cut short by the target, a skip that waits on a check judged again, a
 * judge that ran and could not judge); never a check the scenario has no judge for (`judges`: the scenario's probes
 * and load, as the run's focus reads them), nor one whose skip waits only on checks that did not fail (the target's
 * design, such as the limiter's shape, read again the same).
 */
export function rerunSelection(report: Report, judges: (id: CheckId) => boolean): RerunSelection {
  const outcomes = report.checks.flatMap((c) => outcomesOf(report, c).map((o) => ({ id: c.id, o })));
  const verdicts = new Map<Outcome, Verdict>();
  const again = new Set<string>();
  for (const { id, o } of outcomes) if (o.status === 'fail' && inCatalogue(id)) again.add(id);
  // Skips that wait on checks judged again, to a fixed point: a skip waiting on a skip that is judged again.
  for (let changed = true; changed; ) {
    changed = false;
    for (const { id, o } of outcomes) {
      if (o.status !== 'skip' || verdicts.get(o)) continue;
      const v = skipVerdict(id, o, judges, again);
      verdicts.set(o, v);
      if (v !== null && 'rejudge' in v && !again.has(id)) {
        again.add(id);
        changed = true;
      }
    }
  }
  const chosen: Rejudge[] = [];
  const left: LeftOut[] = [];
  for (const { id, o } of outcomes) {
    const entry = { check: id, plan: o.plan, detail: detailOf(o) };
    if (o.status === 'fail') {
      if (inCatalogue(id)) chosen.push({ ...entry, why: 'failed' });
      else left.push({ ...entry, why: 'threshold' });
    }
    if (o.status !== 'skip') continue;
    const v = verdicts.get(o) ?? { left: 'no defect' };
    if ('rejudge' in v) chosen.push({ ...entry, why: v.rejudge });
    else left.push({ ...entry, why: v.left });
  }
  const checks = [...new Set(chosen.map((c) => c.check))].filter(inCatalogue);
  const planned = new Set(chosen.flatMap((c) => (c.plan === null ? [] : [c.plan])));
  const plans = planned.size > 0 ? report.plans.filter((p) => planned.has(p)) : [...report.plans];
  return { chosen, left, checks, plans };
}

/** How a pair judged again came out. */
export const RERUN_BUCKETS = [
  'stillFailing',
  'newlyFailing',
  'notConfirmed',
  'fixed',
  'nowJudged',
  'stillNotJudged',
] as const;
export type RerunBucket = (typeof RERUN_BUCKETS)[number];

export interface RerunComparison {
  /** Failed then, fail now. */
  readonly stillFailing: CheckChange[];
  /** Passed or skipped then (or not judged), fail now. */
  readonly newlyFailing: CheckChange[];
  /** Failed then, not judged now: not shown fixed. */
  readonly notConfirmed: CheckChange[];
  /** Failed then, pass now. */
  readonly fixed: CheckChange[];
  /** Skipped then, pass now. */
  readonly nowJudged: CheckChange[];
  /** Skipped then, skipped (or not judged) now. */
  readonly stillNotJudged: CheckChange[];
  /** Pairs the re-run judged besides those chosen, passing in both runs: how many. */
  readonly stillPassing: number;
  /** 1 when a check of a failing severity is still or newly failing, or failed and is not judged now; else 0. */
  readonly exitCode: 0 | 1;
}

/** Where a pair goes: one chosen (then failed or skipped), or another the re-run judged (null: not reported). */
function bucketOf(p: CheckPair, chosen: boolean): RerunBucket | 'stillPassing' | null {
  const { b, c } = statusesOf(p);
  if (c === 'fail') return b === 'fail' ? 'stillFailing' : 'newlyFailing';
  if (!chosen) return c === 'pass' && b === 'pass' ? 'stillPassing' : null;
  if (c === 'pass') return b === 'fail' ? 'fixed' : 'nowJudged';
  return b === 'fail' ? 'notConfirmed' : 'stillNotJudged';
}

/**
 * The re-run against the report it re-judges, per check and plan: each pair chosen, and any other the re-run
 * judged that fails now.
 */
export function compareRerun(before: Report, now: Report, selection: RerunSelection): RerunComparison {
  const key = (id: string, plan: PlanName | null) => `${id}\u0000${plan ?? ''}`;
  const chosen = new Set(selection.chosen.map((c) => key(c.check, c.plan)));
  const out: Omit<RerunComparison, 'exitCode' | 'stillPassing'> & { stillPassing: number } = {
    stillFailing: [],
    newlyFailing: [],
    notConfirmed: [],
    fixed: [],
    nowJudged: [],
    stillNotJudged: [],
    stillPassing: 0,
  };
  for (const pair of checkPairs(spread(before), spread(now))) {
    const where = bucketOf(pair, chosen.has(key(pair.id, pair.plan)));
    if (where === 'stillPassing') out.stillPassing++;
    else if (where !== null) out[where].push(changeOf(pair));
  }
  const failing = (xs: readonly CheckChange[]) => xs.some((x) => FAILING_SEVERITIES.has(x.severity));
  const exitCode = failing(out.stillFailing) || failing(out.newlyFailing) || failing(out.notConfirmed) ? 1 : 0;
  return { ...out, exitCode };
}
