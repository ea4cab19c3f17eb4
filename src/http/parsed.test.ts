import { describe, expect, it } from 'vitest';
import { buildExchange, FIXED_NOW, httpDate } from '../testing/exchange-builder.js';
import type { Exchange } from './exchange.js';
import { DateCache, dateOf, rateLimitOf, ResponseMemo } from './parsed.js';

const withMemo = (ex: Exchange, dates: DateCache | null = null): Exchange => ({
  ...ex,
  parsed: new ResponseMemo(dates),
});

describe('parse once, on the exchange', () => {
  it('parses the rate-limit triple once per exchange, and every reader gets that one', () => {
    const ex = withMemo(buildExchange());
    const first = rateLimitOf(ex);
    expect(first.remaining).toEqual({ ok: true, value: 59 });
    expect(rateLimitOf(ex)).toBe(first);
  });

  it('keeps nothing between exchanges: the same headers on another exchange are parsed for it', () => {
    const a = withMemo(buildExchange());
    const b = withMemo({ ...a, seq: a.seq + 1 });
    expect(rateLimitOf(b)).not.toBe(rateLimitOf(a));
    expect(rateLimitOf(b)).toEqual(rateLimitOf(a));
  });

  it('parses afresh each time on an exchange built without a memo', () => {
    const ex = buildExchange({ headers: { 'x-ratelimit-remaining': '7' } });
    expect(ex.parsed).toBeUndefined();
    expect(rateLimitOf(ex).remaining).toEqual({ ok: true, value: 7 });
    expect(rateLimitOf(ex)).not.toBe(rateLimitOf(ex));
  });

  it("reads Date once, through the run client's cache, and follows it when the text changes", () => {
    const dates = new DateCache();
    const now = withMemo(buildExchange(), dates);
    const later = withMemo(buildExchange({ headers: { date: httpDate(FIXED_NOW + 5000) } }), dates);
    expect(dateOf(now)).toBe(FIXED_NOW);
    expect(dateOf(later)).toBe(FIXED_NOW + 5000);
    expect(dateOf(now)).toBe(FIXED_NOW);
  });

  it('gives null for a missing, repeated or malformed Date', () => {
    for (const date of [undefined, [httpDate(FIXED_NOW), httpDate(FIXED_NOW)], 'yesterday']) {
      expect(dateOf(withMemo(buildExchange({ headers: { date } }), new DateCache()))).toBeNull();
      expect(dateOf(buildExchange({ headers: { date } }))).toBeNull();
    }
  });
});
