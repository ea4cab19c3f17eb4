import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger.js';
import {
  buildExchange,
  countsOf,
  FIXED_NOW,
  FIXED_NOW_S,
  httpDate,
  MINUTE_RESET,
  outcomeOf,
  rateLimitHeaders,
  TEST_PLANS,
  type ExchangeParts,
} from '../../testing/exchange-builder.js';
import { createBackoffJudge } from './client.js';
import { readRateLimit } from './ratelimit.js';
import { judgeRetryAfter } from './retry-after.js';
import { createRecorder, createViewer } from './view.js';

const SCALE = 60;
/** Feeds exchanges through the Retry-After reading and the client check, as the observer does. */
function session() {
  const ledger = new Ledger();
  const r = createRecorder(ledger);
  const view = createViewer(TEST_PLANS);
  const judge = createBackoffJudge(SCALE);
  return {
    ledger,
    see(parts: ExchangeParts) {
      const v = view(buildExchange(parts));
      judge(v, judgeRetryAfter(v, readRateLimit(v, r), r), r);
    },
  };
}
/** A 429 received at run-clock ms 10 000 asking to wait `retryAfter`. */
const refusal = (retryAfter: string, extra: ExchangeParts = {}): ExchangeParts => ({
  status: 429,
  timing: { sent: 9_990, done: 10_000 },
  ...extra,
  headers: { ...rateLimitHeaders(60, 0, MINUTE_RESET), 'retry-after': retryAfter, ...extra.headers },
});
const sentAt = (sent: number, extra: ExchangeParts = {}): ExchangeParts => ({
  timing: { sent, done: sent + 10 },
  ...extra,
});

describe('backoff.respects-retry-after', () => {
  it('passes a request sent once the wait is over', () => {
    const s = session();
    s.see(refusal('20'));
    s.see(sentAt(30_000));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 2, failed: 0, skipped: 0 });
  });

  it('holds an implausible Retry-After without a usable Reset (an epoch, a date in 9999) for the backoff cap only', () => {
    const none = { 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined };
    for (const raw of ['1000000000000', 'Fri, 31 Dec 9999 23:59:59 GMT']) {
      const s = session();
      s.see(refusal(raw, { headers: none }));
      s.see(sentAt(10_000 + 20_000));
      s.see(sentAt(10_000 + 30_000));
      expect(countsOf(s.ledger, 'retry-after.plausible').failed).toBe(1);
      // One defect, one failure: the request inside the cap fails, the one after it does not.
      expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 2, failed: 1, skipped: 0 });
    }
  });

  it('fails a request sent during the wait, with the evidence', () => {
    const s = session();
    s.see(refusal('20'));
    s.see(sentAt(25_000));
    expect(outcomeOf(s.ledger, 'backoff.respects-retry-after')?.evidence[0]?.message).toBe(
      'sent 15000 ms after a 429 whose Retry-After "20" held the key for 20000 ms (run-clock ms)',
    );
  });

  it('allows 2 real ms of slack (2 × scale run-clock ms) at the end of the wait', () => {
    const s = session();
    s.see(refusal('20'));
    s.see(sentAt(30_000 - 2 * SCALE));
    s.see(sentAt(30_000 - 2 * SCALE - 1));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 2, failed: 1, skipped: 0 });
  });

  it('does not hold requests already in flight, other keys, or invalid credentials', () => {
    const s = session();
    s.see(refusal('20'));
    s.see(sentAt(9_995));
    s.see(sentAt(12_000, { keyLabel: 'free#2 (…abcd)' }));
    s.see(sentAt(12_000, { auth: 'invalid', keyLabel: 'unknown key', plan: null }));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 3, failed: 0, skipped: 0 });
  });

  it('exempts a deliberate knock, and only a knock: a ban-probe tag alone does not exempt', () => {
    const s = session();
    s.see(refusal('20'));
    s.see(sentAt(12_000, { tag: 'probe:ban', intent: 'knock' }));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 1, failed: 0, skipped: 1 });
    // The same probe's ordinary request inside the wait is a violation, as is any tag starting with "ban".
    s.see(sentAt(13_000, { tag: 'probe:ban' }));
    s.see(sentAt(14_000, { tag: 'ban' }));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 1, failed: 2, skipped: 1 });
  });

  it('still learns the wait from a knock answered 429: a later ordinary request inside it fails', () => {
    const s = session();
    s.see(refusal('20'));
    // Knocked at 12 s, answered with a ban of 900 s (capped at the window: the Reset a minute away).
    s.see({ ...refusal('900'), timing: { sent: 12_000, done: 12_010 }, intent: 'knock' });
    s.see(sentAt(35_000));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 1, failed: 1, skipped: 1 });
  });

  it('caps the wait at the time to Reset, so a Retry-After in milliseconds holds only until Reset', () => {
    const s = session();
    s.see(refusal('30000'));
    // Reset is 30 s after Date; its earliest local reading is a second (and the 10 ms transit) sooner.
    s.see(sentAt(10_000 + 30_000));
    s.see(sentAt(10_000 + 28_800));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 2, failed: 1, skipped: 0 });
  });

  it('holds a wait beyond the window length, when Reset is unusable, for the backoff cap only', () => {
    const s = session();
    s.see(refusal('30000', { headers: { 'x-ratelimit-reset': String(MINUTE_RESET * 1000) } }));
    s.see(sentAt(10_000 + 31_000));
    s.see(sentAt(10_000 + 29_000));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 2, failed: 1, skipped: 0 });
  });

  it("measures an HTTP-date from the answer's Date, less Date's second and the transit", () => {
    const s = session();
    // Date says 12:00:30, the local clock 12:00:30.900: the date asks for 20 s from Date; the server's time was up
    // to a second past its Date when the 10 ms answer was stamped, so the hold is 18.99 s (less 120 ms of slack).
    s.see(refusal(httpDate(FIXED_NOW + 20_000), { localTime: FIXED_NOW + 900 }));
    s.see(sentAt(10_000 + 18_870));
    s.see(sentAt(10_000 + 18_860));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 2, failed: 1, skipped: 0 });
  });

  it("holds the client to the whole wait on a server's clock far behind or ahead of the local one", () => {
    for (const skewMs of [-20 * 60_000, -20_000, 20 * 60_000]) {
      const s = session();
      // The server's Date is FIXED_NOW; the local clock reads FIXED_NOW - skew. It asks for 20 s by an HTTP-date and
      // by a Reset 20 s away: both hold the key for 20 s less Date's second and the transit, whatever the skew.
      s.see(
        refusal(httpDate(FIXED_NOW + 20_000), {
          localTime: FIXED_NOW - skewMs,
          headers: rateLimitHeaders(60, 0, FIXED_NOW_S + 20),
        }),
      );
      s.see(sentAt(10_000 + 18_870));
      s.see(sentAt(10_000 + 18_000));
      expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 2, failed: 1, skipped: 0 });
    }
  });

  it('sets no hold for an unreadable Retry-After or a date in the past', () => {
    const s = session();
    s.see(refusal('soon'));
    s.see(refusal(httpDate(FIXED_NOW - 5_000), { timing: { sent: 10_010, done: 10_020 } }));
    s.see(sentAt(10_500));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 3, failed: 0, skipped: 0 });
  });

  it('keeps earlier holds for requests that complete after a later 429', () => {
    const s = session();
    s.see(refusal('20'));
    s.see(refusal('20', { timing: { sent: 40_000, done: 40_010 } }));
    s.see(sentAt(15_000));
    expect(countsOf(s.ledger, 'backoff.respects-retry-after')).toEqual({ passed: 2, failed: 1, skipped: 0 });
  });
});
