import { describe, expect, it } from 'vitest';
import { buildExchange, FIXED_NOW, httpDate } from '../testing/exchange-builder.js';
import { answerOf, banDuration, describeAnswer, nextPoll, sameAnswer } from './ban-measure.js';

/** An answer handled by the target between run-clock ms `sent` and `headers`, complete 2 ms later; Date optional. */
function at(
  sent: number,
  headers: number,
  date: number | null,
  status = 429,
  code: string | null = 'key_banned',
  retryAfter?: number,
) {
  return buildExchange({
    status,
    ...(code === null ? {} : { json: { code, message: 'm', status } }),
    timing: { sent, headers, done: headers + 2 },
    localTime: FIXED_NOW + headers + 2,
    headers: {
      date: date === null ? undefined : httpDate(date),
      ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }),
    },
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
    // 119.9 s ± 0.11, the uncertainty rounded up: 120.01 s lies within it.
    expect(d).toEqual({
      seconds: 119.9,
      uncertaintySeconds: 0.2,
      clock: 'run clock, agreeing with the target Date headers',
    });
  });

  it('by the Date headers alone when the run clock runs at another rate than the target', () => {
    // 2 s of run clock, but the target's Date says 120 s went by (a target on a clock 60 times faster).
    const d = banDuration(
      at(0, 10, FIXED_NOW),
      at(1_950, 1_960, FIXED_NOW + 119_000),
      at(2_000, 2_010, FIXED_NOW + 120_000),
    );
    // Still banned at 119 s (floored: from 118 s on), unbanned at 120 s (by 121 s).
    expect(d).toEqual({ seconds: 119.5, uncertaintySeconds: 1.5, clock: 'target Date headers' });
  });

  it("by the Date headers: the range runs from the last banned answer's Date, in the target's seconds", () => {
    // The last banned answer 12 s of the target's clock before the first unbanned one: the ban ended in between.
    const d = banDuration(
      at(0, 10, FIXED_NOW),
      at(1_800, 1_810, FIXED_NOW + 108_000),
      at(2_000, 2_010, FIXED_NOW + 120_000),
    );
    expect(d).toEqual({ seconds: 114, uncertaintySeconds: 7, clock: 'target Date headers' });
  });

  it('when no poll came before the end (a starved machine held it back): half the ban, honestly', () => {
    // The ban's own answer is the last banned one; the first poll came 20 ms after the 120 s ban ended.
    const d = banDuration(at(0, 10, FIXED_NOW), at(0, 10, FIXED_NOW), at(120_020, 120_030, FIXED_NOW + 120_000));
    expect(d).toEqual({
      seconds: 60,
      uncertaintySeconds: 60.1,
      clock: 'run clock, agreeing with the target Date headers',
    });
  });

  it('by the run clock when an answer has no Date', () => {
    const d = banDuration(at(0, 10, null), at(59_000, 59_010, null), at(60_000, 60_010, null));
    // Between 58.99 s and 60.01 s: 59.5 s ± 0.51, rounded up.
    expect(d).toEqual({ seconds: 59.5, uncertaintySeconds: 0.6, clock: 'run clock (no Date header)' });
  });
});

describe('nextPoll', () => {
  const blind = 1000;
  // A ban's answer (done at run-clock FIXED_NOW + 12) with Retry-After 300: the ban ends after 299 s, by 300 s.
  const banAnswer = at(0, 10, FIXED_NOW, 429, 'key_banned', 300);
  const wait = (ex: ReturnType<typeof at>, scale: number) => nextPoll(ex, blind, scale) - ex.localTime;

  it('at real time: half a second before the earliest end', () => {
    expect(wait(banAnswer, 1)).toBe(299_000 - 500);
  });

  it('on a scaled clock: half a real second before the earliest end, a stall a busy machine can take', () => {
    // 20 times faster: 10 s of the clock; a first poll held back 70 real ms (1.4 s) still comes inside the ban.
    expect(wait(banAnswer, 20)).toBe(299_000 - 10_000);
    expect(wait(banAnswer, 60)).toBe(299_000 - 30_000);
  });

  it('inside the margin: halves the way left to the earliest end, then polls every 100 ms', () => {
    expect(wait(at(0, 10, FIXED_NOW, 429, 'key_banned', 9), 20)).toBe(4_000);
    expect(wait(at(0, 10, FIXED_NOW, 429, 'key_banned', 2), 20)).toBe(500);
    expect(wait(at(0, 10, FIXED_NOW, 429, 'key_banned', 1), 20)).toBe(100);
  });

  it('without a Retry-After, or without an answer: the blind gap', () => {
    expect(wait(at(0, 10, FIXED_NOW), 20)).toBe(blind);
    expect(wait(at(0, 10, null, null as unknown as number, null, 300), 20)).toBe(blind);
  });
});
