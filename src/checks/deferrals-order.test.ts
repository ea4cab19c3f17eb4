/**
 * The deferrals between checks do not depend on who finished first: the same outcomes, recorded by the judges in
 * any order (a probe before or after the observer's exchanges, before or after the observer hands over what it
 * held), resolve to the same outcomes.
 */
import { describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import {
  buildExchange,
  type ExchangeParts,
  MINUTE_RESET,
  outcomeOf,
  rateLimitHeaders,
  runFacts,
  TEST_PLANS,
} from '../testing/exchange-builder.js';
import { deferralsOf, reasonOf } from './deferrals.js';
import { resolveAtEnd } from './echoes.js';
import type { HeldKind } from './catalogue.js';
import { Ledger, type Outcome } from './ledger.js';
import { createObserver } from './observer.js';

const WIN = 'ratelimit.window-consistency';
const DEC = 'ratelimit.remaining-decrements';
const BODY = 'retry-after.error-body';

/** Every outcome, in a fixed order, as the report would take them. */
const settled = (ledger: Ledger): Outcome[] =>
  ledger.all().sort((a, b) => `${a.id}/${a.plan}`.localeCompare(`${b.id}/${b.plan}`));

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]));
}

const held = (kind: HeldKind, message: string, plan: PlanName = 'free') => ({
  kind,
  count: 2,
  first: [{ ex: buildExchange({ plan }), message }],
});

/** What the judges of one run record, each a step of its own: the probes', and what the observer held. */
const STEPS: readonly ((l: Ledger) => void)[] = [
  (l) => l.fail('ratelimit.no-over-admission', 'pro', '305 of 305 simultaneous requests accepted'),
  (l) => l.fail('ratelimit.enforced', 'free', '61 requests accepted within 3.0 s'),
  (l) => l.pass('ratelimit.enforced', 'pro'),
  (l) => l.fail('ratelimit.limit-matches-plan', 'business', 'Limit 1000 is the per-day figure on minute windows'),
  (l) => l.fail('contract.error-shape', 'pro', 'not an Error body: status missing'),
  (l) => l.fail('ratelimit.key-isolation', 'free', 'key B refused after key A was exhausted'),
  (l) => {
    l.hold(WIN, 'free', held('concurrent-rise', 'Remaining rose from 40 to 44'));
    l.hold(WIN, 'pro', held('short-window', 'Resets 3 s apart'));
    l.hold(DEC, 'free', held('short-window', 'Remaining 59 after 40'));
    l.hold(WIN, 'business', held('day-figure', 'the day figure on a minute window', 'business'));
    l.hold(WIN, 'business', held('forward-reset', 'Reset moved forward', 'business'));
    l.hold(BODY, 'free', held('same-defect', 'not an Error body: status missing'));
  },
];

describe('the deferrals resolve alike whatever order the judges recorded in', () => {
  it('every order of the same recordings gives the same outcomes', () => {
    const facts = runFacts(
      () => 1,
      (plan) => (plan === 'business' ? 'unknown' : 'still'),
    );
    const orders = permutations(STEPS.map((_, i) => i));
    const runs = orders.map((order) => {
      const ledger = new Ledger();
      for (const i of order) STEPS[i]!(ledger);
      ledger.resolveDeferrals(facts);
      return JSON.stringify(settled(ledger));
    });
    expect(orders.length).toBe(5040);
    expect(new Set(runs).size).toBe(1);

    // And what they resolve to: each held kind settled by its declared deferrals, or failed.
    const ledger = new Ledger();
    for (const step of STEPS) step(ledger);
    ledger.resolveDeferrals(facts);
    const reason = (id: typeof WIN | typeof DEC | typeof BODY, kind: HeldKind, check: string) =>
      reasonOf(deferralsOf(id, kind).find((d) => d.check === check && !d.when.startsWith('refills'))!);
    // A rise under concurrency on free: no-over-admission failed on pro, which is enough (failed in the run).
    expect(outcomeOf(ledger, WIN, 'free')).toMatchObject({
      failed: 0,
      skipped: 2,
      skipReasons: [reason(WIN, 'concurrent-rise', 'ratelimit.no-over-admission')],
    });
    // A window too short on pro, where enforced passed: failed, with its evidence.
    expect(outcomeOf(ledger, WIN, 'pro')).toMatchObject({ failed: 2, skipped: 0 });
    expect(outcomeOf(ledger, WIN, 'pro')?.evidence[0]?.message).toBe('Resets 3 s apart');
    // The same on free, where enforced failed: skipped naming it.
    expect(outcomeOf(ledger, DEC, 'free')?.skipReasons).toEqual([reason(DEC, 'short-window', 'ratelimit.enforced')]);
    // On business: the day figure is limit-matches-plan's; a Reset moved forward, the shape unknown, is not judged.
    expect(outcomeOf(ledger, WIN, 'business')).toMatchObject({ failed: 0, skipped: 4 });
    expect(outcomeOf(ledger, WIN, 'business')?.skipReasons).toEqual([
      reason(WIN, 'day-figure', 'ratelimit.limit-matches-plan'),
      reason(WIN, 'forward-reset', 'ratelimit.algorithm'),
    ]);
    // The 429 bodies share the defect error-shape failed on another plan.
    expect(outcomeOf(ledger, BODY, 'free')?.skipReasons).toEqual([reason(BODY, 'same-defect', 'contract.error-shape')]);
    // A check that declares deferrals keeps a failure none of them excuses.
    expect(outcomeOf(ledger, 'ratelimit.key-isolation', 'free')).toMatchObject({ failed: 1, skipped: 0 });
  });
});

describe('through the observer: a probe recorded before, during or after the passive checks', () => {
  const R = MINUTE_RESET;
  const answer = (remaining: number, sent: number, overlapped: boolean): ExchangeParts => ({
    headers: rateLimitHeaders(60, remaining, R),
    overlapped,
    timing: { sent, done: sent + 100 },
  });
  const noStatus = { code: 'rate_limited', message: 'slow down' };
  /** A rise among requests in flight together, and 429 bodies with the defect the 401 body has too. */
  const EXCHANGES: readonly ExchangeParts[] = [
    answer(40, 0, true),
    answer(44, 150, false),
    { status: 429, json: noStatus, headers: { ...rateLimitHeaders(60, 0, R), 'retry-after': '30' } },
    { status: 401, auth: 'invalid', keyLabel: 'unknown key', plan: null, json: { code: 'invalid_key', message: 'no' } },
  ];
  const probe = (l: Ledger) => l.fail('ratelimit.no-over-admission', 'free', '65 of 65 simultaneous requests accepted');

  it('gives the same outcomes wherever the probe falls', () => {
    const runs = [0, 1, 2, 3, 4, 'after-finish'].map((at) => {
      const ledger = new Ledger();
      const observer = createObserver({ ledger, plans: TEST_PLANS, clockScale: 60 });
      EXCHANGES.forEach((parts, i) => {
        if (at === i) probe(ledger);
        observer.observe(buildExchange(parts));
      });
      if (at === EXCHANGES.length) probe(ledger);
      observer.finish();
      if (at === 'after-finish') probe(ledger);
      resolveAtEnd(ledger, observer);
      return settled(ledger);
    });
    for (const r of runs) expect(r).toEqual(runs[0]);
    const ledger = new Ledger();
    ledger.absorb(runs[0]!);
    expect(outcomeOf(ledger, WIN)?.skipReasons).toContain(
      reasonOf(deferralsOf(WIN, 'concurrent-rise').find((d) => d.check === 'ratelimit.no-over-admission')!),
    );
    expect(outcomeOf(ledger, WIN)?.failed).toBe(0);
    expect(outcomeOf(ledger, BODY)).toMatchObject({ failed: 0, skipped: 1 });
    expect(outcomeOf(ledger, 'contract.error-shape', null)?.failed).toBe(1);
  });
});
