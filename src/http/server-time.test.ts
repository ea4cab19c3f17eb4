import { describe, expect, it } from 'vitest';
import { buildExchange, FIXED_NOW, httpDate } from '../testing/exchange-builder.js';
import { DateCache, ResponseMemo } from './parsed.js';
import {
  earliestLocal,
  latestLocal,
  retryAfterMs,
  serverOffset,
  serverTimeOf,
  serverTimeSource,
} from './server-time.js';

/** An answer whose Date is FIXED_NOW, completed when the local clock read FIXED_NOW - skew, after 40 ms in transit. */
const answer = (skewMs: number, headers: Record<string, string | undefined> = {}) =>
  buildExchange({
    localTime: FIXED_NOW - skewMs,
    timing: { intended: 0, sent: 960, headers: 990, done: 1_000 },
    headers,
  });

describe("the server's timeline", () => {
  it('reads an instant of the server against its Date, minutes ahead or behind alike', () => {
    for (const skewMs of [-20 * 60_000, 0, 20 * 60_000]) {
      const ex = answer(skewMs);
      expect(serverTimeOf(ex)).toBe(FIXED_NOW);
      expect(serverOffset(ex) + skewMs).toBe(0);
      // Reset 30 s after Date: locally 30 s after the answer at the latest, a second and the transit sooner at the
      // earliest.
      expect(latestLocal(ex, FIXED_NOW + 30_000) - ex.localTime).toBe(30_000);
      expect(earliestLocal(ex, FIXED_NOW + 30_000) - ex.localTime).toBe(30_000 - 1_000 - 40);
      expect(
        retryAfterMs(buildExchange({ ...ex, headers: { ...ex.headers, 'retry-after': httpDate(FIXED_NOW + 20_000) } })),
      ).toBe(20_000);
    }
  });

  it("reads an answer without a Date with the offset the run's last answer with one showed", () => {
    const dates = new DateCache();
    const skewMs = -20 * 60_000;
    const dated = buildExchange({ localTime: FIXED_NOW - skewMs, parsed: new ResponseMemo(dates) });
    const undated = (localTime: number) =>
      buildExchange({
        localTime,
        timing: { intended: 0, sent: 960, headers: 990, done: 1_000 },
        headers: { date: undefined, 'retry-after': httpDate(FIXED_NOW + 30_000) },
        parsed: new ResponseMemo(dates),
      });
    // Before any answer with a Date: the local clock.
    expect(serverTimeSource(undated(FIXED_NOW))).toBe('local clock');
    expect(serverTimeOf(dated)).toBe(FIXED_NOW);
    // Ten seconds later, locally: ten seconds later on the server's clock too, 20 minutes behind the local one.
    const later = undated(FIXED_NOW - skewMs + 10_000);
    expect(serverTimeSource(later)).toBe('Date of an earlier answer');
    expect(serverTimeOf(later)).toBe(FIXED_NOW + 10_000);
    expect(retryAfterMs(later)).toBe(20_000);
    expect(earliestLocal(later, FIXED_NOW + 30_000) - later.localTime).toBe(20_000 - 1_000 - 40);
  });

  it('reads an answer without a usable Date on the local clock, with one reading', () => {
    const ex = answer(60_000, { date: undefined });
    expect(serverTimeOf(ex)).toBe(ex.localTime);
    expect(serverOffset(ex)).toBe(0);
    expect(earliestLocal(ex, FIXED_NOW)).toBe(FIXED_NOW);
    expect(latestLocal(ex, FIXED_NOW)).toBe(FIXED_NOW);
  });
});
