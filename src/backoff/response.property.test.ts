/**
 * Whatever a target says in its headers, the backoff never throws, never computes NaN and never waits longer
 * than the window the wait is about (a day at most, plus rounding): a target cannot make petload hang, nor
 * make it skip a wait. Property tests over arbitrary header values, dates and sequences.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_S } from '../api/plans.js';
import { parseKeys } from '../config/keys-file.js';
import type { Clock } from '../core/clock.js';
import { KeyStates, retryAfterMs, serverOffset, serverTimeOf, TOLERANCE_MS } from './key-state.js';
import { tripleOf } from '../probes/window.js';
import { buildExchange, FIXED_NOW, httpDate } from '../testing/exchange-builder.js';
import { BackoffPolicy } from './policy.js';
import { isRefusal, readWindow, retryAfterWaitMs } from './response.js';

const key = parseKeys({ keys: [{ key: 'prop-free-0123456789', plan: 'free' }] }, 'test')[0]!;
const DAY_MS = DAY_S * 1000;

const number = fc.oneof(
  fc.nat({ max: 200 }).map(String),
  fc.integer({ min: FIXED_NOW / 1000 - 100_000, max: FIXED_NOW / 1000 + 200_000 }).map(String),
  fc.constantFrom(
    '0',
    '-1',
    '1e3',
    '1.5',
    ' 60 ',
    '0x10',
    '9'.repeat(30),
    '',
    'NaN',
    'Infinity',
    String(FIXED_NOW),
    '60, 60',
  ),
  fc.string({ maxLength: 12 }),
);
const date = fc.oneof(
  fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_000 }).map(httpDate),
  fc.integer({ min: FIXED_NOW - 86_400_000, max: FIXED_NOW + 2 * 86_400_000 }).map(httpDate),
  fc.constantFrom('Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994', 'yesterday', ''),
  fc.string({ maxLength: 30 }),
);
const value = <T extends string>(a: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: a, weight: 4 }, fc.array(a, { minLength: 2, maxLength: 3 }));
const headers = fc.record(
  {
    'x-ratelimit-limit': value(fc.oneof(fc.constantFrom('60', '1000'), number)),
    'x-ratelimit-remaining': value(number),
    'x-ratelimit-reset': value(number),
    'retry-after': value(fc.oneof(number, date)),
    date: value(date),
  },
  { requiredKeys: [] },
);
const exchange = fc.record({
  status: fc.oneof(
    fc.constantFrom(200, 429, 429, 403, 503, 400),
    fc.integer({ min: 100, max: 599 }),
    fc.constant(null),
  ),
  headers,
  localTime: fc.integer({ min: FIXED_NOW - 1000, max: FIXED_NOW + 600_000 }),
});

const build = (x: { status: number | null; headers: Record<string, string | string[]>; localTime: number }) =>
  buildExchange({
    status: x.status,
    localTime: x.localTime,
    headers: {
      'x-ratelimit-limit': undefined,
      'x-ratelimit-remaining': undefined,
      'x-ratelimit-reset': undefined,
      date: undefined,
      ...x.headers,
    },
    ...(x.status === null ? { error: { kind: 'reset' as const, message: 'reset' } } : {}),
  });

const finiteOrNull = (v: number | null) => v === null || Number.isFinite(v);

describe('reading what a target says about its windows', () => {
  it('never throws, never gives NaN, and bounds every wait by the window it is about', () => {
    fc.assert(
      fc.property(exchange, (x) => {
        const ex = build(x);
        const w = readWindow(ex, key);
        expect(finiteOrNull(w.remaining) && finiteOrNull(w.reset) && finiteOrNull(w.resetLocal)).toBe(true);
        if (w.resetLocal !== null) expect(w.resetLocal).toBeLessThanOrEqual(ex.localTime + DAY_MS + TOLERANCE_MS);
        const wait = retryAfterWaitMs(ex, w);
        if (wait !== null) {
          expect(wait).toBeGreaterThanOrEqual(0);
          expect(wait).toBeLessThanOrEqual(DAY_MS + TOLERANCE_MS);
        }
        isRefusal(ex);
        tripleOf(ex);
        const raw = retryAfterMs(ex);
        expect(raw === null || raw >= 0).toBe(true);
        expect(Number.isNaN(serverOffset(ex))).toBe(false);
        expect(Number.isNaN(serverTimeOf(ex))).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the key states and the backoff policy on arbitrary sequences', () => {
  const clockAt = (t: { now: number }): Clock => ({
    scale: 1,
    now: () => t.now,
    monotonic: () => t.now,
    sleep: async () => undefined,
  });

  it('keep every wait finite and within a day of the response that asked for it', () => {
    fc.assert(
      fc.property(fc.array(exchange, { minLength: 1, maxLength: 25 }), fc.boolean(), (list, enabled) => {
        const t = { now: FIXED_NOW };
        const states = new KeyStates([key]);
        const policy = new BackoffPolicy(
          states,
          clockAt(t),
          { enabled, baseMs: 500, capMs: 30_000, random: () => 0.5 },
          () => undefined,
        );
        let latest = FIXED_NOW;
        for (const x of list.sort((a, b) => a.localTime - b.localTime)) {
          const ex = build(x);
          t.now = ex.localTime;
          latest = Math.max(latest, ex.localTime);
          const sentAt = ex.localTime - 5;
          states.noteSent(key, sentAt);
          policy.noteSent(key, sentAt);
          states.noteResponse(key, ex);
          policy.onResponse(key, sentAt, ex);
          const s = states.get(key);
          const bound = latest + DAY_MS + TOLERANCE_MS;
          expect(Number.isFinite(s.blockedUntil) && s.blockedUntil <= bound).toBe(true);
          expect(
            s.minuteWindowEndsBy === null ||
              (Number.isFinite(s.minuteWindowEndsBy) && s.minuteWindowEndsBy <= latest + 62_000),
          ).toBe(true);
          const ready = policy.readyAt(key);
          expect(Number.isFinite(ready) && ready <= bound + 30_000).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
