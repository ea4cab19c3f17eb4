/**
 * The statistics of `petload compare`, computed from HDR bucket counts (buckets.ts): exact counts, with the
 * values of one bucket (0.1 % wide) taken as equal, which is what the histograms can tell apart.
 *
 * - Mann-Whitney U (Wilcoxon rank-sum), normal approximation with tie correction and continuity correction,
 *   two-sided p-value; its effect size is the probability of superiority A = P(current > baseline) + ½ P(tie)
 *   (Vargha and Delaney's A: 0.5 = no shift, 1 = every current sample slower than every baseline one).
 * - Two-sample Kolmogorov-Smirnov: the largest gap D between the two empirical distribution functions, with the
 *   asymptotic p-value (Stephens' small-sample correction), reported as a second view of the same question.
 * - The exceedance test of a percentile: how many current values lie above the baseline's value at that
 *   percentile, against the exact distribution-free law of that count (Gumbel and von Schelling's exceedances),
 *   which judges a p99 by the tail it is about, and stays exact for a handful of requests.
 * - Percentiles with HdrHistogram's own rule, so that they equal the report's summaries.
 */
import type { Bucket, Buckets } from './buckets.js';

/** The complementary error function, fractional error below 1.2e-7 everywhere (Numerical Recipes' erfcc). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -z * z -
    1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const r = t * Math.exp(poly);
  return x >= 0 ? r : 2 - r;
}

/** P(Z > z) for a standard normal Z, accurate far into the tail. */
export function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

export interface MannWhitney {
  n1: number;
  n2: number;
  /** U of the current sample: pairs (baseline, current) with current slower, ties counting half. */
  u: number;
  /** U / (n1 n2): P(current > baseline) + ½ P(tie); 0.5 when neither is slower. */
  superiority: number;
  /** Standardised U, tie- and continuity-corrected; positive when the current sample is slower. */
  z: number;
  /** Two-sided p-value (1 when either sample is empty or every value ties). */
  p: number;
}

/** Both samples' counts per bucket, by the bucket's lowest value, in ascending order. */
function merged(a: Buckets, b: Buckets): { lo: number; ca: number; cb: number }[] {
  const byLo = new Map<number, { lo: number; ca: number; cb: number }>();
  const add = (list: readonly Bucket[], side: 'ca' | 'cb') => {
    for (const k of list) {
      const row = byLo.get(k.lo) ?? { lo: k.lo, ca: 0, cb: 0 };
      row[side] += k.count;
      byLo.set(k.lo, row);
    }
  };
  add(a.buckets, 'ca');
  add(b.buckets, 'cb');
  return [...byLo.values()].sort((x, y) => x.lo - y.lo);
}

/** Mann-Whitney U of `current` against `baseline`. */
export function mannWhitney(baseline: Buckets, current: Buckets): MannWhitney {
  const n1 = baseline.total;
  const n2 = current.total;
  const none = { n1, n2, u: (n1 * n2) / 2, superiority: 0.5, z: 0, p: 1 };
  if (n1 === 0 || n2 === 0) return none;
  let below = 0;
  let u = 0;
  let ties = 0;
  for (const { ca, cb } of merged(baseline, current)) {
    u += cb * (below + ca / 2);
    below += ca;
    const t = ca + cb;
    ties += t * t * t - t;
  }
  const n = n1 + n2;
  const variance = ((n1 * n2) / 12) * (n + 1 - ties / (n * (n - 1)));
  if (!(variance > 0)) return none;
  const d = u - (n1 * n2) / 2;
  const z = (Math.sign(d) * Math.max(0, Math.abs(d) - 0.5)) / Math.sqrt(variance);
  return { n1, n2, u, superiority: u / (n1 * n2), z, p: Math.min(1, 2 * normalSf(Math.abs(z))) };
}

export interface KolmogorovSmirnov {
  /** The largest gap between the two distribution functions, 0..1. */
  d: number;
  /** Asymptotic two-sided p-value. */
  p: number;
}

/** Q_KS(λ) = 2 Σ (-1)^(j-1) exp(-2 j² λ²), the Kolmogorov distribution's upper tail. */
function kolmogorovQ(lambda: number): number {
  if (lambda < 0.2) return 1;
  let sum = 0;
  for (let j = 1; j <= 100; j++) {
    const term = 2 * (j % 2 === 1 ? 1 : -1) * Math.exp(-2 * j * j * lambda * lambda);
    sum += term;
    if (Math.abs(term) < 1e-12 * Math.max(sum, 1e-300)) break;
  }
  return Math.min(1, Math.max(0, sum));
}

/** Two-sample Kolmogorov-Smirnov of `current` against `baseline`. */
export function kolmogorovSmirnov(baseline: Buckets, current: Buckets): KolmogorovSmirnov {
  const n1 = baseline.total;
  const n2 = current.total;
  if (n1 === 0 || n2 === 0) return { d: 0, p: 1 };
  let fa = 0;
  let fb = 0;
  let d = 0;
  for (const { ca, cb } of merged(baseline, current)) {
    fa += ca / n1;
    fb += cb / n2;
    d = Math.max(d, Math.abs(fa - fb));
  }
  const en = Math.sqrt((n1 * n2) / (n1 + n2));
  return { d, p: kolmogorovQ((en + 0.12 + 0.11 / en) * d) };
}

/**
 * The value (µs, highest equivalent of its bucket) at percentile `p`, by HdrHistogram's rule: the smallest
 * bucket whose cumulative count reaches ceil(p/100 n), at least 1. 0 for an empty histogram.
 */
export function percentileOf(h: Buckets, p: number): number {
  if (h.total === 0) return 0;
  const fp = (Math.min(p, 100) / 100) * h.total;
  // As HdrHistogram does: a count one ulp above a whole number is that number.
  const ulp = fp === 0 ? 0 : 2 ** (Math.floor(Math.log2(fp)) - 52);
  const rank = Math.max(1, Math.ceil(fp - ulp));
  let seen = 0;
  for (const b of h.buckets) {
    seen += b.count;
    if (seen >= rank) return p === 0 ? b.lo : b.hi;
  }
  return h.buckets[h.buckets.length - 1]!.hi;
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7; relative error about 1e-15). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let a = LANCZOS[0]!;
  const t = y + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

/** ln C(n, k). */
export function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return Number.NEGATIVE_INFINITY;
  if (k === 0 || k === n) return 0;
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

export interface Exceedance {
  /** The baseline's value at the percentile (µs, highest equivalent of its bucket). */
  thresholdMicros: number;
  /** Baseline values at or below it: the threshold is the baseline's `rank`-th smallest value. */
  rank: number;
  /** Current values above it, and how many of them one distribution would give on average. */
  above: number;
  expectedAbove: number;
  n1: number;
  n2: number;
  /** One-sided p-value: P(at least `above` current values exceed it) if both runs came from one distribution. */
  p: number;
}

/**
 * The exceedance (placement) test of a percentile: how many current values lie above the baseline's value at
 * `percentile`, against the exact distribution-free law of that count when both samples come from one continuous
 * distribution: for the baseline's r-th smallest of m values and n current values,
 * P(K = k) = C(r - 1 + n - k, n - k) C(m - r + k, k) / C(m + n, n). Values in the threshold's own bucket count as
 * not above it, and r counts every baseline value of that bucket, which only makes the test more cautious.
 */
export function exceedanceTest(baseline: Buckets, current: Buckets, percentile: number): Exceedance {
  const m = baseline.total;
  const n = current.total;
  const thresholdMicros = percentileOf(baseline, percentile);
  const none = { thresholdMicros, rank: m, above: 0, expectedAbove: 0, n1: m, n2: n, p: 1 };
  if (m === 0 || n === 0) return none;
  const countAtOrBelow = (h: Buckets) => h.buckets.reduce((s, b) => (b.lo <= thresholdMicros ? s + b.count : s), 0);
  const r = countAtOrBelow(baseline);
  const k = n - countAtOrBelow(current);
  const expectedAbove = (n * (m - r + 1)) / (m + 1);
  const logTotal = logChoose(m + n, n);
  // log P(K = j), summed from the observed count up (log-sum-exp, so that a p-value of 1e-200 still adds up).
  const terms: number[] = [];
  for (let j = k; j <= n; j++) terms.push(logChoose(r - 1 + n - j, n - j) + logChoose(m - r + j, j) - logTotal);
  const top = terms.reduce((a, t) => Math.max(a, t), Number.NEGATIVE_INFINITY);
  const p = top === Number.NEGATIVE_INFINITY ? 0 : Math.exp(top) * terms.reduce((s, t) => s + Math.exp(t - top), 0);
  return { thresholdMicros, rank: r, above: k, expectedAbove, n1: m, n2: n, p: Math.min(1, p) };
}

/**
 * P(current > baseline + margin) + ½ P(current = baseline + margin) over all (baseline, current) pairs: the
 * probability of superiority by a margin (microseconds). With margin 0 it is Mann-Whitney's U / (m n). Values
 * are the buckets' lowest values; 0.5 when a side is empty.
 */
export function superiorityBy(baseline: Buckets, current: Buckets, marginMicros: number): number {
  const m = baseline.total;
  const n = current.total;
  if (m === 0 || n === 0) return 0.5;
  const values = baseline.buckets.map((b) => b.lo);
  const below: number[] = [];
  let seen = 0;
  for (const b of baseline.buckets) {
    below.push(seen);
    seen += b.count;
  }
  /** Index of the first baseline bucket whose value is >= x. */
  const lowerBound = (x: number): number => {
    let lo = 0;
    let hi = values.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let wins = 0;
  for (const c of current.buckets) {
    const x = c.lo - marginMicros;
    const i = lowerBound(x);
    const less = i < values.length ? below[i]! : m;
    const equal = i < values.length && values[i] === x ? baseline.buckets[i]!.count : 0;
    wins += c.count * (less + equal / 2);
  }
  return wins / (m * n);
}
