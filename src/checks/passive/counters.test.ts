import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger.js';
import { outcomeOf, runFacts } from '../../testing/exchange-builder.js';
import { type SampleStep, sequentialSamples } from '../../testing/rate-limit-samples.js';
import { deferralsOf, reasonOf } from '../deferrals.js';
import { resolveAtEnd } from '../echoes.js';
import { createCounterReader, MIN_RETURNS, type RateLimitSample } from './counters.js';

const COUNTERS_REASON = reasonOf(deferralsOf('ratelimit.remaining-decrements', null)[0]!);

const T0 = 1_900_000_020_000;
const R = T0 / 1000;

/** One key's answers, each sent after the one before completed: [seconds after T0, Remaining, Reset (s), accepted]. */
function countersOf(steps: readonly SampleStep[], limit = 60): number {
  const reader = createCounterReader();
  for (const s of sequentialSamples(steps, limit, T0)) reader.see('free', 'free#1', s);
  return reader.countersOf('free');
}

/** n answers from `counters` fixed windows opened a second apart, answering in turn, from `at` s on. */
function inTurn(n: number, counters: number, at = 0, first = 59): [number, number, number][] {
  return Array.from({ length: n }, (_, i) => [
    at + i * 0.1,
    first - Math.floor(i / counters),
    R + at + 60 + (i % counters),
  ]);
}

describe('independent counters', () => {
  it('reads one counter from a sequence going down by one, across windows', () => {
    const one = Array.from({ length: 30 }, (_, i): [number, number, number] => [i * 0.1, 59 - i, R + 60]);
    const next = Array.from({ length: 10 }, (_, i): [number, number, number] => [61 + i * 0.1, 59 - i, R + 121]);
    expect(countersOf([...one, ...next])).toBe(1);
  });

  it('reads two counters answering in turn, and three', () => {
    expect(countersOf(inTurn(20, 2))).toBe(2);
    expect(countersOf(inTurn(30, 3))).toBe(3);
  });

  it('still two after the windows turned over', () => {
    expect(countersOf([...inTurn(20, 2), ...inTurn(20, 2, 62)])).toBe(2);
  });

  it(`needs ${MIN_RETURNS} returns: one rise back to an earlier sequence is no fleet`, () => {
    // 59..50 under one Reset, a lower jump (requests of others), then one value that continues the first sequence.
    const steps: [number, number, number][] = [];
    for (let i = 0; i < 10; i++) steps.push([i * 0.1, 59 - i, R + 60]);
    steps.push([1.1, 40, R + 60], [1.2, 49, R + 60], [1.3, 39, R + 60]);
    expect(countersOf(steps)).toBe(1);
  });

  it('reads nothing from overlapped answers or refusals', () => {
    for (const change of [{ overlapped: true }, { accepted: false }]) {
      const reader = createCounterReader();
      for (const [i, [at, remaining, reset]] of inTurn(20, 2).entries()) {
        const s = { limit: 60, remaining, reset, serverMs: T0 + at * 1000, sent: i * 10, done: i * 10 + 5 };
        reader.see('free', 'k', { ...s, accepted: true, overlapped: false, ...change });
      }
      expect(reader.countersOf('free')).toBe(1);
    }
  });
});

describe('one defect, one failure on a fleet of local counters', () => {
  const failed = (over = true) => {
    const ledger = new Ledger();
    if (over) ledger.fail('ratelimit.enforced', 'free', '69 requests accepted');
    else ledger.pass('ratelimit.enforced', 'free');
    ledger.fail('ratelimit.remaining-decrements', 'free', 'Remaining 58 after 58');
    ledger.fail('ratelimit.quota-restored', 'free', 'still refused');
    ledger.pass('ratelimit.quota-restored', 'pro');
    ledger.fail('contract.error-shape', 'free', 'no status');
    return ledger;
  };

  it("turns the sequence checks' failures into skips naming ratelimit.enforced, which keeps its failure and cause", () => {
    const ledger = failed();
    resolveAtEnd(
      ledger,
      runFacts(() => 2),
    );
    expect(COUNTERS_REASON).toMatch(/: that defect is ratelimit\.enforced's$/);
    expect(outcomeOf(ledger, 'ratelimit.remaining-decrements')).toMatchObject({
      failed: 0,
      skipped: 1,
      evidence: [],
      skipReasons: [COUNTERS_REASON],
    });
    expect(outcomeOf(ledger, 'ratelimit.quota-restored', 'free')).toMatchObject({ failed: 0, skipped: 1 });
    expect(outcomeOf(ledger, 'ratelimit.quota-restored', 'pro')).toMatchObject({ passed: 1, skipped: 0 });
    expect(outcomeOf(ledger, 'ratelimit.enforced')?.failed).toBe(1);
    expect(outcomeOf(ledger, 'ratelimit.enforced')?.info.cause).toMatch(/^2 independent counters/);
    // Another defect is not an echo.
    expect(outcomeOf(ledger, 'contract.error-shape')?.failed).toBe(1);
    // A check that recorded nothing gets no outcome.
    expect(outcomeOf(ledger, 'retry-after.honest')).toBeUndefined();
  });

  it('leaves every failure where ratelimit.enforced found no over-admission, or one counter answers', () => {
    for (const [counters, over] of [
      [2, false],
      [1, true],
    ] as const) {
      const ledger = failed(over);
      resolveAtEnd(
        ledger,
        runFacts(() => counters),
      );
      expect(outcomeOf(ledger, 'ratelimit.remaining-decrements')?.failed).toBe(1);
    }
  });
});

/**
 * One token bucket (a Limit a minute, one token back every minute/Limit), asked one request after another every
 * `paceMs` (run-clock ms, which the samples' sent and done are in): Remaining as it answers, Reset when it is full.
 */
function bucket(limit: number, paceMs: number, n: number): RateLimitSample[] {
  const refillMs = 60_000 / limit;
  let tokens = limit;
  const out: RateLimitSample[] = [];
  for (let i = 0, at = 0; i < n; i++, at += paceMs) {
    if (i > 0) tokens = Math.min(limit, tokens + paceMs / refillMs);
    tokens -= 1;
    const reset = Math.ceil((T0 + at + (limit - tokens) * refillMs) / 1000);
    const s = { limit, remaining: Math.floor(tokens), reset, serverMs: T0 + at, sent: at, done: at + 2 };
    out.push({ ...s, accepted: true, overlapped: false });
  }
  return out;
}

/** Two counters answering in turn, one answer every `paceMs` run-clock ms. */
function inTurnEvery(paceMs: number): RateLimitSample[] {
  return inTurn(40, 2).map(([, remaining, reset], i) => {
    const at = i * paceMs;
    return {
      limit: 60,
      remaining,
      reset,
      serverMs: T0 + at,
      sent: at,
      done: at + 2,
      accepted: true,
      overlapped: false,
    };
  });
}

const read = (samples: readonly RateLimitSample[], plan: 'free' | 'business' = 'free'): number => {
  const reader = createCounterReader();
  for (const s of samples) reader.see(plan, 'k', s);
  return reader.countersOf(plan);
};

describe('one counter that gives quota back', () => {
  it('a token bucket asked at about its refill pace returns by coincidence (a busy machine), and is read as one', () => {
    for (const [limit, pace] of [
      [1000, 40],
      [1000, 90],
      // About the refill's pace, when returns may hold Reset to the second (GCRA on a starved machine).
      [1000, 57],
      [1000, 60],
      [1000, 61],
      [1000, 63],
      [60, 600],
      [60, 1000],
      [300, 130],
      [300, 200],
    ] as const)
      expect(read(bucket(limit, pace, 400), 'business'), `${limit}/min every ${pace} ms`).toBe(1);
  });

  it('two counters in turn: two where refills could not give back what the returns took, or a Reset held for seconds', () => {
    expect(read(inTurnEvery(10))).toBe(2);
    expect(read(inTurnEvery(100))).toBe(2);
    // An answer a second and a half apart: a 60/min bucket would refill as much as the returns took back, but each
    // counter's Reset holds across the seconds between its answers, as no bucket's does.
    expect(read(inTurnEvery(1500))).toBe(2);
    // Over a second and a half in all, at a bucket's pace: nothing tells them from one bucket.
    expect(read(inTurnEvery(1500).slice(0, 2 + MIN_RETURNS))).toBe(1);
  });
});
