import { describe, expect, it } from 'vitest';
import { buildExchange, outcomeOf, runFacts } from '../testing/exchange-builder.js';
import { CHECK_IDS, CHECKS } from './catalogue.js';
import { DEFERRAL_ORDER, deferralOrder, deferralsOf, reasonOf } from './deferrals.js';
import { type HeldFailures, Ledger } from './ledger.js';

const WIN = 'ratelimit.window-consistency';
const defer = (check: string) => ({ defersTo: [{ check, when: 'failed' as const, because: 'an echo' }] });

describe('the declared deferrals between checks', () => {
  it('orders each deferring check after every check it defers to, ties in catalogue order', () => {
    expect(deferralOrder({ c: defer('b'), a: {}, b: defer('a'), d: defer('a') })).toEqual(['b', 'c', 'd']);
    for (const id of DEFERRAL_ORDER) {
      for (const d of CHECKS[id].defersTo ?? []) {
        const at = DEFERRAL_ORDER.indexOf(d.check);
        expect(at, `${id} defers to ${d.check}`).toBeLessThan(DEFERRAL_ORDER.indexOf(id));
      }
    }
    expect(DEFERRAL_ORDER.indexOf('ratelimit.no-over-admission')).toBeLessThan(DEFERRAL_ORDER.indexOf(WIN));
  });

  it('refuses a cycle in the declarations, and a deferral to a check the catalogue does not hold', () => {
    expect(() => deferralOrder({ a: defer('b'), b: defer('c'), c: defer('a'), d: {} })).toThrow(
      /form a cycle: a, b, c$/,
    );
    expect(() => deferralOrder({ a: defer('a') })).toThrow(/cycle: a$/);
    expect(() => deferralOrder({ a: defer('ratelimit.nope') })).toThrow(/a defers to ratelimit\.nope, which/);
  });

  it('gives skip reasons from the declaration, naming a catalogue check', () => {
    for (const id of CHECK_IDS) {
      for (const d of CHECKS[id].defersTo ?? []) {
        expect(CHECK_IDS).toContain(d.check);
        const reading = ['refills-or-slides', 'refills-or-slides-by-reset', 'may-slide', 'shape-unknown'].includes(
          d.when,
        );
        expect(reasonOf(d)).toBe(
          reading ? `${d.because} (as ${d.check} reads the limiter)` : `${d.because}: that defect is ${d.check}'s`,
        );
      }
    }
    expect(deferralsOf(WIN, 'concurrent-rise').map((d) => d.check)).toEqual([
      'ratelimit.no-over-admission',
      'ratelimit.algorithm',
    ]);
  });
});

describe('the ledger resolves the deferrals once, at the end of the run', () => {
  const rise = (): HeldFailures => ({
    kind: 'concurrent-rise',
    count: 2,
    first: [{ ex: buildExchange({ plan: 'pro' }), message: 'Remaining rose from 40 to 44' }],
  });

  it('whichever check recorded first: a rise held before or after the counter was found losing requests', () => {
    const outcomes = [true, false].map((holdFirst) => {
      const ledger = new Ledger();
      if (holdFirst) ledger.hold(WIN, 'pro', rise());
      ledger.fail('ratelimit.no-over-admission', 'free', '305 of 305 accepted');
      if (!holdFirst) ledger.hold(WIN, 'pro', rise());
      ledger.resolveDeferrals(runFacts());
      return outcomeOf(ledger, WIN, 'pro');
    });
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]).toMatchObject({ failed: 0, skipped: 2 });
    expect(outcomes[0]?.skipReasons).toEqual([reasonOf(deferralsOf(WIN, 'concurrent-rise')[0]!)]);
  });

  it('fails what no deferral excuses, with its evidence, and refuses a second resolution or a late hold', () => {
    const ledger = new Ledger();
    ledger.hold(WIN, 'pro', rise());
    ledger.resolveDeferrals(runFacts());
    expect(outcomeOf(ledger, WIN, 'pro')).toMatchObject({ failed: 2, skipped: 0 });
    expect(outcomeOf(ledger, WIN, 'pro')?.evidence[0]?.message).toBe('Remaining rose from 40 to 44');
    expect(() => ledger.resolveDeferrals(runFacts())).toThrow(/resolved once/);
    expect(() => ledger.hold(WIN, 'pro', rise())).toThrow(/after the deferrals were resolved/);
  });

  it('excuses plain failures of a check on a plan answered by several counters that ratelimit.enforced found over', () => {
    const ledger = new Ledger();
    ledger.fail('ratelimit.key-isolation', 'free', 'Remaining fell by 2');
    ledger.fail('ratelimit.enforced', 'free', '69 requests accepted');
    ledger.fail('ratelimit.key-isolation', 'pro', 'Remaining fell by 2');
    ledger.resolveDeferrals(runFacts((plan) => (plan === 'free' ? 2 : 1)));
    expect(outcomeOf(ledger, 'ratelimit.key-isolation', 'free')).toMatchObject({ failed: 0, skipped: 1 });
    expect(outcomeOf(ledger, 'ratelimit.key-isolation', 'free')?.skipReasons[0]).toMatch(
      /: that defect is ratelimit\.enforced's$/,
    );
    expect(outcomeOf(ledger, 'ratelimit.key-isolation', 'pro')).toMatchObject({ failed: 1, skipped: 0 });
  });
});
