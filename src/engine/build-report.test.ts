import { describe, expect, it } from 'vitest';
import { Ledger } from '../checks/ledger.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import { createMetrics } from '../metrics/recorder.js';
import { DAY_ENFORCED } from '../report/plan-table.js';
import { type PlanRow, ReportSchema } from '../report/schema.js';
import { testKey } from '../testing/exchange-builder.js';
import { buildReport, type ReportInput } from './build-report.js';

const clock: Clock = { scale: 1, now: () => 0, monotonic: () => 0, sleep: async () => undefined };

function input(ledger: Ledger, keys: readonly ApiKey[]): ReportInput {
  return {
    scenario: { name: 'plan-audit' },
    target: { url: 'http://127.0.0.1:1/v1', embedded: true, timeScale: 60, faults: [] },
    plans: ['free', 'pro'],
    keys,
    startedAt: new Date('2030-01-01T00:00:00Z'),
    endedAt: new Date('2030-01-01T00:01:00Z'),
    outcomes: ledger.all(),
    thresholds: [],
    thresholdSeverity: new Map(),
    metrics: createMetrics({ clock, startMono: 0 }).snapshot(),
    notes: [],
  };
}

describe('buildReport: the plan table', () => {
  it("puts each plan's figures sold against measured into the report, from its checks and the keys' figures", () => {
    const ledger = new Ledger();
    ledger.pass('ratelimit.enforced', 'free');
    ledger.fail('ratelimit.enforced', 'pro', '301 requests accepted within 2.0 s of the first; the limit is 300');
    ledger.skip('ban.probe', 'free', 'opt-in: needs a free key marked "sacrificial": true');
    // The plan audit's facts (src/probes/plan-audit.ts).
    ledger.facts(DAY_ENFORCED, 'free', {
      dayLimitSold: 1000,
      acceptedInDay: 1000,
      retryAfterS: 120,
      dayEnd: '2030-01-02T00:00:00.000Z',
    });
    ledger.pass(DAY_ENFORCED, 'free');
    const custom: ApiKey = { ...testKey('pro', 2, 'abcd'), limits: { perMinute: 600, perDay: 20_000 } };
    const report = buildReport(input(ledger, [testKey('free'), testKey('pro'), custom]));

    expect(ReportSchema.parse(report).planTable).toEqual(report.planTable);
    const [free, pro] = report.planTable!;
    expect(free!.plan).toBe('free');
    expect(free!.sold).toEqual([{ perMinute: 60, perDay: 1000, keys: [testKey('free').label] }]);
    const cell = (rows: PlanRow[], figure: string) => rows.find((r) => r.figure === figure)!;
    expect(cell(free!.rows, 'per-minute limit')).toMatchObject({ status: 'held', measured: '60/min, then 429' });
    expect(cell(free!.rows, 'per-day limit')).toMatchObject({
      sold: '1000/day',
      status: 'held',
      measured: '1000/day, then 429 (Retry-After 120 s)',
      check: DAY_ENFORCED,
    });
    expect(cell(free!.rows, 'ban')).toMatchObject({
      status: 'not measured',
      detail: 'opt-in: needs a free key marked "sacrificial": true',
    });
    expect(pro!.sold.map((s) => s.perMinute)).toEqual([300, 600]);
    expect(cell(pro!.rows, 'per-minute limit')).toMatchObject({
      sold: '300/min or 600/min',
      status: 'not held',
      measured: '301 requests accepted within 2.0 s of the first',
    });
    // Judged for another plan only; judged for none (the catalogue's reason).
    expect(cell(pro!.rows, 'per-day limit')).toMatchObject({
      status: 'not measured',
      detail: `${DAY_ENFORCED} was not judged for the pro plan`,
    });
    expect(cell(pro!.rows, 'algorithm').detail).toMatch(/^not exercised: /);
  });

  it('keeps schemaVersion 1, and a report without a plan table (an older one) still parses', () => {
    const report = buildReport(input(new Ledger(), [testKey('free')]));
    expect(report.schemaVersion).toBe(1);
    const { planTable: _, ...older } = report;
    expect(ReportSchema.parse(older).planTable).toBeUndefined();
  });
});
