import { describe, expect, it } from 'vitest';
import { buildExchange, FIXED_NOW, httpDate } from '../testing/exchange-builder.js';
import { answerOf, banDuration, describeAnswer, sameAnswer } from './ban-measure.js';

/** An answer handled by the target between run-clock ms `sent` and `headers`, complete 2 ms later; Date optional. */
function at(sent: number, headers: number, date: number | null, status = 429, code: string | null = 'key_banned') {
  return buildExchange({
    status,
    ...(code === null ? {} : { json: { code, message: 'm', status } }),
    timing: { sent, headers, done: headers + 2 },
    localTime: FIXED_NOW + headers + 2,
    headers: { date: date === null ? undefined : httpDate(date) },
  });
}

describe('answers', () => {
  it('are a status and an Error code; the same when both agree', () => {
    const ban = at(0, 10, FIXED_NOW);
    expect(answerOf(ban)).toEqual({ status: 429, code: 'key_banned' });
    expect(sameAnswer(answerOf(ban), answerOf(at(5, 9, null)))).toBe(true);
    expect(sameAnswer(answerOf(ban), answerOf(at(5, 9, null, 429, 'rate_limited')))).toBe(false);
    expect(sameAnswer(answerOf(ban), answerOf(at(5, 9, null, 403)))).toBe(false);
    expect(describeAnswer(at(0, 1, null, 200, null))).toBe('status 200, code none');
  });
});

describe('banDuration', () => {
  it('on a run clock that agrees with Date: the middle of the range, its half-width the uncertainty', () => {
    // Banned while handled in [0, 10]; still banned when handled from 119 800 on; unbanned by 120 010.
    const d = banDuration(
      at(0, 10, FIXED_NOW),
      at(119_800, 119_810, FIXED_NOW + 119_000),
      at(119_900, 120_010, FIXED_NOW + 120_000),
    );
    expect(d).toEqual({
      seconds: 119.9,
      uncertaintySeconds: 0.1,
      clock: 'run clock, agreeing with the target Date headers',
    });
  });

  it('by the Date headers alone when the run clock runs at another rate than the target', () => {
    // 2 s of run clock, but the target's Date says 120 s went by (a target on a clock 60 times faster).
    const d = banDuration(
      at(0, 10, FIXED_NOW),
      at(1_800, 1_810, FIXED_NOW + 108_000),
      at(2_000, 2_010, FIXED_NOW + 120_000),
    );
    expect(d).toEqual({ seconds: 120, uncertaintySeconds: 1.1, clock: 'target Date headers' });
  });

  it('by the run clock when an answer has no Date', () => {
    const d = banDuration(at(0, 10, null), at(59_000, 59_010, null), at(60_000, 60_010, null));
    expect(d).toEqual({ seconds: 59.5, uncertaintySeconds: 0.5, clock: 'run clock (no Date header)' });
  });
});
