import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../core/api-key.js';
import { createClock } from '../core/clock.js';
import { KeyStates } from './key-state.js';
import type { Exchange } from '../http/exchange.js';
import {
  buildExchange,
  FIXED_NOW,
  httpDate,
  jsonBody,
  MINUTE_RESET,
  rateLimitHeaders,
} from '../testing/exchange-builder.js';
import { testKey } from '../testing/exchange-builder.js';
import { BackoffPolicy, type BackoffOptions, type SuspectedBan } from './policy.js';

const key: ApiKey = testKey('free');
const S = 1000;

function policy(options: Partial<BackoffOptions> = {}) {
  const keyStates = new KeyStates([key]);
  const bans: SuspectedBan[] = [];
  const p = new BackoffPolicy(
    keyStates,
    createClock(1),
    { enabled: true, baseMs: 500, capMs: 30_000, random: () => 0, ...options },
    (b) => bans.push(b),
  );
  return { p, keyStates, bans };
}

/** A response at FIXED_NOW + `at` ms (the server's Date floored to the second). */
function answer(at: number, status: number, headers: Record<string, string | string[] | undefined> = {}): Exchange {
  return buildExchange({
    status,
    localTime: FIXED_NOW + at,
    headers: { date: httpDate(Math.floor((FIXED_NOW + at) / S) * S), ...headers },
    body: status === 429 ? jsonBody({ code: 'rate_limited', message: 'slow down', status: 429 }) : undefined,
  });
}

/** A 429 at `at` ms with Retry-After `ra` s and the minute window (Reset 30 s after FIXED_NOW) spent. */
const refusal = (at: number, ra: string | undefined, triple = rateLimitHeaders(60, 0, MINUTE_RESET)) =>
  answer(at, 429, { ...triple, 'retry-after': ra });

/** Send at `sentAt` and learn the answer, as a lane does. */
function exchange(p: BackoffPolicy, sentAt: number, ex: Exchange) {
  p.noteSent(key, FIXED_NOW + sentAt);
  return p.onResponse(key, FIXED_NOW + sentAt, ex);
}

describe('BackoffPolicy after a refusal', () => {
  it('waits for the later of Retry-After and the Reset of the spent window', () => {
    const { p } = policy();
    expect(exchange(p, 0, refusal(0, '10'))).toBe('refused');
    expect(p.readyAt(key)).toBe(FIXED_NOW + 30 * S);
    expect(p.isFree(key, FIXED_NOW + 29 * S)).toBe(false);
    expect(p.isFree(key, FIXED_NOW + 30 * S)).toBe(true);

    const later = policy().p;
    exchange(later, 0, refusal(0, '45'));
    expect(later.readyAt(key)).toBe(FIXED_NOW + 45 * S);
  });

  it('waits the jitter when it is longer than what the target asks', () => {
    const { p } = policy({ baseMs: 60 * S, capMs: 120 * S, random: () => 0.75 });
    exchange(p, 0, refusal(0, '10'));
    expect(p.readyAt(key)).toBe(FIXED_NOW + 45 * S);
  });

  it('without backoff, waits exactly what the target asks', () => {
    const { p } = policy({ enabled: false, baseMs: 60 * S, capMs: 120 * S, random: () => 0.75 });
    exchange(p, 0, refusal(0, '10'));
    expect(p.readyAt(key)).toBe(FIXED_NOW + 30 * S);
  });

  it('waits a Retry-After beyond the day (milliseconds, an epoch, a date in 9999) for the backoff cap only', () => {
    for (const raw of ['30000000', '1000000000000', 'Fri, 31 Dec 9999 23:59:59 GMT']) {
      const { p } = policy();
      const none = {
        'x-ratelimit-limit': undefined,
        'x-ratelimit-remaining': undefined,
        'x-ratelimit-reset': undefined,
      };
      exchange(p, 0, answer(0, 429, { ...none, 'retry-after': raw }));
      expect(p.readyAt(key)).toBe(FIXED_NOW + 30 * S);
    }
  });

  it("does not wait on a Retry-After beyond its minute window's Reset: the Reset is waited for", () => {
    const { p } = policy();
    exchange(p, 0, refusal(0, '30000', rateLimitHeaders(60, 0, MINUTE_RESET)));
    expect(p.readyAt(key)).toBe(FIXED_NOW + 30 * S);
  });

  it("follows a day window's Retry-After past the minute", () => {
    const { p } = policy();
    exchange(p, 0, refusal(0, '3600', rateLimitHeaders(1000, 0, FIXED_NOW / S + 3600)));
    expect(p.readyAt(key)).toBe(FIXED_NOW + 3600 * S);
  });

  it('waits a minute when the refusal says nothing usable', () => {
    const { p } = policy();
    exchange(p, 0, refusal(0, undefined, rateLimitHeaders(60, 0, 'soon')));
    expect(p.readyAt(key)).toBe(FIXED_NOW + 60 * S);
  });

  it('uses a minute Reset even when Remaining is not 0, so a Retry-After that is too short is outwaited', () => {
    const { p } = policy();
    exchange(p, 0, refusal(0, '5', rateLimitHeaders(60, 1, MINUTE_RESET)));
    expect(p.readyAt(key)).toBe(FIXED_NOW + 30 * S);
  });

  it('ignores the Reset of a day window that still has quota (another window refused)', () => {
    const { p } = policy();
    exchange(p, 0, refusal(0, '5', rateLimitHeaders(1000, 400, FIXED_NOW / S + 7200)));
    expect(p.readyAt(key)).toBe(FIXED_NOW + 5 * S);
  });

  it('lets one request through once the wait is over, until it is answered', () => {
    const { p } = policy();
    exchange(p, 0, refusal(0, '10'));
    p.noteSent(key, FIXED_NOW + 30 * S);
    expect(p.isFree(key, FIXED_NOW + 31 * S)).toBe(false);
    expect(
      p.onResponse(key, FIXED_NOW + 30 * S, answer(30_050, 200, rateLimitHeaders(60, 59, MINUTE_RESET + 60))),
    ).toBe('accepted');
    expect(p.isFree(key, FIXED_NOW + 31 * S)).toBe(true);
  });

  it('does not lengthen the backoff for refusals of requests already on their way', () => {
    const { p } = policy({ baseMs: 20 * S, capMs: 120 * S, random: () => 0.999 });
    p.noteSent(key, FIXED_NOW - 20);
    p.noteSent(key, FIXED_NOW - 10);
    p.onResponse(key, FIXED_NOW - 20, refusal(0, '1', rateLimitHeaders(60, 0, FIXED_NOW / S + 1)));
    // The first refusal's jitter is below 20 s; a second counted refusal would allow up to 40 s.
    p.onResponse(key, FIXED_NOW - 10, refusal(5, '1', rateLimitHeaders(60, 0, FIXED_NOW / S + 1)));
    expect(p.readyAt(key)).toBeLessThan(FIXED_NOW + 20_010);
    // A request sent after the refusals were known (and before they were over) is refused: that one counts.
    expect(exchange(p, 1500, refusal(1500, '1', rateLimitHeaders(60, 0, FIXED_NOW / S + 1)))).toBe('refused');
    expect(p.readyAt(key)).toBeGreaterThan(FIXED_NOW + 1500 + 39 * S);
  });
});

describe('BackoffPolicy before a refusal', () => {
  it('pauses a key whose Remaining is 0 until Reset', () => {
    const { p } = policy();
    expect(exchange(p, 0, answer(0, 200, rateLimitHeaders(60, 0, MINUTE_RESET)))).toBe('accepted');
    expect(p.isFree(key, FIXED_NOW + 29_999)).toBe(false);
    expect(p.isFree(key, FIXED_NOW + 30 * S)).toBe(true);
  });

  it('never has more requests in flight on a key than its Remaining', () => {
    const { p } = policy();
    exchange(p, 0, answer(0, 200, rateLimitHeaders(60, 2, MINUTE_RESET)));
    p.noteSent(key, FIXED_NOW + 100);
    expect(p.isFree(key, FIXED_NOW + 100)).toBe(true);
    p.noteSent(key, FIXED_NOW + 100);
    expect(p.isFree(key, FIXED_NOW + 100)).toBe(false);
    p.onResponse(key, FIXED_NOW + 100, answer(200, 200, rateLimitHeaders(60, 1, MINUTE_RESET)));
    expect(p.isFree(key, FIXED_NOW + 200)).toBe(false);
    p.onResponse(key, FIXED_NOW + 100, answer(210, 404, rateLimitHeaders(60, 1, MINUTE_RESET)));
    expect(p.isFree(key, FIXED_NOW + 210)).toBe(true);
    // The window's end frees the key whatever it showed.
    p.noteSent(key, FIXED_NOW + 300);
    expect(p.isFree(key, FIXED_NOW + 30 * S)).toBe(true);
  });
});

describe('BackoffPolicy and bans', () => {
  it('suspects a ban when a request sent after Retry-After and Reset (+1 s) is refused, and only then', () => {
    const { p, keyStates, bans } = policy();
    exchange(p, 0, refusal(0, '10'));
    // Sent before Reset + 1 s: just another refusal.
    expect(exchange(p, 30_500, refusal(30_500, '1', rateLimitHeaders(60, 0, MINUTE_RESET + 1)))).toBe('refused');
    expect(keyStates.get(key).suspectedBan).toBe(false);
    expect(exchange(p, 40 * S, refusal(40 * S, '900', rateLimitHeaders(1000, 0, FIXED_NOW / S + 940)))).toBe('banned');
    expect(keyStates.get(key).suspectedBan).toBe(true);
    expect(bans).toHaveLength(1);
    expect(bans[0]!.key).toBe(key);
    expect(p.isFree(key, FIXED_NOW + 10_000 * S)).toBe(false);
    // Later answers are counted, never reported again.
    expect(p.onResponse(key, FIXED_NOW + 40 * S, refusal(41 * S, '900'))).toBe('refused');
    expect(bans).toHaveLength(1);
  });

  it('waits a whole minute before suspecting a ban when no Reset belongs to the refused window', () => {
    const { p, keyStates } = policy();
    const dayTriple = rateLimitHeaders(1000, 500, FIXED_NOW / S + 7200);
    exchange(p, 0, refusal(0, '5', dayTriple));
    expect(exchange(p, 30 * S, refusal(30 * S, '5', dayTriple))).toBe('refused');
    expect(keyStates.get(key).suspectedBan).toBe(false);
    expect(exchange(p, 62 * S, refusal(62 * S, '5', dayTriple))).toBe('banned');
  });

  it("ends the streak at an answer to a request sent after the refusal, not at a straggler's", () => {
    const { p, keyStates } = policy();
    p.noteSent(key, FIXED_NOW - 10);
    exchange(p, 0, refusal(0, '10'));
    // Sent before the refusal arrived: it does not show the refusal is over.
    p.onResponse(key, FIXED_NOW - 10, answer(20, 200, rateLimitHeaders(60, 0, MINUTE_RESET)));
    expect(exchange(p, 40 * S, refusal(40 * S, '900'))).toBe('banned');
    expect(keyStates.get(key).suspectedBan).toBe(true);
  });

  it('starts afresh after an accepted request', () => {
    const { p, keyStates } = policy();
    exchange(p, 0, refusal(0, '10'));
    exchange(p, 30 * S, answer(30 * S, 200, rateLimitHeaders(60, 59, MINUTE_RESET + 60)));
    expect(exchange(p, 40 * S, refusal(40 * S, '50', rateLimitHeaders(60, 0, MINUTE_RESET + 60)))).toBe('refused');
    expect(keyStates.get(key).suspectedBan).toBe(false);
  });
});
