import { describe, expect, it } from 'vitest';
import { maxOf, mean, median, quantile, scheduleDeviation } from './stats.js';

describe('bench statistics', () => {
  it('takes quantiles by nearest rank, medians between the middle two', () => {
    const xs = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(quantile(xs, 0.5)).toBe(5);
    expect(quantile(xs, 0.99)).toBe(10);
    expect(quantile(xs, 0)).toBe(1);
    expect(median(xs)).toBe(5.5);
    expect(median([3, 1, 2])).toBe(2);
    expect(mean([1, 2, 3])).toBe(2);
    expect(maxOf([1, 7, 3])).toBe(7);
    expect(median([])).toBeNaN();
  });

  it('measures arrivals against an evenly spaced schedule, whatever its start', () => {
    const even = Array.from({ length: 100 }, (_, i) => 5000 + i);
    expect(scheduleDeviation(even, 1000)).toEqual({ p50: 0, p99: 0, max: 0 });
    // Bursts: the whole second's budget in its first 100 ms, as a per-second budget spends it.
    const bursts = Array.from({ length: 2000 }, (_, i) => Math.floor(i / 1000) * 1000 + (i % 1000) * 0.1);
    expect(scheduleDeviation(bursts, 1000).p99).toBeGreaterThan(400);
  });
});
