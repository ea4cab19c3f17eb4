/**
 * Latency and throughput per operation: the figures of both runs, tests of the recorded HDR histograms, and the
 * verdict per percentile. A percentile regresses when it rose past both parts of its threshold (large), more
 * current requests lie above the baseline's value at that percentile than chance allows (exceedance test,
 * p < alpha), and most requests are slower by more than the threshold's absolute part (the probability of
 * superiority by that margin >= minSuperiority): see docs/compare.md for why all three.
 */
import { decodeHistogram, percentile, totalCount } from '../metrics/histogram.js';
import { type MeasuredTraffic, measuredTraffic, trafficWords } from '../metrics/traffic.js';
import type { OperationMetricsT, Report } from '../report/schema.js';
import { focusFlags } from '../report/verdict.js';
import { type Buckets, bucketsOf } from './buckets.js';
import { breadthOf, type Group, statusChanges, statusGroupsOf } from './status-latency.js';
import {
  type CompareOptions,
  DEFAULT_THRESHOLDS,
  type OperationDrift,
  type OperationSide,
  PERCENTILES,
  type PercentileChange,
  type PercentileName,
  type ShiftTest,
  SPECTRUM_PERCENTILES,
  type StatusChange,
  type Threshold,
} from './schema.js';
import { exceedanceTest, kolmogorovSmirnov, mannWhitney, superiorityBy } from './stats.js';
import { formatChangeMs, formatMs, formatP, formatRatio } from './words.js';

const ORDER = ['listPets', 'createPet', 'getPet', 'listOrders', 'other'];

function errorsOf(op: OperationMetricsT): number {
  let n = 0;
  for (const [status, count] of Object.entries(op.statusCounts)) {
    const s = Number(status);
    if (status === 'error' || (s >= 500 && s < 600)) n += count;
  }
  return n;
}

function sideOf(report: Report, op: OperationMetricsT, histogram: CompareOptions['histogram']): OperationSide {
  const l = histogram === 'serviceTime' ? op.serviceTime : op.latency;
  const t = report.totals;
  return {
    count: op.count,
    p50: l.p50,
    p90: l.p90,
    p99: l.p99,
    max: l.max,
    rps: t.requests > 0 ? (t.rps * op.count) / t.requests : 0,
    errorRate: op.count > 0 ? errorsOf(op) / op.count : 0,
  };
}

/** The thresholds in force for an operation: the defaults, then the options' own, then the operation's. */
export function thresholdsFor(options: CompareOptions, operation: string): Record<PercentileName, Threshold | null> {
  const out = { ...DEFAULT_THRESHOLDS };
  for (const set of [options.thresholds, options.operations[operation] ?? {}]) {
    for (const p of PERCENTILES) {
      const t = set[p];
      if (t !== undefined) out[p] = t;
    }
  }
  return out;
}

/**
 * The operation's judged threshold with the smallest absolute part, null when none is judged. That part is the
 * margin of the breadth condition (a shift smaller than that cannot regress any of them), and the threshold is what
 * a status code's median must rise past.
 */
function smallestThreshold(thresholds: Record<PercentileName, Threshold | null>): Threshold | null {
  const judged = PERCENTILES.flatMap((p) => (thresholds[p] ? [thresholds[p]] : []));
  return judged.sort((x, y) => x.absoluteMs - y.absoluteMs)[0] ?? null;
}

/**
 * Status-class histograms of an operation (src/metrics/recorder.ts: `2xx`, `4xx`, `429`, `5xx`, `error`...), not
 * `all`, `serviceTime` or a status code's own (`201`, `400`).
 */
const isClass = (name: string): boolean => /^(\dxx|429|error|other)$/.test(name);

/**
 * The kind of answer (a status class) that holds most of the operation's requests on both sides, with its
 * buckets: at least half of each side's requests and minSamples each. Null when no kind does.
 */
function mainKindOf(bo: OperationMetricsT, co: OperationMetricsT, options: CompareOptions): Group | null {
  if (options.histogram !== 'all') return null;
  for (const status of Object.keys(bo.histograms)) {
    const b64b = bo.histograms[status];
    const b64c = co.histograms[status];
    if (!isClass(status) || b64b === undefined || b64c === undefined) continue;
    const bb = bucketsOf(b64b);
    const cb = bucketsOf(b64c);
    const most = (n: number, of: number) => n >= options.minSamples && 2 * n >= of;
    if (most(bb.total, bo.count) && most(cb.total, co.count)) return { status, bb, cb };
  }
  return null;
}

function shiftTest(
  b: Buckets,
  c: Buckets,
  options: CompareOptions,
  margin: number,
  groups: { kind: Group | null; statuses: readonly Group[] },
): ShiftTest {
  const mw = mannWhitney(b, c);
  const ks = kolmogorovSmirnov(b, c);
  const direction = mw.p < options.alpha && mw.z !== 0 ? (mw.z > 0 ? 'slower' : 'faster') : 'same';
  const beyond = superiorityBy(b, c, margin * 1000);
  // A slowdown carried by every answer of the operation's main kind, or of one status code, is broad, though
  // answers of another kind or code (a limiter's refusals, answered before the slow part) were not slowed.
  const mainKind = groups.kind === null ? null : breadthOf(groups.kind, margin);
  const statuses = groups.statuses.map((g) => breadthOf(g, margin));
  const widest = Math.max(
    beyond,
    mainKind?.superiorityBeyondMargin ?? 0,
    ...statuses.map((s) => s.superiorityBeyondMargin),
  );
  return {
    histogram: options.histogram,
    n1: mw.n1,
    n2: mw.n2,
    u: mw.u,
    z: mw.z,
    p: mw.p,
    superiority: mw.superiority,
    marginMs: margin,
    superiorityBeyondMargin: beyond,
    mainKind,
    statuses,
    broad: widest >= options.minSuperiority,
    ksD: ks.d,
    ksP: ks.p,
    direction,
  };
}

/** ms at each percentile of the charts' ladder, from an encoded histogram; null without one or when empty. */
function spectrumOf(b64: string | undefined): number[] | null {
  if (b64 === undefined) return null;
  const h = decodeHistogram(b64);
  return totalCount(h) === 0 ? null : SPECTRUM_PERCENTILES.map((p) => percentile(h, p));
}

const PERCENT: Record<PercentileName, number> = { p50: 50, p90: 90, p99: 99, max: 100 };

interface Sides {
  b: OperationSide;
  c: OperationSide;
  /** The histograms' buckets and the shift test, when the operation is judged. */
  judged: { bb: Buckets; cb: Buckets; test: ShiftTest } | null;
}

function percentileChange(
  p: PercentileName,
  s: Sides,
  threshold: Threshold | null,
  o: CompareOptions,
): PercentileChange {
  const changeMs = s.c[p] - s.b[p];
  const changeRatio = s.b[p] > 0 ? s.c[p] / s.b[p] - 1 : null;
  const large =
    threshold !== null &&
    changeMs > 0 &&
    changeMs >= threshold.absoluteMs &&
    (changeRatio === null || changeRatio >= threshold.relative);
  const t = s.judged === null ? null : exceedanceTest(s.judged.bb, s.judged.cb, PERCENT[p]);
  const exceedance = t === null ? null : { above: t.above, expected: t.expectedAbove, p: t.p };
  return {
    percentile: p,
    baselineMs: s.b[p],
    currentMs: s.c[p],
    changeMs,
    changeRatio,
    threshold,
    large,
    exceedance,
    regression: large && exceedance !== null && exceedance.p < o.alpha && s.judged!.test.broad,
  };
}

/** Why an operation's latency is not judged, or null when it is. */
function notJudged(
  op: string,
  b: OperationMetricsT | undefined,
  c: OperationMetricsT | undefined,
  o: CompareOptions,
  traffic: string | null,
) {
  if (traffic !== null) return traffic;
  if (b === undefined) return `${op} is not in the baseline run`;
  if (c === undefined) return `${op} is not in the current run`;
  if (b.histograms[o.histogram] === undefined || c.histograms[o.histogram] === undefined)
    return `no "${o.histogram}" histogram for ${op} in ${b.histograms[o.histogram] === undefined ? 'the baseline' : 'the current'} report`;
  if (b.count < o.minSamples || c.count < o.minSamples)
    return `too few requests to judge (${b.count} and ${c.count}; at least ${o.minSamples} each)`;
  return null;
}

function operationDrift(
  base: Report,
  cur: Report,
  name: string,
  options: CompareOptions,
  traffic: string | null,
): OperationDrift {
  const bo = base.operations.find((o) => o.operation === name);
  const co = cur.operations.find((o) => o.operation === name);
  const b = bo ? sideOf(base, bo, options.histogram) : null;
  const c = co ? sideOf(cur, co, options.histogram) : null;
  const note = notJudged(name, bo, co, options, traffic);
  const thresholds = thresholdsFor(options, name);
  let judged: Sides['judged'] = null;
  let statuses: StatusChange[] = [];
  if (note === null) {
    const bb = bucketsOf(bo!.histograms[options.histogram]!);
    const cb = bucketsOf(co!.histograms[options.histogram]!);
    const groups = { kind: mainKindOf(bo!, co!, options), statuses: statusGroupsOf(bo!, co!, options) };
    const smallest = smallestThreshold(thresholds);
    judged = { bb, cb, test: shiftTest(bb, cb, options, smallest?.absoluteMs ?? 0, groups) };
    statuses = statusChanges(bo!, co!, groups.statuses, smallest, options);
  }
  const spectrum = {
    baseline: spectrumOf(bo?.histograms[options.histogram]),
    current: spectrumOf(co?.histograms[options.histogram]),
  };
  const percentiles =
    b && c ? PERCENTILES.map((p) => percentileChange(p, { b, c, judged }, thresholds[p], options)) : [];
  return {
    operation: name,
    baseline: b,
    current: c,
    test: judged?.test ?? null,
    percentiles,
    statuses,
    spectrum,
    regression: percentiles.some((p) => p.regression) || statuses.some((s) => s.regression),
    note,
  };
}

/** A run's focus as its flags, or the whole scenario's (a focused run sends only what judges its focus). */
const focusOf = (r: Report): string => (r.focus ? focusFlags(r.focus) : 'the whole scenario');

/**
 * Whose traffic each run's latency describes, and whether the two can be compared: only the same class, of runs of
 * the same focus (a focused run's probes are not the whole scenario's).
 */
export function latencyTrafficOf(
  baseline: Report,
  current: Report,
): { baseline: MeasuredTraffic; current: MeasuredTraffic; compared: boolean } {
  const b = measuredTraffic(baseline);
  const c = measuredTraffic(current);
  return { baseline: b, current: c, compared: b === c && focusOf(baseline) === focusOf(current) };
}

/** Why latency is not compared between the two runs: their traffic classes or focuses differ. Null when alike. */
export function trafficMismatch(baseline: Report, current: Report): string | null {
  const t = latencyTrafficOf(baseline, current);
  if (t.compared) return null;
  if (t.baseline === t.current)
    return `not compared: the baseline ran ${focusOf(baseline)}, the current ${focusOf(current)}, and sent other requests`;
  return `not compared: the baseline's latency is of ${trafficWords(t.baseline)}, the current's of ${trafficWords(t.current)}`;
}

export function diffOperations(baseline: Report, current: Report, options: CompareOptions): OperationDrift[] {
  const names = [...new Set([...baseline.operations, ...current.operations].map((o) => o.operation))];
  const rank = (n: string) => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const traffic = trafficMismatch(baseline, current);
  return names.map((n) => operationDrift(baseline, current, n, options, traffic));
}

/** One line for a percentile's change with the tests behind it. */
export function latencyMessage(op: OperationDrift, p: PercentileChange): string {
  const e = p.exceedance;
  const t = op.test;
  const stats =
    e === null || t === null
      ? ''
      : `; ${e.above} of ${t.n2} requests above the baseline's ${p.percentile} (${formatMs(e.expected)} expected), p=${formatP(e.p)}; ${formatBreadth(t)}`;
  return `${op.operation} ${p.percentile} ${formatMs(p.baselineMs)} ms -> ${formatMs(p.currentMs)} ms (${formatChangeMs(p.changeMs)}, ${formatRatio(p.changeRatio)})${stats}`;
}

/**
 * `A(+5 ms)=0.97`: the share of pairs in which the current request is slower by more than the margin; with the
 * main kind of answer's own when there is one (`A(+5 ms)=0.86; 2xx: A(+5 ms)=1.00`), and the widest status code's
 * when it is wider than both (`; 400: A(+5 ms)=1.00`).
 */
export function formatBreadth(t: ShiftTest): string {
  const a = (v: number) => `A(+${formatMs(t.marginMs)} ms)=${v.toFixed(2)}`;
  const k = t.mainKind;
  const all = a(t.superiorityBeyondMargin);
  // The kind's own only where it says something else (a kind that holds every request says the same).
  const parts = [all];
  if (k && a(k.superiorityBeyondMargin) !== all) parts.push(`${k.status}: ${a(k.superiorityBeyondMargin)}`);
  const shown = Math.max(t.superiorityBeyondMargin, k?.superiorityBeyondMargin ?? 0);
  const widest = [...(t.statuses ?? [])].sort((x, y) => y.superiorityBeyondMargin - x.superiorityBeyondMargin)[0];
  if (widest !== undefined && widest.superiorityBeyondMargin > shown && widest.status !== k?.status)
    parts.push(`${widest.status}: ${a(widest.superiorityBeyondMargin)}`);
  return parts.join('; ');
}
