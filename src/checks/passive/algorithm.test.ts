import { describe, expect, it } from 'vitest';
import { PLANS } from '../../api/plans.js';
import { Ledger } from '../ledger.js';
import { outcomeOf } from '../../testing/exchange-builder.js';
import { type SampleStep, sequentialSamples } from '../../testing/rate-limit-samples.js';
import { createAlgorithmReader } from './algorithm.js';
import { SentLog } from './sent-log.js';
import { type LogAnswer, movingWindow, pairedTimes } from '../../testing/moving-window.js';

const T0 = 1_900_000_020_000; // a target-clock instant on a whole minute
const FREE = PLANS.free;

/** One key's answers, each sent after the one before completed: [seconds after T0, Remaining, Reset (s), accepted]. */
function read(steps: readonly SampleStep[], limit = 60) {
  const reader = createAlgorithmReader();
  for (const s of sequentialSamples(steps, limit, T0)) reader.see('free', 'free#1', FREE, s);
  const ledger = new Ledger();
  reader.record(ledger);
  return {
    shape: reader.shapeOf('free'),
    info: (outcomeOf(ledger, 'ratelimit.algorithm')?.info ?? {}) as Record<string, string>,
  };
}

const R = T0 / 1000;

/** One key's answers, each sent at its time and answered 20 ms later, with petload's log of the key's requests. */
function readWithLog(answers: readonly LogAnswer[], limit = 60) {
  const log = new SentLog(60_000);
  const reader = createAlgorithmReader(() => log);
  for (const a of answers) {
    const sent = a.at * 1000;
    const accepted = a.status === 200;
    const serverMs = T0 + Math.floor(a.at) * 1000; // Date, in whole seconds
    const sample = { limit, remaining: a.remaining, reset: a.reset, serverMs, sent, done: sent + 20, accepted };
    reader.see('free', 'free#1', FREE, { ...sample, overlapped: false });
    log.add(sent, sent + 20, accepted ? 'surely' : 'maybe');
  }
  const ledger = new Ledger();
  reader.record(ledger);
  return {
    shape: reader.shapeOf('free'),
    info: (outcomeOf(ledger, 'ratelimit.algorithm')?.info ?? {}) as Record<string, string>,
  };
}

describe('ratelimit.algorithm', () => {
  it("names a fixed window from the key's first request: Reset holds, then a new one a window later", () => {
    const { shape, info } = read([
      [0, 59, R + 60],
      [1, 58, R + 60],
      [2, 57, R + 60],
      [61, 59, R + 121],
      [62, 58, R + 121],
    ]);
    expect(shape).toBe('fixed-window');
    expect(info.shape).toBe("fixed window from a key's first request");
  });

  it('names a fixed window aligned to the clock when every window ends on a whole minute', () => {
    const end = R + 60; // T0 is on a whole minute
    const { info } = read([
      [0, 59, end],
      [1, 58, end],
      [61, 59, end + 60],
      [62, 58, end + 60],
    ]);
    expect(info.shape).toBe('fixed window aligned to the clock');
  });

  it('names a token bucket from Remaining rising before a minute, under a Reset that drifts, with its refill', () => {
    // Free: 1 token a second. Reset = when full again: what is missing, in seconds, from now.
    // Ten requests at once leave 50, full again in 10 s; 3 s later 3 tokens have come back: 52 after the next one.
    const steps: [number, number, number][] = [];
    for (let i = 1; i <= 10; i++) steps.push([0, 60 - i, R + i]);
    const { shape, info } = read([...steps, [3, 52, R + 3 + 8]]);
    expect(shape).toBe('token-bucket');
    expect(info.shape).toMatch(/^token bucket/);
    expect(info.burst).toBe('60');
  });

  it('names a token bucket from its Reset alone: what is missing over the time to full is steady', () => {
    const steps: [number, number, number][] = [];
    for (let i = 0; i < 30; i++) steps.push([0, 59 - i, R + i + 1]);
    const { shape, info } = read(steps);
    expect(shape).toBe('token-bucket');
    expect(Number(info.refillPerSecond)).toBeCloseTo(1, 0);
  });

  it('names a sliding window: Reset a window after each answer, Remaining never rising within a minute', () => {
    const { shape } = read([
      [0, 59, R + 60],
      [3, 58, R + 63],
      [6, 57, R + 66],
      [9, 56, R + 69],
    ]);
    expect(shape).toBe('sliding-window');
  });

  it("names a sliding log whose Remaining rises by exactly the key's own requests that slid out (Reset: the oldest's end)", () => {
    // Python's `limits` moving window; pairs every 2.5 s for 100 s. From Reset alone it looks like a fixed window.
    const answers = movingWindow(pairedTimes(2.5, 0.2, 100), 60, R);
    expect(read(answers.map((a) => [a.at, a.remaining, a.reset] as const)).shape).toBe('fixed-window');
    const { shape, info } = readWithLog(answers);
    expect(shape).toBe('sliding-window');
    expect(info.shape).toBe('sliding window (a log of the trailing minute)');
    expect(info.evidence).toMatch(
      /, (\d+) with Remaining up by exactly the key's own requests that slid out .*\(0 that/,
    );
  });

  it('names a sparse sliding log, which looked like a fixed window from the first request until requests slid out', () => {
    const answers = movingWindow(pairedTimes(5, 1, 100), 60, R);
    expect(read(answers.map((a) => [a.at, a.remaining, a.reset] as const)).shape).toBe('fixed-window');
    expect(readWithLog(answers).shape).toBe('sliding-window');
  });

  it('still names a fixed window, whose Remaining starts over where a log would have let a few requests slide out', () => {
    let counted = 0;
    const fixed: LogAnswer[] = pairedTimes(2.5, 0.2, 100).map((at) => {
      counted = at >= 60 && at < 60.1 ? 1 : counted + 1;
      return { at, status: 200, remaining: 60 - counted, reset: R + (at >= 60 ? 120 : 60) };
    });
    expect(readWithLog(fixed).shape).toBe('fixed-window');
  });

  it('still names a fixed window held at its limit, its refusals following refusals while requests of a minute ago go', () => {
    // A request every 0.5 s for 150 s: each window accepts its 60 in 30 s, then refuses until its end.
    let start = 0;
    let counted = 0;
    const answers: LogAnswer[] = [];
    for (let at = 0; at < 150; at += 0.5) {
      if (at >= start + 60) [start, counted] = [at, 0];
      const accepted = counted < 60;
      if (accepted) counted++;
      answers.push({ at, status: accepted ? 200 : 429, remaining: 60 - counted, reset: R + start + 60 });
    }
    expect(readWithLog(answers).shape).toBe('fixed-window');
    // A log held at its limit by the same requests lets one in as each one of a minute ago slides out: a log.
    const times = answers.map((a) => a.at);
    expect(readWithLog(movingWindow(times, 60, R)).shape).toBe('sliding-window');
  });

  it("does not take a rise under a fixed Reset for a refill: that is a window's defect", () => {
    const { shape } = read([
      [0, 59, R + 60],
      [1, 58, R + 60],
      [2, 59, R + 60],
    ]);
    expect(shape).not.toBe('token-bucket');
  });

  it("says unknown when one key's answers held one Reset for a moment only: a fixed window and a sliding one look alike then", () => {
    expect(
      read([
        [0, 59, R + 60],
        [0.5, 58, R + 60],
        [1, 57, R + 60],
      ]).shape,
    ).toBe('unknown');
    expect(
      read([
        [0, 59, R + 60],
        [5, 58, R + 60],
        [11, 57, R + 60],
      ]).shape,
    ).toBe('fixed-window');
  });

  it('says unknown with no two sequential answers, and skips', () => {
    const reader = createAlgorithmReader();
    reader.see('free', 'free#1', FREE, {
      limit: 60,
      remaining: 59,
      reset: R + 60,
      serverMs: T0,
      sent: 0,
      done: 5,
      accepted: true,
      overlapped: false,
    });
    const ledger = new Ledger();
    reader.record(ledger);
    expect(reader.shapeOf('free')).toBe('unknown');
    expect(outcomeOf(ledger, 'ratelimit.algorithm')?.skipped).toBe(1);
  });
});
