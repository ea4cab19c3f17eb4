import { describe, expect, it } from 'vitest';
import { SEVERITIES, type Severity } from '../checks/catalogue.js';
import type { CheckResult } from './schema.js';
import { verdictOf } from './verdict.js';

function check(id: string, severity: Severity, status: CheckResult['status']): CheckResult {
  return { id, title: id, severity, status, counts: { passed: 0, failed: 0, skipped: 0 }, byPlan: [] };
}

describe('verdictOf', () => {
  it.each([
    ['critical', 'fail'],
    ['major', 'fail'],
    ['minor', 'pass'],
    ['advisory', 'pass'],
    ['info', 'pass'],
  ] as const)('a failed %s check makes the run %s', (severity, verdict) => {
    const v = verdictOf([check('a', 'critical', 'pass'), check('b', severity, 'fail')]);
    expect(v.verdict).toBe(verdict);
    expect(v.failed.map((c) => c.id)).toEqual(verdict === 'fail' ? ['b'] : []);
    expect(v.warnings.map((c) => c.id)).toEqual(verdict === 'fail' ? [] : ['b']);
  });

  it('sorts every check into exactly one list', () => {
    const checks = SEVERITIES.flatMap((s) =>
      (['pass', 'fail', 'skip'] as const).map((st) => check(`${s}-${st}`, s, st)),
    );
    const v = verdictOf(checks);
    expect(v.passed.map((c) => c.id)).toEqual(SEVERITIES.map((s) => `${s}-pass`));
    expect(v.skipped.map((c) => c.id)).toEqual(SEVERITIES.map((s) => `${s}-skip`));
    expect(v.failed.map((c) => c.id)).toEqual(['critical-fail', 'major-fail']);
    expect(v.warnings.map((c) => c.id)).toEqual(['minor-fail', 'advisory-fail', 'info-fail']);
    expect(verdictOf([]).verdict).toBe('pass');
  });

  it('a critical or major check cut short by an ended probe fails the run unless a check it names failed', () => {
    const cut = (id: string, severity: Severity, cutShort: string[]): CheckResult => {
      const c = check(id, severity, 'skip');
      const plan = { plan: 'free' as const, status: 'skip' as const, counts: c.counts, evidence: [], info: {} };
      return { ...c, byPlan: [{ ...plan, reasons: ['not judged: the probe ended early (…)'], cutShort }] };
    };
    // The owner failed: the run fails on it, and the cut-short check is a skip pointing at it.
    const owned = verdictOf([
      check('retry-after.honest', 'major', 'fail'),
      cut('a', 'critical', ['retry-after.honest']),
    ]);
    expect(owned).toMatchObject({ verdict: 'fail', cutShort: [] });
    expect(owned.failed.map((c) => c.id)).toEqual(['retry-after.honest']);
    // No owner named, or the owner did not fail (its failure was excused): a promise unjudged, not a pass.
    for (const owners of [[], ['retry-after.honest']]) {
      const v = verdictOf([check('retry-after.honest', 'major', 'skip'), cut('a', 'critical', owners)]);
      expect(v.verdict).toBe('fail');
      expect(v.cutShort.map((c) => c.id)).toEqual(['a']);
      expect(v.skipped.map((c) => c.id)).toEqual(['retry-after.honest', 'a']);
      expect(v.failed).toEqual([]);
    }
    // A minor check cut short, or a skip that is no early end: the run passes.
    expect(verdictOf([cut('m', 'minor', []), check('b', 'critical', 'skip')]).verdict).toBe('pass');
  });
});
