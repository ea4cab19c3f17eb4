import { describe, expect, it } from 'vitest';
import { deriveAdmission, describeAdmission } from './admission.js';
import type { CheckResult } from './schema.js';

/** A check's result with one outcome per plan, each with its info facts. */
const check = (id: string, ...plans: ['free' | 'pro', Record<string, unknown>][]): CheckResult => ({
  id,
  title: id,
  severity: 'critical',
  status: 'pass',
  counts: { passed: 1, failed: 0, skipped: 0 },
  byPlan: plans.map(([plan, info]) => ({
    plan,
    status: 'pass',
    counts: { passed: 1, failed: 0, skipped: 0 },
    evidence: [],
    reasons: [],
    info,
  })),
});

describe("each plan's measured admission against the figure sold", () => {
  it('reads the minute from ratelimit.enforced and the day from ratelimit.day-enforced, within or beyond', () => {
    const checks = [
      check(
        'ratelimit.enforced',
        ['pro', { admission: { accepted: 309, sold: 300, spanSeconds: 4, tolerance: 0.05, atLeast: false } }],
        ['free', { admission: { accepted: 69, sold: 60, tolerance: 0, atLeast: true } }],
      ),
      check('ratelimit.day-enforced', ['free', { acceptedInDay: 1000, dayLimitSold: 1000 }]),
    ];
    const [free, pro, day] = deriveAdmission({ checks }).sort((a, b) => a.accepted - b.accepted);
    expect(pro).toEqual({
      plan: 'pro',
      window: 'minute',
      accepted: 309,
      sold: 300,
      excessPercent: 3,
      tolerancePercent: 5,
      atLeast: false,
      within: true,
    });
    expect(describeAdmission(pro!)).toBe('309/min against 300, +3 %, within the declared 5 %');
    expect(free).toMatchObject({ excessPercent: 15, within: false, atLeast: true });
    expect(describeAdmission(free!)).toBe('at least 69/min against 60, +15 %, no tolerance declared');
    expect(day).toMatchObject({ plan: 'free', window: 'day', excessPercent: 0, within: true });
    expect(describeAdmission(day!)).toBe('1000/day against 1000, 0 %');
  });

  it('reads nothing where the checks recorded no count', () => {
    expect(deriveAdmission({ checks: [check('ratelimit.enforced', ['free', {}])] })).toEqual([]);
  });
});
