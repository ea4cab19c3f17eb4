import { describe, expect, it } from 'vitest';
import { decodeHistogram, percentile } from '../metrics/histogram.js';
import { sampleReport } from '../testing/sample-report.js';
import { bucketsOf, NO_BUCKETS } from './buckets.js';
import {
  erfc,
  exceedanceTest,
  kolmogorovSmirnov,
  logChoose,
  logGamma,
  mannWhitney,
  normalSf,
  percentileOf,
  superiorityBy,
} from './stats.js';
import { bucketed, encoded, logNormal } from '../testing/drift-histograms.js';

describe('the bucket counts of an encoded histogram', () => {
  it('holds every value in the bucket HdrHistogram puts it in, and adds up to the total', () => {
    const values = [1, 1, 7, 2047, 2048, 2049, 5000, 123_456, 10_000_000, 3_600_000_000];
    const b = bucketed(values);
    expect(b.total).toBe(values.length);
    expect(b.buckets.reduce((n, k) => n + k.count, 0)).toBe(values.length);
    for (const v of values) expect(b.buckets.some((k) => k.lo <= v && v <= k.hi)).toBe(true);
    // Below 2048 µs a bucket is one microsecond wide (3 significant digits).
    expect(b.buckets[0]).toEqual({ lo: 1, hi: 1, count: 2 });
    // From 4096 µs to 8191 µs, four microseconds wide.
    const at5000 = b.buckets.find((k) => k.lo <= 5000 && 5000 <= k.hi)!;
    expect([at5000.lo, at5000.hi]).toEqual([5000, 5003]);
  });

  it('gives the same percentiles as src/metrics/histogram.ts, on hand-built and real report histograms', () => {
    const checked: string[] = [];
    const compare = (b64: string, name: string) => {
      const h = decodeHistogram(b64);
      const b = bucketsOf(b64);
      for (const p of [0, 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100])
        expect(percentileOf(b, p) / 1000, `${name} p${p}`).toBeCloseTo(percentile(h, p), 9);
      checked.push(name);
    };
    compare(encoded(logNormal(20_000, 3000, 1.2, 7)), 'log-normal');
    for (const op of sampleReport().operations)
      for (const [name, b64] of Object.entries(op.histograms)) compare(b64, `${op.operation}.${name}`);
    expect(checked.length).toBeGreaterThan(5);
  });

  it('reads an empty histogram as no buckets', () => {
    expect(bucketsOf(encoded([]))).toEqual({ buckets: [], total: 0 });
    expect(percentileOf(NO_BUCKETS, 99)).toBe(0);
  });

  it('refuses what is not an encoded histogram, naming the problem', () => {
    expect(() => bucketsOf('bm90IGEgaGlzdG9ncmFt')).toThrow(/not an encoded histogram/);
    expect(() => bucketsOf('')).toThrow(/not an encoded histogram/);
  });
});

describe('the normal tail', () => {
  it('matches known values', () => {
    expect(normalSf(0)).toBeCloseTo(0.5, 7);
    expect(normalSf(1.959963985)).toBeCloseTo(0.025, 7);
    expect(normalSf(-1.959963985)).toBeCloseTo(0.975, 7);
    // Far in the tail the relative error stays small (values from scipy.stats.norm.sf).
    expect(normalSf(5) / 2.866515718791933e-7).toBeCloseTo(1, 5);
    expect(normalSf(10) / 7.61985302416047e-24).toBeCloseTo(1, 5);
    expect(erfc(0)).toBeCloseTo(1, 7);
  });
});

describe('Mann-Whitney U from bucket counts', () => {
  // Reference values: scipy.stats.mannwhitneyu(current, baseline, use_continuity=True, alternative='two-sided',
  // method='asymptotic'), which applies the same tie and continuity corrections.
  it.each([
    { baseline: [1, 2, 3, 4, 5], current: [6, 7, 8, 9, 10], u: 25, p: 0.012185780355344813 },
    { baseline: [1, 1, 2, 2, 3], current: [2, 3, 3, 4, 4], u: 22, p: 0.05241162867102868 },
    { baseline: [10, 20, 20, 30, 30, 30, 40], current: [10, 20, 30, 30, 40, 40, 40, 50], u: 38, p: 0.2561796261420456 },
  ])('matches scipy with ties: U=$u, p=$p', ({ baseline, current, u, p }) => {
    const r = mannWhitney(bucketed(baseline), bucketed(current));
    expect(r.u).toBe(u);
    expect(r.p).toBeCloseTo(p, 6);
    expect(r.superiority).toBeCloseTo(u / (baseline.length * current.length), 12);
  });

  it('finds nothing between identical histograms: p = 1, superiority 0.5', () => {
    const h = bucketed(logNormal(10_000, 2000, 0.6, 1));
    const r = mannWhitney(h, h);
    expect(r.p).toBeCloseTo(1, 9);
    expect(r.superiority).toBe(0.5);
    expect(r.z).toBe(0);
  });

  it('finds two samples of one distribution alike (p well above 0.01)', () => {
    const r = mannWhitney(bucketed(logNormal(5000, 2000, 0.6, 1)), bucketed(logNormal(5000, 2000, 0.6, 2)));
    expect(r.p).toBeGreaterThan(0.01);
    expect(Math.abs(r.superiority - 0.5)).toBeLessThan(0.02);
  });

  it('finds a clear shift: a tiny p, the direction, and the effect size', () => {
    const base = bucketed(logNormal(2000, 2000, 0.5, 3));
    const slower = bucketed(logNormal(2000, 3000, 0.5, 4));
    const up = mannWhitney(base, slower);
    expect(up.p).toBeLessThan(1e-50);
    expect(up.z).toBeGreaterThan(0);
    // For log-normals: A = Φ(ln(3000/2000) / (0.5 √2)) = Φ(0.573) ≈ 0.717.
    expect(up.superiority).toBeCloseTo(0.717, 1);
    const down = mannWhitney(slower, base);
    expect(down.z).toBeLessThan(0);
    expect(down.superiority).toBeCloseTo(1 - up.superiority, 12);
  });

  it('says nothing with an empty side or when every value ties', () => {
    expect(mannWhitney(NO_BUCKETS, bucketed([1, 2, 3])).p).toBe(1);
    expect(mannWhitney(bucketed([5, 5, 5]), bucketed([5, 5])).p).toBe(1);
  });
});

describe('Kolmogorov-Smirnov from bucket counts', () => {
  it('measures the largest gap between the distribution functions', () => {
    expect(kolmogorovSmirnov(bucketed([1, 2, 3]), bucketed([1, 2, 3]))).toEqual({ d: 0, p: 1 });
    const apart = kolmogorovSmirnov(bucketed([1, 2, 3, 4, 5]), bucketed([6, 7, 8, 9, 10]));
    expect(apart.d).toBeCloseTo(1, 12);
    // Q_KS((√2.5 + 0.12 + 0.11/√2.5) · 1), Stephens' correction: 0.0037814.
    expect(apart.p).toBeCloseTo(0.0037814, 6);
    expect(kolmogorovSmirnov(bucketed([1, 1, 2, 2, 3]), bucketed([2, 3, 3, 4, 4])).d).toBeCloseTo(0.6, 12);
  });

  it('tells a shift of a large sample, and not two samples of one distribution', () => {
    const a = bucketed(logNormal(5000, 2000, 0.6, 5));
    expect(kolmogorovSmirnov(a, bucketed(logNormal(5000, 2000, 0.6, 6))).p).toBeGreaterThan(0.01);
    expect(kolmogorovSmirnov(a, bucketed(logNormal(5000, 2600, 0.6, 6))).p).toBeLessThan(1e-10);
  });
});

describe('the exceedance test of a percentile', () => {
  /** Every way of splitting the pooled values into a baseline of m and a current of n, equally likely. */
  function bruteForce(baseline: number[], current: number[], percentile: number): number {
    const pooled = [...baseline, ...current];
    const m = baseline.length;
    const observed = exceedanceTest(bucketed(baseline), bucketed(current), percentile).above;
    let hits = 0;
    let total = 0;
    const pick = (start: number, chosen: number[]) => {
      if (chosen.length === m) {
        const b = chosen.map((i) => pooled[i]!);
        const c = pooled.filter((_, i) => !chosen.includes(i));
        total++;
        if (exceedanceTest(bucketed(b), bucketed(c), percentile).above >= observed) hits++;
        return;
      }
      for (let i = start; i < pooled.length; i++) pick(i + 1, [...chosen, i]);
    };
    pick(0, []);
    return hits / total;
  }

  it('has the exact law: 1/C(10,5) for five current values all above the baseline maximum', () => {
    const t = exceedanceTest(bucketed([1, 2, 3, 4, 5]), bucketed([6, 7, 8, 9, 10]), 100);
    expect(t).toMatchObject({ thresholdMicros: 5, rank: 5, above: 5, n1: 5, n2: 5 });
    expect(t.p).toBeCloseTo(1 / 252, 12);
    expect(t.expectedAbove).toBeCloseTo(5 / 6, 12);
    // The median: the 3rd smallest baseline value, exceeded by all five: C(7,5)/C(10,5) = 21/252.
    expect(exceedanceTest(bucketed([1, 2, 3, 4, 5]), bucketed([6, 7, 8, 9, 10]), 50).p).toBeCloseTo(21 / 252, 12);
  });

  it.each([
    { baseline: [3, 9, 4, 12, 7], current: [8, 13, 15, 2, 11, 14], percentile: 80 },
    { baseline: [5, 1, 9, 6], current: [10, 2, 8, 11, 12], percentile: 50 },
    { baseline: [1, 2, 3, 4, 5, 6], current: [7, 1, 8, 2], percentile: 99 },
  ])('agrees with every permutation of the pooled values (distinct values)', ({ baseline, current, percentile }) => {
    const t = exceedanceTest(bucketed(baseline), bucketed(current), percentile);
    expect(t.p).toBeCloseTo(bruteForce(baseline, current, percentile), 12);
  });

  it('finds nothing between identical histograms, and a tail that grew in 2 % of 5000 requests', () => {
    const base = logNormal(5000, 4000, 0.4, 11);
    const h = bucketed(base);
    expect(exceedanceTest(h, h, 99).p).toBeGreaterThan(0.5);
    const tail = bucketed(base.map((v, i) => (i % 50 === 0 ? v + 400_000 : v)));
    const t = exceedanceTest(h, tail, 99);
    expect(t.above).toBeGreaterThan(140);
    expect(t.expectedAbove).toBeCloseTo(50, 0);
    expect(t.p).toBeLessThan(1e-10);
  });

  it('computes ln Γ and ln C(n, k) accurately', () => {
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 12);
    expect(logGamma(0.5)).toBeCloseTo(0.5723649429247001, 12);
    expect(logChoose(10, 5)).toBeCloseTo(Math.log(252), 12);
    expect(logChoose(5, 7)).toBe(Number.NEGATIVE_INFINITY);
    // ln C(2e6, 1e6), by Stirling: 2e6 ln 2 - ½ ln(π 1e6).
    expect(logChoose(2e6, 1e6)).toBeCloseTo(2e6 * Math.log(2) - 0.5 * Math.log(Math.PI * 1e6), 3);
  });
});

describe('superiority by a margin', () => {
  it('is Mann-Whitney A with no margin, and counts only the pairs apart by more than the margin', () => {
    const base = bucketed([1, 2, 3, 4, 5]);
    const cur = bucketed([6, 7, 8, 9, 10]);
    expect(superiorityBy(base, cur, 0)).toBe(mannWhitney(base, cur).superiority);
    const withTies = [bucketed([1, 1, 2, 2, 3]), bucketed([2, 3, 3, 4, 4])] as const;
    expect(superiorityBy(...withTies, 0)).toBeCloseTo(mannWhitney(...withTies).superiority, 12);
    // Differences c - b of 6..10 minus 1..5 range over 1..9; by more than 3: brute force.
    let wins = 0;
    for (const b of [1, 2, 3, 4, 5]) for (const c of [6, 7, 8, 9, 10]) wins += c - b > 3 ? 1 : c - b === 3 ? 0.5 : 0;
    expect(superiorityBy(base, cur, 3)).toBeCloseTo(wins / 25, 12);
    expect(superiorityBy(base, cur, 100)).toBe(0);
  });

  it('tells a shift of every request by 200 ms from one of a few milliseconds', () => {
    const base = logNormal(2000, 2000, 0.5, 41);
    const b = bucketed(base);
    expect(superiorityBy(b, bucketed(base.map((v) => v + 200_000)), 5000)).toBe(1);
    // Three milliseconds more on every request: Mann-Whitney's A is 1, by a margin of 5 ms it is 0.
    const few = bucketed(base.map((v) => v + 3000));
    expect(mannWhitney(b, few).superiority).toBeGreaterThan(0.9);
    expect(superiorityBy(b, few, 5000)).toBeLessThan(0.15);
  });
});
