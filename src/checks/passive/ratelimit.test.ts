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
import { readRateLimit, type RateLimitRead } from './ratelimit.js';
import { createRecorder, createViewer } from './view.js';
import { lineOf } from '../skip-reason.js';

const view = createViewer(TEST_PLANS);
function run(parts: ExchangeParts): { ledger: Ledger; read: RateLimitRead } {
  const ledger = new Ledger();
  const read = readRateLimit(view(buildExchange(parts)), createRecorder(ledger));
  return { ledger, read };
}
const message = (l: Ledger, id: Parameters<typeof outcomeOf>[1], plan: Parameters<typeof outcomeOf>[2] = 'free') =>
  outcomeOf(l, id, plan)?.evidence[0]?.message;
const none = { 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined };

describe('readRateLimit', () => {
  it('returns a usable triple when every check accepts it', () => {
    const { read, ledger } = run({});
    expect(read).toMatchObject({
      limit: { ok: true, value: 60 },
      remaining: { ok: true, value: 59 },
      reset: { ok: true, value: MINUTE_RESET },
      usable: true,
    });
    for (const id of [
      'ratelimit.headers-present',
      'ratelimit.headers-syntax',
      'ratelimit.limit-matches-plan',
      'ratelimit.reset-is-timestamp',
    ] as const) {
      expect(countsOf(ledger, id)).toEqual({ passed: 1, failed: 0, skipped: 0 });
    }
  });
});

describe('ratelimit.headers-present', () => {
  it('fails a 429 without the headers, listing each', () => {
    const { ledger, read } = run({ status: 429, headers: none });
    expect(message(ledger, 'ratelimit.headers-present')).toBe(
      '429 response: X-RateLimit-Limit missing; X-RateLimit-Remaining missing; X-RateLimit-Reset missing',
    );
    expect(read.usable).toBe(false);
    expect(lineOf(read.reason)).toBe('X-RateLimit-* missing or repeated (see ratelimit.headers-present)');
  });

  it('fails a repeated header even when both values are the same', () => {
    const { ledger } = run({ headers: { 'x-ratelimit-limit': ['60', '60'] } });
    expect(message(ledger, 'ratelimit.headers-present')).toBe('200 response: X-RateLimit-Limit repeated (60, 60)');
    expect(countsOf(ledger, 'ratelimit.headers-syntax')).toEqual({ passed: 1, failed: 0, skipped: 0 });
  });

  it('does not judge 400/401/404, nor statuses no check covers', () => {
    expect(countsOf(run({ status: 401, headers: none }).ledger, 'ratelimit.headers-present')).toEqual({
      passed: 0,
      failed: 0,
      skipped: 0,
    });
    expect(run({ status: 503, headers: none }).ledger.all()).toEqual([]);
  });
});

describe('ratelimit.headers-on-errors', () => {
  it.each([400, 401, 404])('passes a %i with the three headers', (status) => {
    expect(countsOf(run({ status }).ledger, 'ratelimit.headers-on-errors').passed).toBe(1);
  });

  it('fails a 404 without them', () => {
    expect(message(run({ status: 404, headers: none }).ledger, 'ratelimit.headers-on-errors')).toMatch(
      /^404 response: X-RateLimit-Limit missing/,
    );
  });
});

describe('ratelimit.headers-syntax', () => {
  it.each([
    [{ 'x-ratelimit-limit': '60.0' }, 'X-RateLimit-Limit "60.0" is not a plain non-negative integer'],
    [{ 'x-ratelimit-remaining': '-1' }, 'X-RateLimit-Remaining "-1" is not a plain non-negative integer'],
    [{ 'x-ratelimit-reset': '1894708860s' }, 'X-RateLimit-Reset "1894708860s" is not a plain non-negative integer'],
    [{ 'x-ratelimit-limit': '60, 1000' }, 'X-RateLimit-Limit "60, 1000" is not a plain non-negative integer'],
    [{ 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0' }, 'X-RateLimit-Limit is 0; a limit is at least 1'],
    [{ 'x-ratelimit-remaining': '61' }, 'X-RateLimit-Remaining 61 exceeds X-RateLimit-Limit 60'],
  ])('fails %j', (headers, expected) => {
    const { ledger, read } = run({ headers });
    expect(message(ledger, 'ratelimit.headers-syntax')).toBe(expected);
    expect(read.usable).toBe(false);
    expect(lineOf(read.reason)).toBe('an X-RateLimit-* value is not usable (see ratelimit.headers-syntax)');
  });

  it('fails a repeated header on a status no presence check covers', () => {
    const { ledger } = run({ status: 403, headers: { 'x-ratelimit-limit': ['60', '60'] } });
    expect(message(ledger, 'ratelimit.headers-syntax')).toBe(
      'X-RateLimit-Limit "60, 60" is not a plain non-negative integer',
    );
  });

  it('judges the headers present, alone', () => {
    const { ledger } = run({ status: 503, headers: { ...none, 'x-ratelimit-reset': String(MINUTE_RESET) } });
    expect(countsOf(ledger, 'ratelimit.headers-syntax').passed).toBe(1);
  });
});

describe('ratelimit.limit-matches-plan', () => {
  it('passes the per-minute and the per-day figure', () => {
    expect(countsOf(run({}).ledger, 'ratelimit.limit-matches-plan').passed).toBe(1);
    const day = run({ headers: rateLimitHeaders(1000, 999, FIXED_NOW_S + 3600) });
    expect(countsOf(day.ledger, 'ratelimit.limit-matches-plan').passed).toBe(1);
  });

  it("fails another plan's figure", () => {
    const { ledger } = run({ headers: rateLimitHeaders(1000, 999, MINUTE_RESET), plan: 'pro' });
    expect(message(ledger, 'ratelimit.limit-matches-plan', 'pro')).toBe(
      "Limit 1000 is neither the pro plan's per-minute (300) nor per-day (10000) figure",
    );
  });

  it('skips an unusable Limit naming the check that judged it, and plans without figures', () => {
    const { ledger } = run({ headers: { 'x-ratelimit-limit': 'many' } });
    expect(outcomeOf(ledger, 'ratelimit.limit-matches-plan')?.skipReasons).toEqual([
      'an X-RateLimit-* value is not usable (see ratelimit.headers-syntax)',
    ]);
    const ent = run({ plan: 'enterprise' });
    expect(outcomeOf(ent.ledger, 'ratelimit.limit-matches-plan', 'enterprise')?.skipReasons).toEqual([
      'no figures known for plan enterprise',
    ]);
  });

  it('judges only valid keys', () => {
    expect(
      countsOf(
        run({ auth: 'none', plan: null, keyLabel: null, status: 401 }).ledger,
        'ratelimit.limit-matches-plan',
        null,
      ).passed,
    ).toBe(0);
  });
});

describe('ratelimit.reset-is-timestamp', () => {
  const reset = (value: number | string, extra: ExchangeParts = {}) =>
    run({ ...extra, headers: { 'x-ratelimit-reset': String(value), ...extra.headers } });

  it.each([
    ['one second before Date', FIXED_NOW_S - 1],
    ['at Date', FIXED_NOW_S],
    ['a window after Date', FIXED_NOW_S + 61],
  ])('passes a minute Reset %s', (_what, value) => {
    expect(countsOf(reset(value).ledger, 'ratelimit.reset-is-timestamp').passed).toBe(1);
  });

  it('widens the tolerance by the time the exchange took (the counter is read while the request is at the server)', () => {
    const slow = reset(FIXED_NOW_S + 62, { timing: { sent: 1000, done: 2300 } });
    expect(countsOf(slow.ledger, 'ratelimit.reset-is-timestamp').passed).toBe(1);
    const quick = reset(FIXED_NOW_S + 62, { timing: { sent: 1000, done: 1100 } });
    expect(message(quick.ledger, 'ratelimit.reset-is-timestamp')).toMatch(/^Reset \d+ is 62 s after Date/);
  });

  it('passes a day Limit with a Reset hours away', () => {
    const { ledger } = run({ headers: rateLimitHeaders(1000, 10, FIXED_NOW_S + 40_000) });
    expect(countsOf(ledger, 'ratelimit.reset-is-timestamp').passed).toBe(1);
  });

  it('names milliseconds', () => {
    const { ledger, read } = reset(MINUTE_RESET * 1000);
    expect(message(ledger, 'ratelimit.reset-is-timestamp')).toBe(
      `Reset ${MINUTE_RESET * 1000} looks like Unix milliseconds (read as ms it is 30 s from Date ${FIXED_NOW_S}); expected Unix seconds`,
    );
    expect(read.usable).toBe(false);
    expect(lineOf(read.reason)).toBe('Reset is not a usable timestamp (see ratelimit.reset-is-timestamp)');
  });

  it('names seconds until reset', () => {
    expect(message(reset(30).ledger, 'ratelimit.reset-is-timestamp')).toBe(
      `Reset 30 looks like seconds until reset, not a Unix timestamp (Date ${FIXED_NOW_S})`,
    );
  });

  it('fails a Reset in the past and a minute Limit with a Reset hours away', () => {
    expect(message(reset(FIXED_NOW_S - 10).ledger, 'ratelimit.reset-is-timestamp')).toBe(
      `Reset ${FIXED_NOW_S - 10} is 10 s before Date ${FIXED_NOW_S}`,
    );
    expect(message(reset(FIXED_NOW_S + 3600).ledger, 'ratelimit.reset-is-timestamp')).toBe(
      `Reset ${FIXED_NOW_S + 3600} is 3600 s after Date ${FIXED_NOW_S}, beyond the 60 s window of Limit 60`,
    );
  });

  it('uses the local clock when Date is absent or malformed', () => {
    const local = reset(FIXED_NOW_S + 3630, { headers: { date: undefined }, localTime: FIXED_NOW + 3600_000 });
    expect(countsOf(local.ledger, 'ratelimit.reset-is-timestamp').passed).toBe(1);
    const bad = reset(FIXED_NOW_S + 3630, {
      headers: { date: '2030-01-15T13:00:30Z' },
      localTime: FIXED_NOW + 3600_000,
    });
    expect(countsOf(bad.ledger, 'ratelimit.reset-is-timestamp').passed).toBe(1);
    const far = reset(FIXED_NOW_S + 30, { headers: { date: undefined }, localTime: FIXED_NOW + 3600_000 });
    expect(message(far.ledger, 'ratelimit.reset-is-timestamp')).toMatch(/before local clock/);
  });

  it('takes the day as the window when the Limit cannot be tied to the plan', () => {
    const { ledger } = run({
      auth: 'none',
      plan: null,
      keyLabel: null,
      status: 401,
      headers: { 'x-ratelimit-reset': String(FIXED_NOW_S + 3600) },
    });
    expect(countsOf(ledger, 'ratelimit.reset-is-timestamp', null).passed).toBe(1);
  });

  it('skips a missing Reset where presence is required, and says nothing where it is not', () => {
    const { ledger } = run({ headers: { 'x-ratelimit-reset': undefined } });
    expect(outcomeOf(ledger, 'ratelimit.reset-is-timestamp')?.skipReasons).toEqual([
      'X-RateLimit-* missing or repeated (see ratelimit.headers-present)',
    ]);
    expect(countsOf(run({ status: 500, headers: none }).ledger, 'ratelimit.reset-is-timestamp')).toEqual({
      passed: 0,
      failed: 0,
      skipped: 0,
    });
  });

  it('reads the Date of a later response', () => {
    const later = run({
      headers: { date: httpDate(FIXED_NOW + 120_000), 'x-ratelimit-reset': String(FIXED_NOW_S + 150) },
    });
    expect(countsOf(later.ledger, 'ratelimit.reset-is-timestamp').passed).toBe(1);
  });
});
