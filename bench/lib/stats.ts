/** Small order statistics over plain arrays of samples (the bench's, never the suite's hot path). */

/** The value at quantile `q` (0..1) by nearest rank of the sorted samples; NaN for none. */
export function quantile(samples: ArrayLike<number>, q: number): number {
  const n = samples.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
  return sorted[rank]!;
}

export function median(samples: ArrayLike<number>): number {
  const n = samples.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  return n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}

export function maxOf(samples: ArrayLike<number>): number {
  let m = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < samples.length; i++) m = Math.max(m, samples[i]!);
  return samples.length === 0 ? Number.NaN : m;
}

export function mean(samples: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < samples.length; i++) s += samples[i]!;
  return samples.length === 0 ? Number.NaN : s / samples.length;
}

/** p50, p99 and max of a set of samples. */
export function spread(samples: ArrayLike<number>): { p50: number; p99: number; max: number } {
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), max: maxOf(samples) };
}

/** |arrival − schedule| (ms) of each arrival against `perSecond`, the schedule anchored at the median offset. */
export function scheduleDeviation(
  arrivals: readonly number[],
  perSecond: number,
): { p50: number; p99: number; max: number } {
  const sorted = [...arrivals].sort((a, b) => a - b);
  const gap = 1000 / perSecond;
  const offsets = sorted.map((t, i) => t - i * gap);
  const anchor = median(offsets);
  return spread(offsets.map((x) => Math.abs(x - anchor)));
}
