import { describe, expect, it } from 'vitest';
import { EnvelopeSampler, StrideSampler } from './downsample.js';

describe('StrideSampler', () => {
  it('keeps everything up to its cap', () => {
    const s = new StrideSampler(10);
    for (let i = 0; i < 10; i++) s.push(i, i % 3 === 0 ? null : i);
    expect(s.samples()).toEqual(Array.from({ length: 10 }, (_, i) => [i, i % 3 === 0 ? null : i]));
  });

  it('stays within its cap with evenly spaced samples from the start', () => {
    for (const n of [11, 100, 1000, 12_345]) {
      const s = new StrideSampler(10);
      for (let i = 0; i < n; i++) s.push(i, i * 2);
      const kept = s.samples();
      expect(kept.length).toBeLessThanOrEqual(10);
      expect(kept.length).toBeGreaterThanOrEqual(5);
      const stride = kept[1]![0] - kept[0]![0];
      expect(kept.map(([t]) => t)).toEqual(kept.map((_, i) => i * stride));
      expect(kept.every(([t, v]) => v === t * 2)).toBe(true);
      // The last kept sample is within one stride of the end: the whole series is covered.
      expect(n - 1 - kept[kept.length - 1]![0]).toBeLessThan(stride * 2);
    }
  });

  it('refuses a cap below 2', () => {
    expect(() => new StrideSampler(1)).toThrow('sampler cap must be at least 2, got 1');
  });
});

describe('EnvelopeSampler', () => {
  it('keeps a short series as it came', () => {
    const s = new EnvelopeSampler(500);
    const series: [number, number, number][] = [
      [0, 59, 60],
      [1, 58, 60],
      [2, 60, 60],
    ];
    for (const [t, v, x] of series) s.push(t, v, x);
    expect(s.samples()).toEqual(series);
  });

  it('keeps the lows and highs of a long sawtooth within its cap, in time order', () => {
    const s = new EnvelopeSampler(20);
    let t = 0;
    for (let window = 0; window < 200; window++)
      for (let remaining = 60; remaining >= 0; remaining--) s.push(t++, remaining, 60);
    const out = s.samples();
    expect(out.length).toBeLessThanOrEqual(20);
    expect(out.length).toBeGreaterThanOrEqual(10);
    expect(out.some(([, v]) => v === 0)).toBe(true);
    expect(out.some(([, v]) => v === 60)).toBe(true);
    expect(out.every(([, , limit]) => limit === 60)).toBe(true);
    for (let i = 1; i < out.length; i++) expect(out[i]![0]).toBeGreaterThan(out[i - 1]![0]);
    expect(out[0]![0]).toBe(0);
  });

  it('keeps a single dip to zero however long the series', () => {
    const s = new EnvelopeSampler(8);
    for (let t = 0; t < 100_000; t++) s.push(t, t === 54_321 ? 0 : 500, 1000);
    expect(s.samples()).toContainEqual([54_321, 0, 1000]);
    expect(s.samples().length).toBeLessThanOrEqual(8);
  });

  it('refuses a cap below 4', () => {
    expect(() => new EnvelopeSampler(3)).toThrow('sampler cap must be at least 4, got 3');
  });
});
