import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger.js';
import { buildExchange, countsOf, outcomeOf, TEST_PLANS, type ExchangeParts } from '../../testing/exchange-builder.js';
import { readRateLimit } from './ratelimit.js';
import { judgeRateLimitFields } from './ratelimit-fields.js';
import { createRecorder, createViewer } from './view.js';

const SYNTAX = 'ratelimit-fields.syntax';
const CONSISTENT = 'ratelimit-fields.consistent';

/** One exchange through the X-RateLimit-* reading and the IETF fields checks; the default answer is Free's 60/59/30 s. */
function judge(parts: ExchangeParts) {
  const ledger = new Ledger();
  const r = createRecorder(ledger);
  const v = createViewer(TEST_PLANS)(buildExchange(parts));
  judgeRateLimitFields(v, readRateLimit(v, r), r);
  return ledger;
}
const messages = (l: Ledger, id: typeof SYNTAX | typeof CONSISTENT) =>
  outcomeOf(l, id)?.evidence.map((e) => e.message) ?? [];

describe('ratelimit-fields.syntax and ratelimit-fields.consistent', () => {
  it('record nothing when the response has no IETF fields', () => {
    const l = judge({});
    expect(outcomeOf(l, SYNTAX)).toBeUndefined();
    expect(outcomeOf(l, CONSISTENT)).toBeUndefined();
  });

  it("pass draft-11 fields that say what X-RateLimit-* say, with the plan's figures", () => {
    const l = judge({
      headers: { 'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400', ratelimit: '"minute";r=59;t=30' },
    });
    expect(countsOf(l, SYNTAX)).toEqual({ passed: 1, failed: 0, skipped: 0 });
    expect(countsOf(l, CONSISTENT)).toEqual({ passed: 1, failed: 0, skipped: 0 });
  });

  it('fail malformed fields, naming the form', () => {
    const l = judge({ headers: { ratelimit: '"minute";t=30' } });
    expect(messages(l, SYNTAX)).toEqual([
      'draft-11 RateLimit / RateLimit-Policy (named lists): r of "minute" is missing, not a non-negative integer',
    ]);
    expect(outcomeOf(l, CONSISTENT)).toBeUndefined();
  });

  it('fail fields that disagree with X-RateLimit-*: remaining, reset, quota', () => {
    const l = judge({ headers: { 'ratelimit-policy': '"minute";q=60;w=60', ratelimit: '"minute";r=40;t=30' } });
    expect(messages(l, CONSISTENT)).toEqual([
      expect.stringMatching(
        /no limit listed is the one X-RateLimit-\* describe \(Limit 60, Remaining 59, Reset in 30 s\): "minute" remaining 40, reset in 30 s of 60$/,
      ),
    ]);
    expect(
      judge({ headers: { ratelimit: 'limit=60, remaining=59, reset=10' } })
        .all()
        .find((o) => o.id === CONSISTENT)?.failed,
    ).toBe(1);
    expect(
      judge({ headers: { ratelimit: 'limit=60, remaining=59, reset=30' } })
        .all()
        .find((o) => o.id === CONSISTENT)?.passed,
    ).toBe(1);
  });

  it("fail a policy that is not a figure of the key's plan", () => {
    const l = judge({
      headers: { 'ratelimit-policy': '"minute";q=100;w=60, "hour";q=500;w=3600', ratelimit: '"x";r=59;t=30' },
    });
    expect(messages(l, CONSISTENT)[0]).toBe(
      'draft-11 RateLimit / RateLimit-Policy (named lists): policy "minute" allows 100 a minute; the plan\'s figure is 60; policy "hour" has a window of 3600 s, neither the plan\'s minute nor its day',
    );
  });

  it('skip the comparison without usable X-RateLimit-*, and say which fields the target sends instead', () => {
    const headers = {
      'x-ratelimit-limit': undefined,
      'x-ratelimit-remaining': undefined,
      'x-ratelimit-reset': undefined,
      ratelimit: '"m";r=59;t=30',
      'ratelimit-policy': '"m";q=60;w=60',
    };
    const l = judge({ headers });
    expect(countsOf(l, SYNTAX).passed).toBe(1);
    expect(countsOf(l, CONSISTENT)).toEqual({ passed: 0, failed: 0, skipped: 1 });
    expect(outcomeOf(l, 'ratelimit.headers-present')?.evidence[0]?.message).toMatch(
      /; it sends RateLimit, RateLimit-Policy instead \(the IETF fields; the interface requires X-RateLimit-\*\)$/,
    );
  });
});
