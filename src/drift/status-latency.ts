/**
 * Latency per status code of an operation: a slowdown of every answer of one code is a regression of the operation,
 * whatever the other codes of its class did (a handler that became slower answers 201 and 400 later, while the
 * 401s and 429s of the middleware before it come back as fast). Judged only where both runs answered the code at
 * least minSamples times and report.json keeps its histogram (docs/compare.md, "Per status code").
 */
import { decodeHistogram, percentile } from '../metrics/histogram.js';
import type { OperationMetricsT } from '../report/schema.js';
import { type Buckets, bucketsOf } from './buckets.js';
import type { CompareOptions, StatusChange, Threshold } from './schema.js';
import { mannWhitney, superiorityBy } from './stats.js';
import { formatChangeMs, formatMs, formatP, formatRatio } from './words.js';

/** Answers of one kind (a status class or code) on both sides, as buckets. */
export interface Group {
  status: string;
  bb: Buckets;
  cb: Buckets;
}

/**
 * Each status code answered at least minSamples times on both sides, with its buckets: report.json keeps a
 * histogram per code (`201`, `400`) besides the classes; a report of an older version only for the codes that are
 * a class of their own (`429`, `error`).
 */
export function statusGroupsOf(bo: OperationMetricsT, co: OperationMetricsT, options: CompareOptions): Group[] {
  if (options.histogram !== 'all') return [];
  const out: Group[] = [];
  for (const status of Object.keys(bo.statusCounts)) {
    const enough = (op: OperationMetricsT) => (op.statusCounts[status] ?? 0) >= options.minSamples;
    const b64b = bo.histograms[status];
    const b64c = co.histograms[status];
    if (!enough(bo) || !enough(co) || b64b === undefined || b64c === undefined) continue;
    out.push({ status, bb: bucketsOf(b64b), cb: bucketsOf(b64c) });
  }
  return out;
}

/** The share of pairs of the group in which the current answer is slower by more than the margin. */
export function breadthOf(g: Group, marginMs: number) {
  return {
    status: g.status,
    n1: g.bb.total,
    n2: g.cb.total,
    superiorityBeyondMargin: superiorityBy(g.bb, g.cb, marginMs * 1000),
  };
}

const medianMs = (b64: string): number => percentile(decodeHistogram(b64), 50);

/**
 * Each code's median before and after, and whether every answer of it became slower: the median rose past the
 * threshold (both parts), Mann-Whitney finds the code's answers slower (p < alpha), and A(+margin) within the code
 * reaches minSuperiority. Null threshold (no percentile judged): shown, never a regression.
 */
export function statusChanges(
  bo: OperationMetricsT,
  co: OperationMetricsT,
  groups: readonly Group[],
  threshold: Threshold | null,
  options: CompareOptions,
): StatusChange[] {
  return groups.map((g) => {
    const baselineP50 = medianMs(bo.histograms[g.status]!);
    const currentP50 = medianMs(co.histograms[g.status]!);
    const changeMs = currentP50 - baselineP50;
    const changeRatio = baselineP50 > 0 ? currentP50 / baselineP50 - 1 : null;
    const mw = mannWhitney(g.bb, g.cb);
    const { superiorityBeyondMargin } = breadthOf(g, threshold?.absoluteMs ?? 0);
    const large =
      threshold !== null &&
      changeMs > 0 &&
      changeMs >= threshold.absoluteMs &&
      (changeRatio === null || changeRatio >= threshold.relative);
    const slower = mw.p < options.alpha && mw.z > 0;
    return {
      status: g.status,
      n1: g.bb.total,
      n2: g.cb.total,
      baselineP50,
      currentP50,
      changeMs,
      changeRatio,
      p: mw.p,
      superiorityBeyondMargin,
      regression: large && slower && superiorityBeyondMargin >= options.minSuperiority,
    };
  });
}

/** `createPet 400 median 3.9 ms -> 41.8 ms (+37.9 ms, +971 %); 140 and 140 answers, A(+5.0 ms)=0.98, p=1e-40` */
export function statusMessage(operation: string, s: StatusChange, marginMs: number): string {
  return (
    `${operation} ${s.status} median ${formatMs(s.baselineP50)} ms -> ${formatMs(s.currentP50)} ms ` +
    `(${formatChangeMs(s.changeMs)}, ${formatRatio(s.changeRatio)}); ${s.n1} and ${s.n2} answers ${s.status}, ` +
    `A(+${formatMs(marginMs)} ms)=${s.superiorityBeyondMargin.toFixed(2)}, Mann-Whitney p=${formatP(s.p)}`
  );
}
