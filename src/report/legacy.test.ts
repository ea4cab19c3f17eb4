/** The legacy path: reports of older versions, whose figures were only in their notes' words. */
import { describe, expect, it } from 'vitest';
import { keyLimits, keyLimitsOf, reportKey, withKeyLimits } from './key-limits.js';
import { legacyAnnouncedLimit, legacyKeyLimits } from './legacy.js';
import { derivePlanTable } from './plan-table.js';
import type { CheckResult } from './schema.js';

const FREE = { label: 'free#0 (…abcd)', plan: 'free' as const, sacrificial: false };
const PRO = { label: 'pro#0 (…wxyz)', plan: 'pro' as const, sacrificial: false };

describe("a key's judged figures", () => {
  it('are written as data, the declared tolerance in percent', () => {
    expect(reportKey({ ...PRO, limits: { perMinute: 300, perDay: 10_000 } })).toEqual({
      ...PRO,
      limits: { perMinute: 300, perDay: 10_000 },
    });
    expect(keyLimits({ perMinute: 300, perDay: 10_000, tolerance: 0.05 })).toEqual({
      perMinute: 300,
      perDay: 10_000,
      tolerancePercent: 5,
    });
  });

  it('are read from keys[].limits, not from the notes, when the report has them', () => {
    const keys = [{ ...FREE, limits: { perMinute: 60, perDay: 1000 } }];
    const notes = ['Figures judged: free#0 (…abcd) 1/min, 2/day.'];
    expect(keyLimitsOf({ keys, notes })).toEqual([{ label: FREE.label, plan: 'free', limits: keys[0]!.limits }]);
  });
});

describe('the legacy path (reports of older versions)', () => {
  const notes = ['Figures judged: free#0 (…abcd) 60/min, 1000/day; pro#0 (…wxyz) 600/min, 20000/day.'];

  it("reads a key's figures from the `Figures judged` note, one per run in a merged report", () => {
    expect(legacyKeyLimits({ notes }, PRO)).toEqual({ perMinute: 600, perDay: 20_000 });
    const merged = [
      'Figures judged: free#0 (…abcd) 60/min, 1000/day.',
      'Figures judged: pro#0 (…wxyz) 600/min, 20000/day.',
    ];
    expect(legacyKeyLimits({ notes: merged }, PRO)).toEqual({ perMinute: 600, perDay: 20_000 });
    expect(legacyKeyLimits({ notes: ['pro#0 (…wxyz) 600/min, 20000/day'] }, PRO)).toBeNull();
    expect(keyLimitsOf({ keys: [FREE, PRO], notes: [] })).toEqual([]);
  });

  it("reads them from an older report's plan table before its notes, and fills them in for a merge", () => {
    const planTable = [{ plan: 'pro' as const, sold: [{ perMinute: 1, perDay: 2, keys: [PRO.label] }], rows: [] }];
    expect(withKeyLimits({ keys: [FREE, PRO], notes, planTable })).toEqual([
      { ...FREE, limits: { perMinute: 60, perDay: 1000 } },
      { ...PRO, limits: { perMinute: 1, perDay: 2 } },
    ]);
  });

  it("reads the Limit counted against from an older ratelimit.enforced's words", () => {
    const words = "counted against the Limit the target announces (120), not the plan's figure";
    expect(legacyAnnouncedLimit(words)).toBe(120);
    expect(legacyAnnouncedLimit(undefined)).toBeNull();
    const o = {
      plan: 'pro' as const,
      status: 'pass' as const,
      counts: { passed: 1, failed: 0, skipped: 0 },
      evidence: [],
      reasons: [],
      info: { limit: words },
    };
    const enforced: CheckResult = { id: 'ratelimit.enforced', title: '', severity: 'critical', ...o, byPlan: [o] };
    const [pro] = derivePlanTable({ plans: ['pro'], checks: [enforced], keyTimelines: [] }, {});
    expect(pro!.rows.find((r) => r.figure === 'per-minute limit')!.measured).toBe('120/min, then 429');
  });
});
