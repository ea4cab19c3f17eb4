/**
 * Whether a promise had passed when the target answered again, on the target's own timeline (its Date): a target is
 * held to a wait only when its own clock says the wait was over. (The loop's branches against real targets:
 * wait-out.int.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { buildExchange, FIXED_NOW, FIXED_NOW_S, httpDate, rateLimitHeaders } from '../testing/exchange-builder.js';
import { promisePassed } from './wait-out.js';

/** A 429 at FIXED_NOW promising the quota back in 60 s (Retry-After and Reset alike). */
const promise = (date: boolean) =>
  buildExchange({
    status: 429,
    headers: {
      'retry-after': '60',
      ...rateLimitHeaders(60, 0, FIXED_NOW_S + 60),
      date: date ? httpDate(FIXED_NOW) : undefined,
    },
  });

/** The answer `localMs` after the promise on petload's clock, whose Date says `serverMs` after it (null: no Date). */
const again = (localMs: number, serverMs: number | null) =>
  buildExchange({
    status: 429,
    localTime: FIXED_NOW + localMs,
    headers: {
      'retry-after': '60',
      ...rateLimitHeaders(60, 0, FIXED_NOW_S + 120),
      date: serverMs === null ? undefined : httpDate(FIXED_NOW + serverMs),
    },
  });

describe('promisePassed', () => {
  it("reads the wait on the target's Date, with a second of tolerance for its rounding", () => {
    expect(promisePassed(promise(true), again(60_300, 60_000))).toBe(true);
    expect(promisePassed(promise(true), again(60_300, 59_000))).toBe(true);
    // petload's clock says a minute passed, the target's that 50 s did: it is not held to the minute.
    expect(promisePassed(promise(true), again(60_300, 50_000))).toBe(false);
  });

  it("holds the target to its Reset on its own clock, whatever petload's clock says", () => {
    // Retry-After passed on the target's clock, but its Date is still 5 s short of the Reset it gave.
    const p = buildExchange({
      status: 429,
      headers: { 'retry-after': '10', ...rateLimitHeaders(60, 0, FIXED_NOW_S + 60) },
    });
    expect(promisePassed(p, again(60_300, 55_000))).toBe(false);
    expect(promisePassed(p, again(60_300, 60_000))).toBe(true);
  });

  it('reads the local clock when an answer has no Date', () => {
    expect(promisePassed(promise(false), again(60_300, null))).toBe(true);
    expect(promisePassed(promise(false), again(30_000, null))).toBe(false);
  });
});
