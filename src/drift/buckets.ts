/**
 * The bucket counts of an encoded HDR histogram (report.json's `histograms`: compressed base64, HdrHistogram
 * V2 format, microseconds), which the statistical tests need and src/metrics/histogram.ts does not hand out.
 *
 * The format is HdrHistogram's own, public and frozen: a compressed cookie and length, a zlib stream, then a
 * 40-byte header (cookie, payload length, normalizing offset, significant digits, lowest discernible value,
 * highest trackable value, conversion ratio) and the counts array as ZigZag LEB128 words in which a negative
 * word is a run of that many empty buckets. The index of a count gives its value range by the layout the header
 * fixes. Every histogram is first decoded by metrics/histogram.ts (which validates it), and the buckets read
 * here must add up to its total count, so this reader can never disagree with the one the report was written by
 * without saying so.
 */
import { decodeHistogram, inflateEncoded, totalCount } from '../metrics/histogram.js';

/** One non-empty bucket: every value from `lo` to `hi` (microseconds, inclusive) counts as the same value. */
export interface Bucket {
  lo: number;
  hi: number;
  count: number;
}

/** A histogram as sorted non-empty buckets, and their total. */
export interface Buckets {
  buckets: Bucket[];
  total: number;
}

const V2_COOKIE = 0x1c849303;
const HEADER_BYTES = 40;

const cookieBase = (cookie: number): number => cookie & ~0xf0;

/** One ZigZag LEB128 word (at most 9 bytes, as the V2 format writes them) from `pos`. */
function readWord(bytes: Uint8Array, pos: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  let i = pos;
  for (let n = 0; n < 9; n++) {
    const b = bytes[i++];
    if (b === undefined) throw new Error('truncated counts');
    // The ninth byte carries 8 bits, the others 7.
    value += (n === 8 ? b : b & 0x7f) * scale;
    scale *= 128;
    if (n === 8 || (b & 0x80) === 0) break;
  }
  return { value: value % 2 === 0 ? value / 2 : -(value + 1) / 2, next: i };
}

/** The value range of a counts-array index, for the layout of `significantDigits` and `lowest`. */
function layout(significantDigits: number, lowest: number): (index: number) => { lo: number; hi: number } {
  const largestSingleUnit = 2 * 10 ** significantDigits;
  const subBucketCountMagnitude = Math.ceil(Math.log2(largestSingleUnit));
  const halfMagnitude = Math.max(subBucketCountMagnitude, 1) - 1;
  const half = 2 ** halfMagnitude;
  const unitMagnitude = Math.floor(Math.log2(lowest));
  return (index) => {
    let bucketIndex = Math.floor(index / half) - 1;
    let subBucketIndex = (index % half) + half;
    if (bucketIndex < 0) {
      subBucketIndex -= half;
      bucketIndex = 0;
    }
    const width = 2 ** (bucketIndex + unitMagnitude);
    const lo = subBucketIndex * width;
    return { lo, hi: lo + width - 1 };
  };
}

/** The non-empty buckets of an encoded histogram; throws an Error naming the problem on anything else. */
export function bucketsOf(b64: string): Buckets {
  const expected = totalCount(decodeHistogram(b64));
  const raw = inflateEncoded(b64);
  if (raw.length < HEADER_BYTES || cookieBase(raw.readInt32BE(0)) !== V2_COOKIE)
    throw new Error('not a V2 HDR histogram');
  const payloadBytes = raw.readInt32BE(4);
  const significantDigits = raw.readInt32BE(12);
  const lowest = Number(raw.readBigInt64BE(16));
  const rangeOf = layout(significantDigits, Math.max(1, lowest));
  const bytes = raw.subarray(HEADER_BYTES, HEADER_BYTES + payloadBytes);
  const buckets: Bucket[] = [];
  let total = 0;
  let index = 0;
  for (let pos = 0; pos < bytes.length; ) {
    const { value, next } = readWord(bytes, pos);
    pos = next;
    if (value < 0) {
      index += -value;
      continue;
    }
    if (value > 0) {
      buckets.push({ ...rangeOf(index), count: value });
      total += value;
    }
    index++;
  }
  if (total !== expected) throw new Error(`histogram buckets add up to ${total}, its total count is ${expected}`);
  return { buckets, total };
}

/** An empty histogram's buckets. */
export const NO_BUCKETS: Buckets = { buckets: [], total: 0 };
