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
});
