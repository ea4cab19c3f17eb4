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
import { readRateLimit } from './ratelimit.js';
import { judgeRetryAfter, type RetryAfterWait } from './retry-after.js';
import { createRecorder, createViewer } from './view.js';

const view = createViewer(TEST_PLANS);
const refused = (retryAfter: string | string[] | undefined, extra: ExchangeParts = {}): ExchangeParts => ({
  status: 429,
  json: { code: 'rate_limited', message: 'slow down', status: 429 },
  ...extra,
  headers: { ...rateLimitHeaders(60, 0, MINUTE_RESET), 'retry-after': retryAfter, ...extra.headers },
});
function run(parts: ExchangeParts): { ledger: Ledger; wait: RetryAfterWait | null } {
  const ledger = new Ledger();
  const r = createRecorder(ledger);
  const v = view(buildExchange(parts));
  const wait = judgeRetryAfter(v, readRateLimit(v, r), r);
  return { ledger, wait };
}
const message = (l: Ledger, id: Parameters<typeof outcomeOf>[1]) => outcomeOf(l, id)?.evidence[0]?.message;

describe('retry-after.present', () => {
  it('passes exactly one', () => {
    expect(countsOf(run(refused('30')).ledger, 'retry-after.present')).toEqual({ passed: 1, failed: 0, skipped: 0 });
  });

  it('fails none and two, and the dependent checks skip naming it', () => {
    const missing = run(refused(undefined)).ledger;
    expect(message(missing, 'retry-after.present')).toBe('a 429 without Retry-After');
    expect(outcomeOf(missing, 'retry-after.syntax')?.skipReasons).toEqual([
      'no single Retry-After (see retry-after.present)',
    ]);
    expect(outcomeOf(missing, 'retry-after.plausible')?.skipReasons).toEqual([
      'no single Retry-After (see retry-after.present)',
    ]);
    expect(message(run(refused(['30', '30'])).ledger, 'retry-after.present')).toBe('Retry-After repeated: 30 | 30');
  });

  it('judges only 429 responses', () => {
    const { ledger, wait } = run({ status: 503, headers: { 'retry-after': 'soon' } });
    expect(countsOf(ledger, 'retry-after.present')).toEqual({ passed: 0, failed: 0, skipped: 0 });
    expect(wait).toBeNull();
  });
});

describe('retry-after.syntax', () => {
  it.each(['30', '0', httpDate(FIXED_NOW + 20_000)])('passes %j', (raw) => {
    expect(countsOf(run(refused(raw)).ledger, 'retry-after.syntax').passed).toBe(1);
  });

  it.each([
    ['30.5', 'Retry-After "30.5" is neither delay-seconds nor an HTTP-date'],
    ['30s', 'Retry-After "30s" is neither delay-seconds nor an HTTP-date'],
    ['-1', 'Retry-After "-1" is neither delay-seconds nor an HTTP-date'],
    ['2030-01-15T12:00:50Z', 'Retry-After "2030-01-15T12:00:50Z" is neither delay-seconds nor an HTTP-date'],
    [
      'Tuesday, 15-Jan-30 12:00:50 GMT',
      'Retry-After "Tuesday, 15-Jan-30 12:00:50 GMT" is an obsolete HTTP-date form; a sender must use IMF-fixdate',
    ],
  ])('fails %j', (raw, expected) => {
    expect(message(run(refused(raw)).ledger, 'retry-after.syntax')).toBe(expected);
  });

  it('leaves an unreadable value out of retry-after.plausible, naming retry-after.syntax', () => {
    const { ledger, wait } = run(refused('soon'));
    expect(outcomeOf(ledger, 'retry-after.plausible')?.skipReasons).toEqual([
      'Retry-After is not readable (see retry-after.syntax)',
    ]);
    expect(wait).toBeNull();
  });
});

describe('retry-after.plausible', () => {
  it('passes a wait up to Reset - Date + 1 s, in both forms', () => {
    expect(countsOf(run(refused('31')).ledger, 'retry-after.plausible').passed).toBe(1);
    expect(countsOf(run(refused(httpDate(FIXED_NOW + 31_000))).ledger, 'retry-after.plausible').passed).toBe(1);
    expect(run(refused('30')).wait).toEqual({
      raw: '30',
      waitS: 30,
      untilEpochMs: null,
      boundS: 31,
      resetEpochMs: MINUTE_RESET * 1000,
    });
  });

  it('judges an obsolete date form too (syntax fails it once)', () => {
    const { ledger } = run(refused('Tuesday, 15-Jan-30 12:00:50 GMT'));
    expect(countsOf(ledger, 'retry-after.plausible').passed).toBe(1);
  });

  it('fails a wait longer than the time to Reset', () => {
    expect(message(run(refused('45')).ledger, 'retry-after.plausible')).toBe(
      'Retry-After "45" asks for 45 s, more than the 31 s until Reset (1 s tolerance)',
    );
  });

  it('reads a 429 without Date from the request sent: its time in transit widens the bound', () => {
    // Reset 60 s after the request was sent, Retry-After 60, the answer read 2.5 s later (a busy machine).
    const noDate = (done: number) =>
      refused('60', {
        localTime: FIXED_NOW + done,
        timing: { sent: 0, headers: done, done },
        headers: { date: undefined, ...rateLimitHeaders(60, 0, FIXED_NOW_S + 60) },
      });
    expect(countsOf(run(noDate(2500)).ledger, 'retry-after.plausible').passed).toBe(1);
    // No transit to explain it: the wait is too long by more than the second.
    const l = run(refused('63', { headers: { date: undefined, ...rateLimitHeaders(60, 0, FIXED_NOW_S + 60) } })).ledger;
    expect(message(l, 'retry-after.plausible')).toBe(
      'Retry-After "63" asks for 63 s, more than the 61 s until Reset (1 s tolerance, and its 10 ms in transit: no Date)',
    );
  });

  it('names milliseconds', () => {
    expect(message(run(refused('30000')).ledger, 'retry-after.plausible')).toBe(
      'Retry-After "30000" asks for 30000 s, more than the 31 s until Reset (1 s tolerance): it looks like milliseconds',
    );
    const sub = run(refused('500', { headers: rateLimitHeaders(60, 0, FIXED_NOW_S) })).ledger;
    expect(message(sub, 'retry-after.plausible')).toMatch(/looks like milliseconds$/);
  });

  it('names an epoch timestamp, in seconds and in milliseconds', () => {
    expect(message(run(refused(String(MINUTE_RESET))).ledger, 'retry-after.plausible')).toMatch(
      /looks like an epoch timestamp, not delay-seconds$/,
    );
    expect(message(run(refused(String(MINUTE_RESET * 1000))).ledger, 'retry-after.plausible')).toMatch(
      /epoch timestamp in milliseconds/,
    );
  });

  it('fails a date in year 9999 and a wait beyond the day with no rate-limit headers, quoting the value', () => {
    const none = { 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined };
    expect(
      message(run(refused('Fri, 31 Dec 9999 23:59:59 GMT', { headers: none })).ledger, 'retry-after.plausible'),
    ).toMatch(
      /^Retry-After "Fri, 31 Dec 9999 23:59:59 GMT" asks for \d+ s, more than the 86400 s window length \(Reset is not usable\)$/,
    );
    expect(message(run(refused('86402', { headers: none })).ledger, 'retry-after.plausible')).toMatch(
      /^Retry-After "86402" asks for 86402 s, more than the 86400 s window length/,
    );
    expect(countsOf(run(refused('86401', { headers: none })).ledger, 'retry-after.plausible').passed).toBe(1);
  });

  it('bounds by the window length when Reset is unusable', () => {
    const broken = { headers: { 'x-ratelimit-reset': String(MINUTE_RESET * 1000) } };
    expect(countsOf(run(refused('60', broken)).ledger, 'retry-after.plausible').passed).toBe(1);
    expect(message(run(refused('90', broken)).ledger, 'retry-after.plausible')).toBe(
      'Retry-After "90" asks for 90 s, more than the 60 s window length (Reset is not usable)',
    );
  });

  it('bounds by the day when the 429 shows Remaining above 0 (another window refused)', () => {
    const { ledger } = run(refused('3600', { headers: rateLimitHeaders(60, 12, MINUTE_RESET) }));
    expect(countsOf(ledger, 'retry-after.plausible').passed).toBe(1);
  });
});
