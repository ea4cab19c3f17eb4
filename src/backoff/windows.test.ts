import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../core/api-key.js';
import type { HeaderMap } from '../http/exchange.js';
import { buildExchange, FIXED_NOW, httpDate, MINUTE_RESET, rateLimitHeaders } from '../testing/exchange-builder.js';
import { readWindow } from './response.js';
import { testKey } from '../testing/exchange-builder.js';
import { AcceptedWindows } from './windows.js';

const key: ApiKey = testKey('free');

function note(w: AcceptedWindows, at: number, status: number, headers: HeaderMap) {
  const ex = buildExchange({
    status,
    localTime: FIXED_NOW + at,
    headers: { date: httpDate(FIXED_NOW + at - ((FIXED_NOW + at) % 1000)), ...headers },
  });
  w.note(key, FIXED_NOW + at - 5, ex, readWindow(ex, key));
}

describe('AcceptedWindows', () => {
  it('counts accepted requests per minute window by its Reset, and reports a window over the limit once', () => {
    const w = new AcceptedWindows();
    for (let i = 0; i < 60; i++) note(w, i * 100, 200, rateLimitHeaders(60, 59 - i, MINUTE_RESET));
    // Answers that are not accepted do not count.
    note(w, 6100, 404, rateLimitHeaders(60, 0, MINUTE_RESET));
    expect(w.maxAccepted).toBe(60);
    expect(w.excessCount).toBe(0);
    note(w, 6200, 201, rateLimitHeaders(60, 0, MINUTE_RESET));
    note(w, 6300, 200, rateLimitHeaders(60, 0, MINUTE_RESET));
    expect(w.excessCount).toBe(1);
    expect(w.excesses[0]).toMatchObject({ key: key.label, accepted: 61, limit: 60 });
    // The next window starts from zero.
    note(w, 31_000, 200, rateLimitHeaders(60, 59, MINUTE_RESET + 60));
    expect(w.maxAccepted).toBe(62);
    expect(w.excessCount).toBe(1);
  });

  it('knows the windows while each Reset holds, and not once the Reset moves with the requests (a bucket)', () => {
    const fixed = new AcceptedWindows();
    for (let i = 0; i < 60; i++) note(fixed, i * 100, 200, rateLimitHeaders(60, 59 - i, MINUTE_RESET));
    note(fixed, 31_000, 200, rateLimitHeaders(60, 59, MINUTE_RESET + 60));
    expect(fixed.windowsKnown).toBe(true);
    // A token bucket's Reset (when it is full again) moves on with every request: 2 s, 4 s, 6 s ahead...
    const bucket = new AcceptedWindows();
    for (let i = 0; i < 10; i++)
      note(bucket, i * 100, 200, rateLimitHeaders(60, 58 - 2 * i, MINUTE_RESET - 30 + 2 * (i + 1)));
    expect(bucket.windowsKnown).toBe(false);
  });

  it("tells windows apart by a minute refusal's Retry-After when the headers describe the day", () => {
    const day = rateLimitHeaders(1000, 900, FIXED_NOW / 1000 + 3600);
    const within = new AcceptedWindows();
    // 60 accepted in the minute's first 30 s, then a refusal until the minute's end.
    for (let i = 0; i < 60; i++) note(within, i * 500, 200, day);
    note(within, 30_000, 429, { ...day, 'retry-after': '30' });
    expect(within.excessCount).toBe(0);

    const over = new AcceptedWindows();
    for (let i = 0; i < 61; i++) note(over, 1500 + i * 300, 200, day);
    note(over, 20_000, 429, { ...day, 'retry-after': '40' });
    expect(over.excessCount).toBe(1);
    expect(over.excesses[0]).toMatchObject({ accepted: 61, limit: 60 });
    // Requests from before the refused window's start are not counted in it.
    const spread = new AcceptedWindows();
    for (let i = 0; i < 61; i++) note(spread, i * 1000, 200, day);
    note(spread, 61_000, 429, { ...day, 'retry-after': '59' });
    expect(spread.excessCount).toBe(0);
  });
});
