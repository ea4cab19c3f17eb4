/**
 * Test-only: hand-built histograms and reports with hand-built latencies, for the statistics and compare tests.
 * (Imported by tests of this folder only.)
 */
import { createHistogram, encodeHistogram, record, summarize } from '../metrics/histogram.js';
import type { Report } from '../report/schema.js';
import { type Buckets, bucketsOf } from '../drift/buckets.js';
import { createPrng } from '../reference-server/prng.js';

/** The encoded histogram (as report.json carries it) of values in microseconds. */
export function encoded(micros: readonly number[]): string {
  const h = createHistogram();
  for (const v of micros) record(h, v);
  return encodeHistogram(h);
}

export function bucketed(micros: readonly number[]): Buckets {
  return bucketsOf(encoded(micros));
}

/** n latencies (µs) from a log-normal distribution around `medianMicros` (spread sigma), seeded. */
export function logNormal(n: number, medianMicros: number, sigma: number, seed: number): number[] {
  const random = createPrng(seed);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    // Box-Muller.
    const u = Math.max(random(), 1e-12);
    const v = random();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    out.push(Math.round(medianMicros * Math.exp(sigma * z)));
  }
  return out;
}

/** A copy of `report` whose operation `name` has exactly these latencies (µs), summaries recomputed. */
export function withLatencies(report: Report, name: string, micros: readonly number[]): Report {
  const copy = structuredClone(report);
  const op = copy.operations.find((o) => o.operation === name);
  if (op === undefined) throw new Error(`no operation ${name} in the report`);
  const h = createHistogram();
  for (const v of micros) record(h, v);
  const total = copy.totals.requests - op.count + micros.length;
  copy.totals.rps = copy.totals.requests > 0 ? (copy.totals.rps * total) / copy.totals.requests : 0;
  copy.totals.requests = total;
  op.count = micros.length;
  op.statusCounts = { '200': micros.length };
  op.latency = summarize(h);
  op.serviceTime = summarize(h);
  op.histograms = { all: encodeHistogram(h), serviceTime: encodeHistogram(h), '2xx': encodeHistogram(h) };
  return copy;
}
