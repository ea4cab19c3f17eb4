/**
 * The data behind report.html's charts, computed here (in Node, from the report) so that the page's script
 * only draws. Every series of a chart shares its x values, as uPlot wants.
 */
import type { Report } from '../report/schema.js';
import { decodeHistogram, percentiles, totalCount } from '../metrics/histogram.js';

/** The percentiles of the latency spectrum; 100 is the maximum. */
export const PERCENTILE_LADDER = [0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100] as const;

/** Where the maximum sits on the spectrum's x axis (one in a million). */
const MAX_X = 1e6;

/** A percentile's place on a log x axis: 1/(1-p), so 90 -> 10, 99 -> 100, 99.9 -> 1000. */
export function spectrumX(p: number): number {
  return p >= 100 ? MAX_X : Math.min(MAX_X, 1 / (1 - p / 100));
}

export interface LatencyChart {
  x: number[];
  series: { name: string; values: number[] }[];
}

export interface TimelineChart {
  /** Seconds since the start (run clock). */
  t: number[];
  /** Per second of the run clock. */
  sent: number[];
  s2xx: number[];
  s4xx: number[];
  s429: number[];
  s5xx: number[];
  errors: number[];
  p99: (number | null)[];
}

export interface KeyChart {
  key: string;
  plan: string;
  /** Seconds since the start (run clock). */
  t: number[];
  remaining: (number | null)[];
  limit: (number | null)[];
  /** 0 where a 429 was received, null elsewhere (drawn as markers on the time axis). */
  refused: (number | null)[];
  refusals: number;
}

export interface ChartData {
  latency: LatencyChart | null;
  timeline: TimelineChart | null;
  keys: KeyChart[];
}

function latencyChart(report: Report): LatencyChart | null {
  const series = report.operations
    .map((op) => ({ op, encoded: op.histograms.all }))
    .filter((s): s is { op: Report['operations'][number]; encoded: string } => s.encoded !== undefined)
    .map(({ op, encoded }) => ({ name: op.operation, h: decodeHistogram(encoded) }))
    .filter(({ h }) => totalCount(h) > 0)
    .map(({ name, h }) => ({ name, values: percentiles(h, PERCENTILE_LADDER) }));
  if (series.length === 0) return null;
  return { x: PERCENTILE_LADDER.map(spectrumX), series };
}

/** Above this many buckets the timeline is drawn as recorded, without filling the quiet buckets in. */
const MAX_DENSE_BUCKETS = 5000;

const EMPTY_BUCKET = { sent: 0, s2xx: 0, s4xx: 0, s429: 0, s5xx: 0, errors: 0, p99: null };

function timelineChart(report: Report): TimelineChart | null {
  const { bucketMs, buckets } = report.timeline;
  if (buckets.length === 0 || !(bucketMs > 0)) return null;
  const perSecond = (n: number) => (n * 1000) / bucketMs;
  const byStart = new Map(buckets.map((b) => [Math.round(b.t / bucketMs), b]));
  const last = Math.max(...byStart.keys());
  // The timeline only keeps buckets in which something was sent: the quiet ones are put back as zeros (and
  // no p99), so that a pause reads as a pause instead of a line drawn across it.
  const dense = last < MAX_DENSE_BUCKETS;
  const rows = dense
    ? Array.from({ length: last + 1 }, (_, i) => byStart.get(i) ?? { ...EMPTY_BUCKET, t: i * bucketMs })
    : [...buckets].sort((a, b) => a.t - b.t);
  return {
    t: rows.map((b) => b.t / 1000),
    sent: rows.map((b) => perSecond(b.sent)),
    s2xx: rows.map((b) => perSecond(b.s2xx)),
    s4xx: rows.map((b) => perSecond(b.s4xx)),
    s429: rows.map((b) => perSecond(b.s429)),
    s5xx: rows.map((b) => perSecond(b.s5xx)),
    errors: rows.map((b) => perSecond(b.errors)),
    p99: rows.map((b) => b.p99),
  };
}

function keyChart(k: Report['keyTimelines'][number]): KeyChart | null {
  if (k.remaining.length === 0 && k.refusals.length === 0) return null;
  // One x value per distinct time: a Remaining sample and a 429 at the same moment share a point.
  const points = new Map<number, { remaining: number | null; limit: number | null; refused: boolean }>();
  for (const [t, remaining, limit] of k.remaining) points.set(t, { remaining, limit, refused: false });
  for (const [t] of k.refusals) {
    const p = points.get(t);
    if (p) p.refused = true;
    else points.set(t, { remaining: null, limit: null, refused: true });
  }
  const ts = [...points.keys()].sort((a, b) => a - b);
  return {
    key: k.key,
    plan: k.plan,
    t: ts.map((t) => t / 1000),
    remaining: ts.map((t) => points.get(t)!.remaining),
    limit: ts.map((t) => points.get(t)!.limit),
    refused: ts.map((t) => (points.get(t)!.refused ? 0 : null)),
    refusals: k.refusals.length,
  };
}

export function chartData(report: Report): ChartData {
  return {
    latency: latencyChart(report),
    timeline: timelineChart(report),
    keys: report.keyTimelines.map(keyChart).filter((c): c is KeyChart => c !== null),
  };
}
