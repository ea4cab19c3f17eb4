import { describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import { CATALOGUE, type CheckId, notExercised } from '../checks/catalogue.js';
import type { CheckResult, Report } from '../report/schema.js';
import { sampleReport } from '../testing/sample-report.js';
import { compareRerun, namedChecks, rerunSelection } from './rerun.js';

type Outcome = CheckResult['byPlan'][number];
type Status = Outcome['status'];

const base = sampleReport();

/** One outcome: a failure with its evidence, a skip with its reasons, a pass. */
function outcome(plan: PlanName | null, status: Status, more: Partial<Outcome> = {}): Outcome {
  const counts = {
    passed: status === 'pass' ? 1 : 0,
    failed: status === 'fail' ? 1 : 0,
    skipped: status === 'skip' ? 1 : 0,
  };
  const evidence = status === 'fail' ? [{ message: `${plan ?? 'no plan'} broke it` }] : [];
  return { plan, status, counts, evidence, reasons: [], info: {}, ...more };
}

function check(id: string, ...byPlan: Outcome[]): CheckResult {
  const severity = id in CATALOGUE ? CATALOGUE[id as CheckId].severity : 'major';
  const status = byPlan.some((o) => o.status === 'fail')
    ? 'fail'
    : byPlan.every((o) => o.status === 'skip')
      ? 'skip'
      : 'pass';
  const counts = { passed: 0, failed: 0, skipped: 0 };
  return { id, title: id, severity, status, counts, byPlan };
}

const report = (plans: PlanName[], ...checks: CheckResult[]): Report => ({ ...base, plans, checks });
const skip = (plan: PlanName | null, ...reasons: string[]) => outcome(plan, 'skip', { reasons });
const lone = (id: CheckId) => check(id, skip(null, notExercised(id)));
const all = () => true;
const whyOf = (s: ReturnType<typeof rerunSelection>) => [
  ...s.chosen.map((c) => `${c.check} ${c.plan ?? '-'}: ${c.why}`),
  ...s.left.map((c) => `${c.check} ${c.plan ?? '-'}: left, ${c.why}`),
];

describe('rerunSelection: what a report leaves to judge again', () => {
  it('every failure on each plan it failed on, nothing that passed; the plans are those of the choices', () => {
    const r = report(
      ['free', 'pro'],
      check('contract.error-shape', outcome(null, 'fail'), outcome('free', 'pass'), outcome('pro', 'fail')),
      check('ratelimit.enforced', outcome('free', 'pass'), outcome('pro', 'pass')),
    );
    const s = rerunSelection(r, all);
    expect(whyOf(s)).toEqual(['contract.error-shape -: failed', 'contract.error-shape pro: failed']);
    expect(s.checks).toEqual(['contract.error-shape']);
    expect(s.plans).toEqual(['pro']);
    expect(s.chosen[0]!.detail).toBe('no plan broke it');
  });

  it('a skip whose probe the target cut short, and the skips that wait on it, to any depth', () => {
    const r = report(
      ['free'],
      check('ratelimit.enforced', outcome('free', 'skip', { reasons: ['ended early'], cutShort: [] })),
      check('retry-after.honest', skip('free', 'no 429 to wait out (see ratelimit.enforced)')),
      check('ratelimit.quota-restored', skip('free', 'nothing to restore (see retry-after.honest)')),
    );
    expect(whyOf(rerunSelection(r, all))).toEqual([
      'ratelimit.enforced free: cut short',
      'retry-after.honest free: waits on',
      'ratelimit.quota-restored free: waits on',
    ]);
  });

  it("a skip deferred to a failed check (its words: that defect is X's) is judged again; one waiting on no defect is not", () => {
    const r = report(
      ['free'],
      check('contract.error-shape', outcome('free', 'fail')),
      check(
        'retry-after.error-body',
        skip('free', "the 429 body has the defect: that defect is contract.error-shape's"),
      ),
      check('ratelimit.algorithm', outcome('free', 'pass')),
      check(
        'ratelimit.window-consistency',
        skip('free', 'Remaining rose within the window (as ratelimit.algorithm reads the limiter)'),
      ),
    );
    expect(whyOf(rerunSelection(r, all))).toEqual([
      'contract.error-shape free: failed',
      'retry-after.error-body free: waits on',
      'ratelimit.window-consistency free: left, no defect',
    ]);
  });

  it('a check nothing recorded: judged again on every plan when the scenario judges it, else left', () => {
    const r = report(['free', 'pro'], lone('retry-after.present'), lone('ratelimit.day-enforced'));
    const judges = (id: CheckId) => id !== 'ratelimit.day-enforced';
    const s = rerunSelection(r, judges);
    expect(whyOf(s)).toEqual([
      'retry-after.present free: not exercised',
      'retry-after.present pro: not exercised',
      'ratelimit.day-enforced free: left, never judged',
      'ratelimit.day-enforced pro: left, never judged',
    ]);
    expect(s.plans).toEqual(['free', 'pro']);
  });

  it('a skip for a reason that names no check (its judge ran and could not judge) is judged again', () => {
    const r = report(['pro'], check('list.status-filter', skip('pro', 'the store held no animal of that status')));
    expect(whyOf(rerunSelection(r, all))).toEqual(['list.status-filter pro: not judged']);
  });

  it('a failed threshold is left (judged on the whole run), and a report with nothing to look at gives nothing', () => {
    const r = report(
      ['free'],
      check('threshold.p(95) < 250ms', outcome(null, 'fail')),
      check('auth.challenge', outcome(null, 'pass')),
    );
    const s = rerunSelection(r, all);
    expect(whyOf(s)).toEqual(['threshold.p(95) < 250ms -: left, threshold']);
    expect(s.checks).toEqual([]);
    expect(s.plans).toEqual(['free']);
  });

  it('reads the check ids a reason names, and nothing else', () => {
    expect(namedChecks('no 429 to wait out (see ratelimit.enforced, retry-after.present)')).toEqual([
      'ratelimit.enforced',
      'retry-after.present',
    ]);
    expect(namedChecks('GET /pets?limit=1 answered in 3.5 s; e.g. nothing.here')).toEqual([]);
  });
});

describe('compareRerun: what the re-run made of each pair', () => {
  const before = report(
    ['free'],
    check('ratelimit.enforced', outcome('free', 'fail')),
    check('contract.error-shape', outcome(null, 'fail'), outcome('free', 'fail')),
    check('retry-after.honest', skip('free', 'no 429 to wait out (see ratelimit.enforced)')),
    lone('retry-after.present'),
    check('ratelimit-fields.syntax', skip(null, notExercised('ratelimit-fields.syntax'))),
    check('auth.challenge', outcome(null, 'pass')),
  );
  const selection = rerunSelection(before, all);

  it('fixed, still failing, now judged, still not judged; exit 1 while a critical check still fails', () => {
    const now = report(
      ['free'],
      check('ratelimit.enforced', outcome('free', 'pass')),
      check('contract.error-shape', outcome(null, 'fail'), outcome('free', 'fail')),
      check('retry-after.honest', outcome('free', 'pass')),
      check('retry-after.present', outcome('free', 'pass')),
      lone('ratelimit-fields.syntax'),
      check('auth.challenge', outcome(null, 'pass')),
    );
    const c = compareRerun(before, now, selection);
    const names = (xs: readonly { id: string; plan: string | null }[]) => xs.map((x) => `${x.id} ${x.plan ?? '-'}`);
    expect(names(c.fixed)).toEqual(['ratelimit.enforced free']);
    expect(names(c.stillFailing)).toEqual(['contract.error-shape -', 'contract.error-shape free']);
    expect(names(c.nowJudged)).toEqual(['retry-after.honest free', 'retry-after.present free']);
    expect(names(c.stillNotJudged)).toEqual(['ratelimit-fields.syntax free']);
    expect(c.newlyFailing).toEqual([]);
    expect(c.stillPassing).toBe(1);
    expect(c.exitCode).toBe(1);
  });

  it('all fixed or judged: exit 0; a check that fails now where it did not (judged again or not): newly failing, exit 1', () => {
    const fixed = report(
      ['free'],
      check('ratelimit.enforced', outcome('free', 'pass')),
      check('contract.error-shape', outcome(null, 'pass'), outcome('free', 'pass')),
      check('retry-after.honest', outcome('free', 'pass')),
      check('retry-after.present', outcome('free', 'pass')),
    );
    expect(compareRerun(before, fixed, selection).exitCode).toBe(0);
    const broken = report(
      ['free'],
      ...fixed.checks.filter((c) => c.id !== 'retry-after.present'),
      check('retry-after.present', outcome('free', 'fail')),
      check('auth.challenge', outcome(null, 'fail')),
    );
    const c = compareRerun(before, broken, selection);
    expect(c.newlyFailing.map((x) => `${x.id} ${x.baseline} -> ${x.current}`)).toEqual([
      'retry-after.present skip -> fail',
      'auth.challenge pass -> fail',
    ]);
    expect(c.exitCode).toBe(1);
  });

  it('a failure not judged now is not shown fixed (exit 1); an advisory check still failing is a warning (exit 0)', () => {
    const unjudged = report(
      ['free'],
      check('ratelimit.enforced', skip('free', 'ended early')),
      check('contract.error-shape', outcome(null, 'pass'), outcome('free', 'pass')),
    );
    const c = compareRerun(before, unjudged, selection);
    expect(c.notConfirmed.map((x) => x.id)).toEqual(['ratelimit.enforced']);
    expect(c.exitCode).toBe(1);
    const advisory = report(['free'], check('ratelimit-fields.syntax', outcome('free', 'fail')));
    const w = compareRerun(advisory, advisory, rerunSelection(advisory, all));
    expect(w.stillFailing.map((x) => x.id)).toEqual(['ratelimit-fields.syntax']);
    expect(w.exitCode).toBe(0);
  });
});
