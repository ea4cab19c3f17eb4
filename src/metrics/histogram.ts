/**
 * Latency histograms: the only hdr-histogram-js import. Values are whole microseconds over a fixed range
 * (1 µs .. 1 h) at 3 significant digits, so a histogram's memory is fixed (~190 kB) whatever the number
 * of values recorded; larger values are clamped to 1 h and counted in `clamped`.
 *
 * The pure-JS build is used, not the wasm one. Measured on this project's machine: ~140 ns per record (JS)
 * against ~25 ns (wasm). A few records per exchange stay far below the cost of the exchange itself, while a
 * wasm histogram lives outside the garbage-collected heap and leaks unless every holder calls destroy():
 * not a burden worth putting on every function that decodes or merges one.
 *
 * So the pure-JS histogram and its encoding are imported from their own files of the package (which has no
 * exports map: each file is a stable CommonJS module with its declarations), not from its index: the index
 * also loads the wasm build, the log reader and writer (whose number formats start ICU) and the recorders,
 * which cost `petload report` some 25 ms of its start for nothing it uses.
 */
import type { JsHistogram as HdrHistogram } from 'hdr-histogram-js/dist/JsHistogram.js';
import { inflateSync } from 'node:zlib';
import { doDecode } from 'hdr-histogram-js/dist/JsHistogram.encoding.js';
import { constructorFromBucketSize } from 'hdr-histogram-js/dist/JsHistogramFactory.js';
import type * as z from 'zod';
import type { LatencySummary as LatencySummarySchema } from '../report/schema.js';

export type LatencySummary = z.infer<typeof LatencySummarySchema>;

/** One hour in microseconds: the top of the tracked range. */
export const MAX_MICROS = 3_600_000_000;

/**
 * `exact` (3 significant digits, 64-bit counts) is what reports carry and merge. `coarse` (2 digits,
 * ~14 kB) serves per-bucket timeline percentiles, where hundreds of histograms live at once.
 */
export type Precision = 'exact' | 'coarse';

export interface Histogram {
  /** Values recorded above MAX_MICROS (as MAX_MICROS) by this process; the encoding does not carry it. */
  clamped: number;
  /** The hdr-histogram-js instance: only this module touches it. */
  readonly impl: HdrHistogram;
}

const EXACT_DIGITS = 3;

function buildImpl(precision: Precision): HdrHistogram {
  const exact = precision === 'exact';
  // autoResize stays off (the constructor's default): the range is fixed.
  return new (constructorFromBucketSize(exact ? 64 : 32))(1, MAX_MICROS, exact ? EXACT_DIGITS : 2);
}

export function createHistogram(precision: Precision = 'exact'): Histogram {
  return { clamped: 0, impl: buildImpl(precision) };
}

/** Record one value in microseconds (rounded; negative or non-finite values count as 0). Hot path. */
export function record(h: Histogram, micros: number): void {
  let v = Math.round(micros);
  if (!(v >= 0)) v = 0;
  else if (v > MAX_MICROS) {
    v = MAX_MICROS;
    h.clamped++;
  }
  h.impl.recordValue(v);
}

/** Add every value of `source` into `target`. */
export function addInto(target: Histogram, source: Histogram): void {
  target.impl.add(source.impl);
  target.clamped += source.clamped;
}

/** Empties the histogram for reuse. */
export function resetHistogram(h: Histogram): void {
  h.impl.reset();
  h.clamped = 0;
}

export function totalCount(h: Histogram): number {
  return h.impl.totalCount;
}

/** Compressed base64 (the HdrHistogram V2 format), as carried in report.json. */
export function encodeHistogram(h: Histogram): string {
  return h.impl.encodeIntoCompressedBase64();
}

const V2_COOKIE_BASE = 0x1c849303;
const V2_COMPRESSED_COOKIE_BASE = 0x1c849304;
const cookieBase = (cookie: number) => cookie & ~0xf0;
/** The V2 header: cookie, payload length, normalizing offset, digits, lowest, highest, conversion ratio. */
const V2_HEADER_BYTES = 40;
/** A V2 count takes at most 9 bytes (ZigZag LEB128). */
const V2_MAX_WORD_BYTES = 9;

let maxInflated: number | undefined;
/**
 * The most a histogram petload writes inflates to: its header and 9 bytes per count of the standard layout
 * (about 0.2 MB). Anything bigger was not written by petload: inflating stops there, whatever the stream says.
 */
export function maxInflatedBytes(): number {
  maxInflated ??= V2_HEADER_BYTES + V2_MAX_WORD_BYTES * createHistogram().impl.countsArrayLength;
  return maxInflated;
}

/** The V2 bytes inside a compressed base64 histogram, inflated at most to maxInflatedBytes(). */
export function inflateEncoded(b64: string): Buffer {
  const outer = Buffer.from(b64.trim(), 'base64');
  if (outer.length < 8 || cookieBase(outer.readInt32BE(0)) !== V2_COMPRESSED_COOKIE_BASE)
    throw new Error('not an encoded histogram: not a compressed V2 HDR histogram');
  const length = outer.readInt32BE(4);
  try {
    return inflateSync(outer.subarray(8, 8 + Math.max(0, length)), { maxOutputLength: maxInflatedBytes() });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new Error(
        `not a petload histogram: it inflates to more than ${maxInflatedBytes()} bytes, the most a histogram of petload's takes`,
      );
    throw new Error(`not an encoded histogram: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The header's figures, checked before the histogram they describe is allocated. */
function checkHeader(raw: Buffer): void {
  if (raw.length < V2_HEADER_BYTES || cookieBase(raw.readInt32BE(0)) !== V2_COOKIE_BASE)
    throw new Error('not an encoded histogram: not a V2 HDR histogram');
  const digits = raw.readInt32BE(12);
  const lowest = Number(raw.readBigInt64BE(16));
  const highest = Number(raw.readBigInt64BE(24));
  if (digits !== EXACT_DIGITS || highest > MAX_MICROS || lowest < 1 || lowest > highest)
    throw new Error(
      `not a petload histogram: ${digits} significant digits ${lowest === 1 ? '' : `from ${lowest} `}up to ${highest} µs ` +
        `(expected ${EXACT_DIGITS} digits up to ${MAX_MICROS} µs)`,
    );
  if (raw.readInt32BE(4) > raw.length - V2_HEADER_BYTES)
    throw new Error('not an encoded histogram: its counts end before their stated length');
}

/** The encoded histogram decoded with `bits`-bit counts; throws an Error naming the problem unless petload wrote it. */
function decodeImpl(b64: string, bits: 32 | 64): HdrHistogram {
  const raw = inflateEncoded(b64);
  checkHeader(raw);
  try {
    return doDecode(raw, bits);
  } catch (e) {
    throw new Error(`not an encoded histogram: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Throws as decodeHistogram would, without keeping the histogram: read with 32-bit counts, half the memory of a
 * decoded one (reading a report checks every histogram it holds; 64-bit copies of a dozen took 10 ms more of
 * `petload report`'s start, most of it collecting them).
 */
export function checkEncodedHistogram(b64: string): void {
  decodeImpl(b64, 32);
}

/** Decode what encodeHistogram wrote; throws an Error naming the problem on anything else. */
export function decodeHistogram(b64: string): Histogram {
  const impl = decodeImpl(b64, 64);
  // A histogram of the standard shape is used as decoded; any other has its counts re-homed in one, so that merging
  // never depends on the input's layout.
  if (impl.lowestDiscernibleValue === 1 && impl.highestTrackableValue === MAX_MICROS) return { clamped: 0, impl };
  const h = createHistogram();
  h.impl.add(impl);
  return h;
}

/** Exact merge of encoded histograms: the result holds every value of every input. */
export function mergeEncoded(list: readonly string[]): string {
  const merged = createHistogram();
  for (const b64 of list) merged.impl.add(decodeHistogram(b64).impl);
  return encodeHistogram(merged);
}

const toMs = (micros: number): number => Math.round(micros) / 1000;

/** The value (ms) at or below which `p` percent of the values fall (HDR semantics: highest equivalent value). */
export function percentile(h: Histogram, p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be between 0 and 100, got ${p}`);
  return h.impl.totalCount === 0 ? 0 : toMs(h.impl.getValueAtPercentile(p));
}

/**
 * The count at or below which `p` percent of `total` values fall, as hdr-histogram-js's getValueAtPercentile
 * computes it: rounded up, less one unit in the last place of the product (so that a product one ulp too large does
 * not skip a count), and at least 1.
 */
function countAtPercentile(p: number, total: number): number {
  const fp = (Math.min(p, 100) / 100) * total;
  const ulp = fp > 0 ? 2 ** (Math.floor(Math.log2(fp)) - 52) : 0;
  return Math.max(Math.ceil(fp - ulp), 1);
}

/**
 * Several percentiles (ms) in one pass over the counts, each equal to percentile(h, p): a chart's ladder or a
 * summary costs one scan instead of one per percentile (a scan per percentile took 10 ms of `petload report`'s
 * start for the charts of three operations).
 */
export function percentiles(h: Histogram, ps: readonly number[]): number[] {
  for (const p of ps) if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be between 0 and 100, got ${p}`);
  const impl = h.impl;
  const out = ps.map(() => 0);
  if (impl.totalCount === 0) return out;
  const order = ps.map((_, i) => i).sort((a, b) => ps[a]! - ps[b]!);
  const targets = order.map((i) => countAtPercentile(ps[i]!, impl.totalCount));
  let k = 0;
  let seen = 0;
  for (let i = 0; i < impl.countsArrayLength && k < order.length; i++) {
    const n = impl.getCountAtIndex(i);
    if (n === 0) continue;
    seen += n;
    for (; k < order.length && seen >= targets[k]!; k++) {
      const v = impl.valueFromIndex(i);
      const p = ps[order[k]!]!;
      out[order[k]!] = toMs(p === 0 ? impl.lowestEquivalentValue(v) : impl.highestEquivalentValue(v));
    }
  }
  return out;
}

/** Summary in milliseconds (µs resolution). An empty histogram summarises to count 0 and zeros. */
export function summarize(h: Histogram): LatencySummary {
  const count = h.impl.totalCount;
  if (count === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0 };
  // Like every percentile, max is the highest value equivalent to the largest recorded (not its exact value), so
  // that a histogram and its decoded copy summarise alike.
  const [min, p50, p90, p95, p99, p999, max] = percentiles(h, [0, 50, 90, 95, 99, 99.9, 100]) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { count, min, mean: toMs(h.impl.mean), p50, p90, p95, p99, p999, max };
}
