import { describe, expect, it } from 'vitest';
import { buildExchange, FIXED_NOW, httpDate } from '../testing/exchange-builder.js';
import { waitedOutMessage, waitedRetryAfter } from './waited-out.js';

describe('waitedOutMessage', () => {
  it('holds the 429 that promised, when petload came back, and the answer then', () => {
    const promised = buildExchange({
      status: 429,
      headers: { 'retry-after': '28', 'x-ratelimit-reset': '1894708860', date: httpDate(FIXED_NOW) },
      timing: { intended: 1000, sent: 1000, headers: 1004, done: 1005 },
      localTime: FIXED_NOW,
    });
    const again = buildExchange({
      status: 429,
      headers: { 'retry-after': '14', 'x-ratelimit-reset': '1894708874', date: httpDate(FIXED_NOW + 28_000) },
      timing: { intended: 29_255, sent: 29_255, headers: 29_260, done: 29_261 },
    });
    expect(waitedOutMessage(promised, again, waitedRetryAfter(28_000))).toBe(
      'refused again (429) after waiting Retry-After (28 s) + 250 ms; ' +
        'the 429 that promised: Retry-After: 28, X-RateLimit-Reset: 1894708860, Date: Tue, 15 Jan 2030 12:00:30 GMT; ' +
        "petload came back 28.3 s after it (at 2030-01-15T12:00:58.250Z, petload's clock; 28 s by the target's Date); " +
        'the answer then: 429, Retry-After: 14, X-RateLimit-Reset: 1894708874, Date: Tue, 15 Jan 2030 12:00:58 GMT',
    );
  });

  it('says none for a header the target left out, and bounds an absurd one', () => {
    const promised = buildExchange({ status: 429, headers: { 'retry-after': '5', 'x-ratelimit-reset': undefined } });
    const again = buildExchange({ status: 503, headers: { 'retry-after': 'x'.repeat(500) } });
    const m = waitedOutMessage(promised, again, waitedRetryAfter(5000));
    expect(m).toContain('the 429 that promised: Retry-After: 5, X-RateLimit-Reset: none, Date: ');
    expect(m).toContain(`the answer then: 503, Retry-After: ${'x'.repeat(60)}…, X-RateLimit-Reset: `);
    // Within the ledger's 500 characters of a message.
    expect(m.length).toBeLessThan(500);
  });
});
