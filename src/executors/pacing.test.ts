import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClock } from '../core/clock.js';
import { cappedIntegral, constantSchedule, exceeds, pace, rampingSchedule, sleepUntil } from './pacing.js';

const DAY_MS = 86_400_000;

describe('constantSchedule', () => {
  it('spaces arrivals evenly from the start, within the second too', () => {
    const s = constantSchedule(10, 3000);
    expect(s.count).toBe(30);
    expect(Array.from({ length: 12 }, (_, i) => s.at(i))).toEqual([
      0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100,
    ]);
  });

  it('goes down to 1000/day: one arrival every 86.4 s of run clock', () => {
    const s = constantSchedule(1000 / 86_400, DAY_MS);
    expect(s.count).toBe(1000);
    expect(s.at(1)).toBeCloseTo(86_400, 6);
    expect(s.at(999)).toBeCloseTo(999 * 86_400, 3);
  });

  it('computes every intended time from the start: no drift after a million arrivals', () => {
    const s = constantSchedule(1000, 1_000_000);
    expect(s.count).toBe(1_000_000);
    expect(s.at(999_999)).toBe(999_999);
    const odd = constantSchedule(3, 1_000_000);
    expect(odd.at(2_999_999)).toBeCloseTo(999_999_666.667, 3);
  });

  it('counts the arrivals due before the end, none at the end itself', () => {
    expect(constantSchedule((95 * 60) / 100 / 60, 180_000).count).toBe(171);
    expect(constantSchedule(1.5, 1000).count).toBe(2);
    expect(constantSchedule(2, 1000).count).toBe(2);
  });
});

/** Arrivals due by `t` under linear stages from 0, computed independently of the schedule. */
function arrivalsBy(stages: { perSecond: number; durationMs: number }[], t: number): number {
  let n = 0;
  let start = 0;
  let r0 = 0;
  for (const { perSecond, durationMs } of stages) {
    const r1 = perSecond / 1000;
    const d = Math.min(Math.max(t - start, 0), durationMs);
    n += r0 * d + ((r1 - r0) * d * d) / (2 * durationMs);
    start += durationMs;
    r0 = r1;
  }
  return n;
}

describe('rampingSchedule', () => {
  it('ramps linearly from 0, holds a repeated rate, ramps down', () => {
    const stages = [
      { perSecond: 10, durationMs: 10_000 },
      { perSecond: 10, durationMs: 10_000 },
      { perSecond: 0.5, durationMs: 20_000 },
    ];
    const s = rampingSchedule(stages);
    expect(s.count).toBe(50 + 100 + 105);
    expect(s.durationMs).toBe(40_000);
    expect(s.rateAt(5000)).toBeCloseTo(0.005, 12);
    expect(s.rateAt(15_000)).toBeCloseTo(0.01, 12);
    expect(s.at(50)).toBeCloseTo(10_000, 6);
    expect(s.at(60)).toBeCloseTo(11_000, 6);
    expect(s.at(150)).toBeCloseTo(20_000, 6);
  });

  it("puts arrival i where the rate's integral reaches i, in order, for any stages", () => {
    const stage = fc.record({
      perSecond: fc.double({ min: 0.01, max: 500, noNaN: true }),
      durationMs: fc.integer({ min: 100, max: 100_000 }),
    });
    fc.assert(
      fc.property(fc.array(stage, { minLength: 1, maxLength: 5 }), (stages) => {
        const s = rampingSchedule(stages);
        let last = 0;
        for (let i = 0; i < s.count; i += Math.max(1, Math.floor(s.count / 200))) {
          const t = s.at(i);
          expect(t).toBeGreaterThanOrEqual(last);
          expect(t).toBeLessThanOrEqual(s.durationMs);
          expect(arrivalsBy(stages, t)).toBeCloseTo(i, 4);
          last = t;
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('what the limit lets through', () => {
  it('integrates min(rate, limit) over the elapsed time', () => {
    const flat = constantSchedule(1.5, 240_000);
    expect(cappedIntegral(flat, 1 / 1000, 240_000)).toBeCloseTo(240, 6);
    expect(cappedIntegral(flat, 2 / 1000, 120_000)).toBeCloseTo(180, 6);
    expect(exceeds(flat, 1 / 1000, 240_000)).toBe(true);
    expect(exceeds(flat, 2 / 1000, 240_000)).toBe(false);
    // 0 -> 2/s over 100 s against a limit of 1/s: 25 under the ramp below the limit, then 50 at the limit.
    const ramp = rampingSchedule([{ perSecond: 2, durationMs: 100_000 }]);
    expect(cappedIntegral(ramp, 1 / 1000, 100_000)).toBeCloseTo(75, 2);
    expect(exceeds(ramp, 1 / 1000, 40_000)).toBe(false);
  });
});

describe('pace and sleepUntil', () => {
  it('calls arrive once per arrival, in order, with its intended time, never before it', async () => {
    const clock = createClock(1000);
    const schedule = constantSchedule(100, 1000);
    const start = clock.monotonic();
    const seen: { intended: number; at: number }[] = [];
    await pace(clock, schedule, start, new AbortController().signal, (intended) => {
      seen.push({ intended, at: clock.monotonic() });
      return true;
    });
    expect(seen.map((s) => s.intended)).toEqual(Array.from({ length: 100 }, (_, i) => start + i * 10));
    expect(seen.every((s) => s.at >= s.intended)).toBe(true);
  });

  it('stops when arrive says so, and at the signal', async () => {
    const clock = createClock(1000);
    let calls = 0;
    await pace(clock, constantSchedule(100, 1000), clock.monotonic(), new AbortController().signal, () => ++calls < 3);
    expect(calls).toBe(3);
    const stop = new AbortController();
    stop.abort();
    await sleepUntil(clock, clock.monotonic() + 3_600_000, stop.signal);
    calls = 0;
    await pace(clock, constantSchedule(100, 1000), clock.monotonic() + 1000, stop.signal, () => ++calls > 0);
    expect(calls).toBe(0);
  });
});
