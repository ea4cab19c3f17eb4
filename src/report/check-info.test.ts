import { describe, expect, it } from 'vitest';
import { checkInfoSchemas, hasDeclaredInfo, infoOf, infoProblems } from './check-info.js';
import { derivePlanTable } from './plan-table.js';
import type { CheckResult } from './schema.js';

type Outcome = CheckResult['byPlan'][number];

const outcome = (info: Record<string, unknown>, plan: Outcome['plan'] = 'pro'): Outcome => ({
  plan,
  status: 'pass',
  counts: { passed: 1, failed: 0, skipped: 0 },
  evidence: [],
  reasons: [],
  info,
});

const check = (id: string, o: Outcome): CheckResult => ({
  id,
  title: id,
  severity: 'critical',
  status: o.status,
  counts: o.counts,
  byPlan: [o],
});

describe("a check's typed info", () => {
  it('reads the facts its schema declares, typed', () => {
    const info = infoOf(
      'ratelimit.enforced',
      outcome({
        announcedLimit: 120,
        admission: { accepted: 61, sold: 60, spanSeconds: 3, tolerance: 0, atLeast: false },
      }),
    );
    expect(info.announcedLimit).toBe(120);
    expect(info.admission?.accepted).toBe(61);
    expect(infoOf('ratelimit.day-enforced', outcome({ acceptedInDay: 1000, retryAfterS: null }))).toEqual({
      acceptedInDay: 1000,
      retryAfterS: null,
    });
  });

  it('leaves out a fact of another shape, keeping the rest (a report edited by hand, or of another version)', () => {
    const o = outcome({ announcedLimit: '120', cause: 'two counters', admission: { accepted: 'many' } });
    expect(infoOf('ratelimit.enforced', o)).toEqual({ cause: 'two counters' });
    expect(infoOf('ratelimit.what-counts', outcome({ '200': 'counted', '404': 7 }))).toEqual({ '200': 'counted' });
    expect(infoOf('ban.probe', undefined)).toEqual({});
  });

  it('holds a report to the schemas: an undeclared check with info, or a fact of another shape, is named', () => {
    expect(infoProblems([check('ratelimit.enforced', outcome({ announcedLimit: 120 }))])).toEqual([]);
    expect(infoProblems([check('contract.transport', outcome({}))])).toEqual([]);
    expect(infoProblems([check('contract.transport', outcome({ x: 1 }))])).toEqual([
      'contract.transport records info but declares no schema for it',
    ]);
    const [problem] = infoProblems([check('ratelimit.day-enforced', outcome({ acceptedInDay: 'a thousand' }))]);
    expect(problem).toMatch(/^ratelimit\.day-enforced \(pro\): acceptedInDay: /);
    expect(infoProblems([check('ratelimit.algorithm', outcome({ shape: 'fixed', made: 'up' }))])).toHaveLength(1);
  });

  it('builds the schemas once, on first use', () => {
    expect(checkInfoSchemas()).toBe(checkInfoSchemas());
    expect(hasDeclaredInfo('ban.probe')).toBe(true);
    expect(hasDeclaredInfo('toString')).toBe(false);
  });

  it("gives the plan table the Limit counted against from `announcedLimit`, whatever the note's words", () => {
    const enforced = outcome({ announcedLimit: 120, limit: 'words that name no number' });
    const [pro] = derivePlanTable(
      { plans: ['pro'], checks: [check('ratelimit.enforced', enforced)], keyTimelines: [] },
      {
        pro: [{ perMinute: 300, perDay: 10_000, keys: ['pro#0'] }],
      },
    );
    const row = pro!.rows.find((r) => r.figure === 'per-minute limit')!;
    expect(row.measured).toBe('120/min, then 429');
    expect(row.detail).toBe('words that name no number');
  });
});
