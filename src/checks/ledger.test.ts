import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import { type CheckId, CATALOGUE } from './catalogue.js';
import { Ledger } from './ledger.js';

const IDS = Object.keys(CATALOGUE).slice(0, 6) as CheckId[];
const PLANS: readonly (PlanName | null)[] = ['free', 'pro', null];

describe('Ledger', () => {
  it('keeps each check and plan apart whatever order the outcomes come in, listing checks as first recorded', () => {
    const outcome = fc.record({
      id: fc.constantFrom(...IDS),
      plan: fc.constantFrom(...PLANS),
      kind: fc.constantFrom('pass', 'fail', 'skip'),
    });
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 200 }), (recorded) => {
        const ledger = new Ledger();
        const tally = new Map<string, { passed: number; failed: number; skipped: number }>();
        for (const { id, plan, kind } of recorded) {
          if (kind === 'pass') ledger.pass(id, plan);
          else if (kind === 'fail') ledger.fail(id, plan, 'a failure');
          else ledger.skip(id, plan, 'a reason');
          const key = `${id} ${plan}`;
          const t = tally.get(key) ?? { passed: 0, failed: 0, skipped: 0 };
          if (kind === 'pass') t.passed++;
          else if (kind === 'fail') t.failed++;
          else t.skipped++;
          tally.set(key, t);
        }
        const all = ledger.all();
        expect(
          new Map(all.map((o) => [`${o.id} ${o.plan}`, { passed: o.passed, failed: o.failed, skipped: o.skipped }])),
        ).toEqual(tally);
        const firstSeen = [...new Set(recorded.map((r) => r.id))];
        expect([...new Set(all.map((o) => o.id))]).toEqual(firstSeen);
      }),
    );
  });
});
