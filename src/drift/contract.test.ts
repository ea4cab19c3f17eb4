import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { sampleReport } from '../testing/sample-report.js';
import { contractSide, diffContract } from './contract.js';

/** The sample report with the free key's figures changed. */
function withFreeFigures(limits: NonNullable<Report['keys'][number]['limits']>): Report {
  const r = sampleReport();
  return { ...r, keys: r.keys.map((k) => (k.plan === 'free' ? { ...k, limits } : k)) };
}

describe("the contract's figures judged", () => {
  it('are read from keys[].limits, without the notes, and drift with the declared tolerance', () => {
    const r = sampleReport();
    expect(contractSide({ ...r, notes: [] }, 'free')?.figures).toEqual({ perMinute: 60, perDay: 1000 });
    const approximate = withFreeFigures({ perMinute: 60, perDay: 1000, tolerancePercent: 5 });
    const free = diffContract(r, approximate).find((p) => p.plan === 'free')!;
    expect(free.drifts).toContainEqual({
      field: 'figures judged',
      baseline: '60/min, 1000/day',
      current: '60/min, 1000/day (tolerance 5 %)',
    });
  });

  it("are read from an older report's note (the legacy path), and not recorded without one", () => {
    const r = sampleReport();
    // A report before the plan table and keys[].limits (one with a plan table reads the table's figures first).
    const { planTable: _, ...noTable } = r;
    const older = { ...noTable, keys: r.keys.map(({ limits: _l, ...k }) => k) };
    const note = `Figures judged: ${r.keys.map((k) => `${k.label} 7/min, 70/day`).join('; ')}.`;
    expect(contractSide({ ...older, notes: [note] }, 'pro')?.figures).toEqual({ perMinute: 7, perDay: 70 });
    expect(contractSide({ ...older, notes: [] }, 'pro')?.figures).toBeNull();
  });
});
