/** Thresholds judged on a run's metrics (thresholds.ts parses them). */
import { addInto, decodeHistogram, type Histogram, percentile, summarize, totalCount } from '../metrics/histogram.js';
import { ALL_HISTOGRAM, ERROR_STATUS, type MetricsSnapshot, type OperationName } from '../metrics/recorder.js';
import { operationsOf, totalsOf } from '../metrics/traffic.js';
import type { Comparison, StatusSelector, Threshold, ThresholdMetric, TimeUnit } from './thresholds.js';

export interface ThresholdEvaluation {
  /** In `unit`; null when there was nothing to measure (no request in scope). */
  observed: number | null;
  unit: string;
  ok: boolean;
}

function compare(a: number, op: Comparison, b: number): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
}

const MICROS_PER: Record<TimeUnit, number> = { us: 1, ms: 1000, s: 1_000_000 };

type Operations = MetricsSnapshot['operations'];

function latencyHistogram(ops: Operations, operation: OperationName | null): Histogram | null {
  let merged: Histogram | null = null;
  for (const op of ops) {
    if (operation !== null && op.operation !== operation) continue;
    const b64 = op.histograms[ALL_HISTOGRAM];
    if (b64 === undefined) continue;
    const h = decodeHistogram(b64);
    if (merged === null) merged = h;
    else addInto(merged, h);
  }
  return merged !== null && totalCount(merged) > 0 ? merged : null;
}

/** Latency statistic in whole microseconds. */
function latencyMicros(h: Histogram, metric: ThresholdMetric): number {
  const ms =
    metric.kind === 'percentile'
      ? percentile(h, metric.percentile)
      : metric.kind === 'med'
        ? percentile(h, 50)
        : metric.kind === 'avg'
          ? summarize(h).mean
          : metric.kind === 'min'
            ? summarize(h).min
            : summarize(h).max;
  return Math.round(ms * 1000);
}

function matching(counts: Record<string, number>, status: StatusSelector, transportErrors: number): number {
  switch (status.kind) {
    case 'code':
      return counts[String(status.code)] ?? 0;
    case 'class':
      return Object.entries(counts).reduce(
        (sum, [k, n]) => (/^\d{3}$/.test(k) && k[0] === String(status.hundred) ? sum + n : sum),
        0,
      );
    case 'errors':
      return transportErrors;
    case 'dropped':
      return 0;
  }
}

/**
 * Evaluates a threshold against a run's metrics, on the traffic class it names (the load's by default). With no
 * request in scope (or, for dropped, nothing sent or
 * dropped), `observed` is null and the threshold fails: unlike k6, which passes thresholds without data, a
 * rule about traffic that never happened (an operation the mix never reached, a run that sent nothing) is
 * a sign of a broken run and must not read as a pass.
 */
export function evaluateThreshold(t: Threshold, snap: MetricsSnapshot): ThresholdEvaluation {
  const m = t.metric;
  // One traffic class: the load's unless the rule says traffic=probes (a probe's deliberate 429s are not the load's).
  const ops = operationsOf(snap, t.traffic);
  if (m.kind === 'rate' || m.kind === 'count') {
    const op = t.operation === null ? null : ops.find((o) => o.operation === t.operation);
    let hits: number;
    let total: number;
    if (m.status.kind === 'dropped') {
      hits = snap.totals.dropped;
      total = totalsOf(operationsOf(snap, 'load')).requests + snap.totals.dropped;
    } else if (t.operation === null) {
      const c = totalsOf(ops);
      hits = matching(c.statusCounts, m.status, c.errors);
      total = c.requests;
    } else {
      hits = op ? matching(op.statusCounts, m.status, op.statusCounts[ERROR_STATUS] ?? 0) : 0;
      total = op?.count ?? 0;
    }
    if (total === 0) return { observed: null, unit: t.unit, ok: false };
    if (m.kind === 'count') return { observed: hits, unit: t.unit, ok: compare(hits, t.comparison, t.value) };
    // Compared as hits * scale vs value * total, so that no division rounds a boundary case.
    const scale = t.unit === '%' ? 100 : 1;
    return { observed: (hits * scale) / total, unit: t.unit, ok: compare(hits * scale, t.comparison, t.value * total) };
  }
  const h = latencyHistogram(ops, t.operation);
  if (h === null) return { observed: null, unit: t.unit, ok: false };
  const unit = t.unit as TimeUnit;
  const observedMicros = latencyMicros(h, m);
  const limitMicros = Math.round(t.value * MICROS_PER[unit]);
  return { observed: observedMicros / MICROS_PER[unit], unit, ok: compare(observedMicros, t.comparison, limitMicros) };
}

/** Why a threshold of an aborted run that had no data for it is not judged (its check is skipped with it). */
export const ABORTED_UNJUDGED = 'not judged: the run was aborted';

/**
 * The one-line message of a threshold's outcome: `p(95) < 250ms: observed 12.5ms`, or, when nothing was in
 * its scope, `count(5xx) == 0: observed no data (no request in its scope)` (no unit glued to "no data").
 */
export function thresholdMessage(expression: string, r: ThresholdEvaluation): string {
  if (r.observed === null) return `${expression}: observed no data (no request in its scope)`;
  return `${expression}: observed ${r.observed}${r.unit}`;
}
