import { describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import { DAY_ENFORCED, derivePlanTable, PLAN_ROWS, planTableOf, soldFromKeys, soldFromReport } from './plan-table.js';
import { type CheckResult, PLAN_TABLE_FIGURES, type PlanRow, type Report, ReportSchema } from './schema.js';

type Outcome = CheckResult['byPlan'][number];
type Status = Outcome['status'];

/** One check's outcome for one plan: passed, failed (with a message) or skipped (with a reason). */
function outcome(plan: PlanName | null, status: Status, more: Partial<Outcome> = {}): Outcome {
  const counts = {
    passed: status === 'pass' ? 1 : 0,
    failed: status === 'fail' ? 1 : 0,
    skipped: status === 'skip' ? 1 : 0,
  };
  return { plan, status, counts, evidence: [], reasons: [], info: {}, ...more };
}

function check(id: string, ...byPlan: Outcome[]): CheckResult {
  const status: Status = byPlan.some((o) => o.status === 'fail')
    ? 'fail'
    : byPlan.some((o) => o.status === 'pass')
      ? 'pass'
      : 'skip';
  const counts = { passed: 0, failed: 0, skipped: 0 };
  return { id, title: id, severity: 'critical', status, counts, byPlan };
}

const fail = (message: string, info: Record<string, unknown> = {}) => ({ evidence: [{ message }], info });
const skip = (...reasons: string[]) => ({ reasons });

const PRO_SOLD = soldFromKeys([{ label: 'pro#0 (…abcd)', plan: 'pro', limits: { perMinute: 300, perDay: 10_000 } }]);

/** A pro plan whose every figure was measured and held. */
function allHeld(): CheckResult[] {
  return [
    check('ratelimit.enforced', outcome('pro', 'pass')),
    check('ratelimit.no-over-admission', outcome('pro', 'pass')),
    check('ratelimit.limit-matches-plan', outcome('pro', 'pass')),
    check(
      DAY_ENFORCED,
      outcome('pro', 'pass', {
        info: { dayLimitSold: 10_000, acceptedInDay: 10_000, retryAfterS: 3600, dayEnd: '2030-01-02T00:00:00.000Z' },
      }),
    ),
    check(
      'ratelimit.algorithm',
      outcome('pro', 'pass', {
        info: { shape: 'fixed window aligned to the clock', limit: '300', evidence: '12 pairs of sequential answers' },
      }),
    ),
    check(
      'ratelimit.what-counts',
      outcome('pro', 'pass', {
        info: {
          '401': 'never charged to a key (requests without a valid key carry no key); see auth.no-quota-drain',
          '429': 'not measured: it would need a request inside a Retry-After, which petload never sends',
          '400': 'counted',
          '404': 'not counted',
        },
      }),
    ),
    check('retry-after.present', outcome('pro', 'pass')),
    check('retry-after.syntax', outcome('pro', 'pass', { counts: { passed: 3, failed: 0, skipped: 0 } })),
    check('retry-after.plausible', outcome('pro', 'pass')),
    check('retry-after.honest', outcome('pro', 'pass')),
    check(
      'ban.probe',
      outcome('pro', 'pass', {
        info: {
          banThreshold: 4,
          banStatus: 403,
          banDurationSeconds: 120,
          banDurationUncertaintySeconds: 1,
          recovered: true,
        },
      }),
    ),
  ];
}

const WAITS: Report['keyTimelines'] = [
  {
    key: 'pro#0 (…abcd)',
    plan: 'pro',
    remaining: [],
    refusals: [
      [1000, 12],
      [2000, null],
      [3000, 41.04],
    ],
  },
  { key: 'free#0 (…wxyz)', plan: 'free', remaining: [], refusals: [[1000, 99]] },
];

function rowsOf(checks: CheckResult[], plans: PlanName[] = ['pro'], sold = PRO_SOLD): PlanRow[] {
  return derivePlanTable({ plans, checks, keyTimelines: WAITS }, sold)[0]!.rows;
}

const row = (rows: PlanRow[], figure: PlanRow['figure']) => rows.find((r) => r.figure === figure)!;

/** `checks` with the outcomes of `id` replaced. */
function withCheck(checks: CheckResult[], id: string, ...byPlan: Outcome[]): CheckResult[] {
  return [...checks.filter((c) => c.id !== id), check(id, ...byPlan)];
}

describe('derivePlanTable: held', () => {
  it('gives every figure of a plan, in order, each held by its check with the measured figure', () => {
    const rows = rowsOf(allHeld());
    expect(rows.map((r) => r.figure)).toEqual([...PLAN_TABLE_FIGURES]);
    expect(rows.map((r) => [r.figure, r.sold, r.measured, r.status, r.check])).toEqual([
      ['per-minute limit', '300/min', '300/min, then 429', 'held', 'ratelimit.enforced'],
      ['per-day limit', '10000/day', '10000/day, then 429 (Retry-After 3600 s)', 'held', DAY_ENFORCED],
      ['algorithm', null, 'fixed window aligned to the clock, limit 300', 'held', 'ratelimit.algorithm'],
      [
        'what counts',
        null,
        '400 counted, 401 never charged to a key, 404 not counted, 429 not measured',
        'held',
        'ratelimit.what-counts',
      ],
      ['Retry-After', 'on every 429', 'well formed on 3 429s; waits 12–41 s; honoured', 'held', 'retry-after.honest'],
      ['ban', null, 'threshold 4 requests inside Retry-After, then 403, for 120 s (±1 s)', 'held', 'ban.probe'],
    ]);
    expect(row(rows, 'per-day limit').detail).toBe('the day ends at 2030-01-02T00:00:00.000Z');
    expect(row(rows, 'algorithm').detail).toBe('12 pairs of sequential answers');
  });

  it('reads the limit the enforce probe counted against when the target announces another', () => {
    const announced = 'counted against the Limit the target announces (250), not the plan figure';
    const checks = withCheck(allHeld(), 'ratelimit.enforced', outcome('pro', 'pass', { info: { limit: announced } }));
    expect(row(rowsOf(checks), 'per-minute limit')).toMatchObject({ measured: '250/min, then 429', detail: announced });
  });

  it('names a token bucket with its figures', () => {
    const info = { shape: 'token bucket', burst: '300', refillPerSecond: '5.00', spacing: '0.20 s', evidence: 'e' };
    const checks = withCheck(allHeld(), 'ratelimit.algorithm', outcome('pro', 'pass', { info }));
    expect(row(rowsOf(checks), 'algorithm').measured).toBe('token bucket, burst 300, refill 5.00/s');
  });
});

describe('derivePlanTable: not held', () => {
  it('is not held when its own check failed: the measured figure is the first clause of the evidence', () => {
    const checks = withCheck(
      allHeld(),
      'ratelimit.enforced',
      outcome('pro', 'fail', fail('320 requests accepted within 3.0 s of the first; the limit is 300 a minute')),
    );
    expect(row(rowsOf(checks), 'per-minute limit')).toEqual({
      figure: 'per-minute limit',
      sold: '300/min',
      measured: '320 requests accepted within 3.0 s of the first',
      status: 'not held',
      check: 'ratelimit.enforced',
      detail: '320 requests accepted within 3.0 s of the first; the limit is 300 a minute',
    });
  });

  it('is not held, by that check, when another check of the figure failed though its own passed', () => {
    const checks = withCheck(
      allHeld(),
      'ratelimit.limit-matches-plan',
      outcome('pro', 'fail', fail('X-RateLimit-Limit 250 is neither the per-minute (300) nor the per-day figure')),
    );
    expect(row(rowsOf(checks), 'per-minute limit')).toMatchObject({
      status: 'not held',
      check: 'ratelimit.limit-matches-plan',
    });
    const ra = withCheck(
      allHeld(),
      'retry-after.syntax',
      outcome('pro', 'fail', fail('Retry-After "soon" is neither')),
    );
    expect(row(rowsOf(ra), 'Retry-After')).toMatchObject({
      status: 'not held',
      check: 'retry-after.syntax',
      measured: 'Retry-After "soon" is neither',
    });
  });

  it("says how many requests the day accepted when the day's check failed", () => {
    const checks = withCheck(
      allHeld(),
      DAY_ENFORCED,
      outcome(
        'pro',
        'fail',
        fail('10003 accepted in the day window; the day figure is 10000', { acceptedInDay: 10_003 }),
      ),
    );
    expect(row(rowsOf(checks), 'per-day limit')).toMatchObject({
      measured: '10003 accepted in the day',
      status: 'not held',
      detail: '10003 accepted in the day window; the day figure is 10000',
    });
  });
});

describe('derivePlanTable: not measured', () => {
  it('gives the skip reason of a skipped check', () => {
    const checks = withCheck(allHeld(), 'ban.probe', outcome('pro', 'skip', skip('opt-in: needs a sacrificial key')));
    expect(row(rowsOf(checks), 'ban')).toMatchObject({
      measured: null,
      status: 'not measured',
      check: 'ban.probe',
      detail: 'opt-in: needs a sacrificial key',
    });
  });

  it('gives the reason of a check the run never exercised, and says which check a report lacks', () => {
    let checks = withCheck(allHeld(), 'ratelimit.enforced', outcome(null, 'skip', skip('not exercised: no enforce')));
    checks = checks.filter((c) => c.id !== DAY_ENFORCED);
    const rows = rowsOf(checks);
    expect(row(rows, 'per-minute limit')).toMatchObject({
      status: 'not measured',
      detail: 'not exercised: no enforce',
    });
    expect(row(rows, 'per-day limit')).toMatchObject({
      sold: '10000/day',
      status: 'not measured',
      check: DAY_ENFORCED,
      detail: `no outcome of ${DAY_ENFORCED} in this report`,
    });
  });

  it('says so when a check was judged for other plans only', () => {
    const checks = withCheck(allHeld(), 'ratelimit.what-counts', outcome('free', 'pass'));
    expect(row(rowsOf(checks), 'what counts').detail).toBe('ratelimit.what-counts was not judged for the pro plan');
  });

  it("is not measured when the limiter's shape could not be told", () => {
    const info = { shape: 'unknown', evidence: '2 pairs of sequential answers' };
    const checks = withCheck(allHeld(), 'ratelimit.algorithm', outcome('pro', 'pass', { info }));
    expect(row(rowsOf(checks), 'algorithm')).toMatchObject({
      status: 'not measured',
      measured: null,
      detail: "the answers did not tell the limiter's shape: 2 pairs of sequential answers",
    });
  });

  it("keeps Retry-After's form when its accuracy was not measured", () => {
    const checks = withCheck(allHeld(), 'retry-after.honest', outcome('pro', 'skip', skip('no 429 to wait out')));
    expect(row(rowsOf(checks), 'Retry-After')).toMatchObject({
      status: 'not measured',
      measured: 'well formed on 3 429s; waits 12–41 s; accuracy not measured',
      detail: 'no 429 to wait out',
    });
  });

  it('leaves every cell not measured for a report without checks, and the sold figures unknown without keys', () => {
    const rows = rowsOf([], ['pro'], {});
    expect(rows.every((r) => r.status === 'not measured' && r.detail!.startsWith('no outcome of '))).toBe(true);
    expect(row(rows, 'per-minute limit').sold).toBeNull();
    expect(PLAN_ROWS.map((r) => r.figure)).toEqual([...PLAN_TABLE_FIGURES]);
  });
});

describe('the figures sold', () => {
  it('groups keys by their figures, and names both when a plan has two', () => {
    const sold = soldFromKeys([
      { label: 'a', plan: 'free', limits: { perMinute: 60, perDay: 1000 } },
      { label: 'b', plan: 'free', limits: { perMinute: 60, perDay: 1000 } },
      { label: 'c', plan: 'free', limits: { perMinute: 120, perDay: 1000 } },
    ]);
    expect(sold.free).toEqual([
      { perMinute: 60, perDay: 1000, keys: ['a', 'b'] },
      { perMinute: 120, perDay: 1000, keys: ['c'] },
    ]);
    const table = derivePlanTable({ plans: ['free'], checks: [], keyTimelines: [] }, sold);
    expect(table[0]!.sold).toEqual(sold.free);
    expect(row(table[0]!.rows, 'per-minute limit').sold).toBe('60/min or 120/min');
    expect(row(table[0]!.rows, 'per-day limit').sold).toBe('1000/day');
  });

  it("reads them from a report's plan table, else from its `Figures judged` note (reports of older versions)", () => {
    const keys = [
      { label: 'free#0 (…abcd)', plan: 'free' as const, sacrificial: false },
      { label: 'pro#0 (…wxyz)', plan: 'pro' as const, sacrificial: false },
    ];
    const notes = ['Figures judged: free#0 (…abcd) 60/min, 1000/day; pro#0 (…wxyz) 600/min, 20000/day.'];
    expect(soldFromReport({ keys, notes })).toEqual({
      free: [{ perMinute: 60, perDay: 1000, keys: ['free#0 (…abcd)'] }],
      pro: [{ perMinute: 600, perDay: 20_000, keys: ['pro#0 (…wxyz)'] }],
    });
    expect(soldFromReport({ keys, notes: [] })).toEqual({});
    // A merged report: a note per run.
    const merged = [
      'merged from 2 runs',
      'Figures judged: free#0 (…abcd) 60/min, 1000/day.',
      'Figures judged: pro#0 (…wxyz) 600/min, 20000/day.',
    ];
    expect(soldFromReport({ keys, notes: merged })).toEqual(soldFromReport({ keys, notes }));
    const planTable = [{ plan: 'pro' as const, sold: [{ perMinute: 1, perDay: 2, keys: [] }], rows: [] }];
    expect(soldFromReport({ keys, notes, planTable })).toEqual({ pro: planTable[0]!.sold });
  });
});

describe('planTableOf', () => {
  it('derives the table again from the report it renders, for every plan it judged', () => {
    const report = {
      plans: ['free', 'pro'],
      checks: allHeld(),
      keyTimelines: WAITS,
      notes: ['Figures judged: pro#0 (…abcd) 300/min, 10000/day.'],
      keys: [{ label: 'pro#0 (…abcd)', plan: 'pro', sacrificial: false }],
    } as unknown as Report;
    const table = planTableOf(report);
    expect(table.map((p) => p.plan)).toEqual(['free', 'pro']);
    expect(table[1]!.rows).toEqual(rowsOf(allHeld()));
    // free: no figures recorded, nothing judged.
    expect(table[0]!.rows.every((r) => r.status === 'not measured')).toBe(true);
    expect(row(table[0]!.rows, 'per-minute limit').sold).toBeNull();
  });

  it('parses in report.json, and a report without one (an older version) parses too', () => {
    const table = derivePlanTable({ plans: ['pro'], checks: allHeld(), keyTimelines: WAITS }, PRO_SOLD);
    const shape = ReportSchema.shape.planTable;
    expect(shape.parse(table)).toEqual(table);
    expect(shape.parse(undefined)).toBeUndefined();
    expect(() => shape.parse([{ ...table[0], rows: [{ ...table[0]!.rows[0], status: 'ok' }] }])).toThrow();
  });
});
