import { describe, expect, it } from 'vitest';
import { buildExchange, FIXED_NOW, FREE_LABEL, httpDate, rateLimitHeaders } from '../testing/exchange-builder.js';
import { KEY_TIMELINE_CAP, KeyTimelines, mergeKeyTimelines } from './key-timelines.js';

const RESET = 1_900_000_000;

describe('KeyTimelines', () => {
  it('records Remaining/Limit per key and plan, and every 429 with its Retry-After', () => {
    const k = new KeyTimelines();
    k.add(buildExchange({ headers: rateLimitHeaders(60, 59, RESET) }), 10);
    k.add(buildExchange({ headers: rateLimitHeaders(60, 0, RESET) }), 20);
    k.add(buildExchange({ status: 429, headers: { ...rateLimitHeaders(60, 0, RESET), 'retry-after': '7' } }), 30);
    k.add(
      buildExchange({
        status: 429,
        headers: { 'retry-after': httpDate(FIXED_NOW + 12_000), 'x-ratelimit-remaining': undefined },
      }),
      40,
    );
    k.add(buildExchange({ plan: 'pro', keyLabel: 'pro#1', headers: rateLimitHeaders(300, 299, RESET) }), 50);
    expect(k.snapshot()).toEqual([
      {
        key: FREE_LABEL,
        plan: 'free',
        remaining: [
          [10, 59, 60],
          [20, 0, 60],
          [30, 0, 60],
        ],
        // The third figure: the wait the answer's Reset gives (Reset less Date; the builder's Reset is 30 s on).
        refusals: [
          [30, 7, RESET - FIXED_NOW / 1000],
          [40, 12, 30],
        ],
      },
      { key: 'pro#1', plan: 'pro', remaining: [[50, 299, 300]], refusals: [] },
    ]);
  });

  it('skips unusable values and requests without a key of the keys file', () => {
    const k = new KeyTimelines();
    k.add(buildExchange({ headers: { 'x-ratelimit-remaining': '12abc' } }), 1);
    k.add(buildExchange({ headers: { 'x-ratelimit-remaining': ['5', '6'] } }), 2);
    k.add(buildExchange({ headers: { 'x-ratelimit-limit': undefined } }), 3);
    k.add(buildExchange({ headers: { 'x-ratelimit-remaining': '-1' } }), 4);
    k.add(buildExchange({ auth: 'none', keyLabel: null, plan: null }), 5);
    k.add(buildExchange({ auth: 'invalid', keyLabel: 'empty bearer', plan: null, status: 401 }), 6);
    k.add(buildExchange({ status: null, headers: {}, error: { kind: 'reset', message: 'socket hang up' } }), 7);
    k.add(buildExchange({ status: 429, headers: { 'retry-after': 'soon', 'x-ratelimit-remaining': undefined } }), 8);
    // This one still has the builder's usable Remaining/Limit (59/60).
    k.add(buildExchange({ status: 429, headers: { 'retry-after': ['1', '2'] } }), 9);
    expect(k.snapshot()).toEqual([
      {
        key: FREE_LABEL,
        plan: 'free',
        remaining: [[9, 59, 60]],
        refusals: [
          [8, null, 30],
          [9, null, 30],
        ],
      },
    ]);
  });

  it('a Retry-After date already past counts as 0 seconds', () => {
    const k = new KeyTimelines();
    k.add(buildExchange({ status: 429, headers: { 'retry-after': httpDate(FIXED_NOW - 5000) } }), 1);
    expect(k.snapshot()[0]!.refusals).toEqual([[1, 0, 30]]);
  });

  it("keeps the wait each 429's Reset gives: a timestamp less the server's time, delta-seconds as given", () => {
    const k = new KeyTimelines();
    const refused = (reset: string | undefined, date?: string) =>
      buildExchange({
        status: 429,
        headers: { 'retry-after': '9', 'x-ratelimit-reset': reset, ...(date === undefined ? {} : { date }) },
      });
    const t = FIXED_NOW / 1000;
    k.add(refused(String(t + 42)), 1);
    k.add(refused(String((t + 42) * 1000)), 2);
    k.add(refused('17'), 3);
    k.add(refused(undefined), 4);
    k.add(refused('soon'), 5);
    // A server 10 s behind: its Reset is read against its own Date, not the local clock.
    k.add(refused(String(t + 42), httpDate(FIXED_NOW - 10_000)), 6);
    // No Date, nothing learnt of the server's clock: the local one (the builder's Reset is 30 s on).
    k.add(buildExchange({ status: 429, headers: { 'retry-after': '9', date: undefined } }), 7);
    expect(k.snapshot()[0]!.refusals).toEqual([
      [1, 9, 42],
      [2, 9, 42],
      [3, 9, 17],
      [4, 9, null],
      [5, 9, null],
      [6, 9, 52],
      [7, 9, 30],
    ]);
  });

  it('stays bounded over a long run and keeps the exhausted windows visible', () => {
    const k = new KeyTimelines();
    let t = 0;
    for (let w = 0; w < 500; w++) {
      for (let remaining = 59; remaining >= 0; remaining--)
        k.add(buildExchange({ headers: rateLimitHeaders(60, remaining, RESET) }), t++);
      for (let i = 0; i < 20; i++)
        k.add(buildExchange({ status: 429, headers: { ...rateLimitHeaders(60, 0, RESET), 'retry-after': '3' } }), t++);
    }
    const [tl] = k.snapshot();
    expect(tl!.remaining.length).toBeLessThanOrEqual(KEY_TIMELINE_CAP);
    expect(tl!.remaining.length).toBeGreaterThan(KEY_TIMELINE_CAP / 2);
    expect(tl!.refusals.length).toBeLessThanOrEqual(KEY_TIMELINE_CAP);
    expect(tl!.refusals.length).toBeGreaterThan(KEY_TIMELINE_CAP / 2);
    expect(tl!.remaining.some(([, r]) => r === 0)).toBe(true);
    expect(tl!.remaining.some(([, r]) => r === 59)).toBe(true);
    expect(tl!.refusals.every(([, s]) => s === 3)).toBe(true);
  });
});

describe('mergeKeyTimelines', () => {
  it('interleaves a key present in both runs and keeps the others', () => {
    const a = [
      {
        key: 'k1',
        plan: 'free' as const,
        remaining: [[0, 59, 60] as [number, number, number], [20, 57, 60] as [number, number, number]],
        refusals: [[25, 3] as [number, number | null]],
      },
      { key: 'k2', plan: 'free' as const, remaining: [], refusals: [] },
    ];
    const b = [
      {
        key: 'k1',
        plan: 'free' as const,
        remaining: [[10, 58, 60] as [number, number, number]],
        refusals: [[5, null] as [number, number | null]],
      },
      { key: 'k1', plan: 'pro' as const, remaining: [[1, 299, 300] as [number, number, number]], refusals: [] },
    ];
    expect(mergeKeyTimelines(a, b)).toEqual([
      {
        key: 'k1',
        plan: 'free',
        remaining: [
          [0, 59, 60],
          [10, 58, 60],
          [20, 57, 60],
        ],
        refusals: [
          [5, null],
          [25, 3],
        ],
      },
      { key: 'k2', plan: 'free', remaining: [], refusals: [] },
      { key: 'k1', plan: 'pro', remaining: [[1, 299, 300]], refusals: [] },
    ]);
  });

  it('bounds the merged series again', () => {
    const long = (offset: number) => ({
      key: 'k',
      plan: 'free' as const,
      remaining: Array.from({ length: 400 }, (_, i) => [offset + i * 2, i % 60, 60] as [number, number, number]),
      refusals: Array.from({ length: 400 }, (_, i) => [offset + i * 2, 1] as [number, number | null]),
    });
    const [m] = mergeKeyTimelines([long(0)], [long(1)], 100);
    expect(m!.remaining.length).toBeLessThanOrEqual(100);
    expect(m!.refusals.length).toBeLessThanOrEqual(100);
    expect(m!.remaining.some(([, r]) => r === 0)).toBe(true);
  });
});
