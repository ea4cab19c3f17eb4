import { deflateSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addInto,
  checkEncodedHistogram,
  createHistogram,
  decodeHistogram,
  encodeHistogram,
  type Histogram,
  maxInflatedBytes,
  MAX_MICROS,
  mergeEncoded,
  percentile,
  percentiles,
  record,
  summarize,
  totalCount,
} from './histogram.js';

/** The V2 bytes inside an encoded histogram. */
const inflateRaw = (outer: Buffer) => inflateSync(outer.subarray(8, 8 + outer.readInt32BE(4)));

function histogramOf(values: readonly number[]): Histogram {
  const h = createHistogram();
  for (const v of values) record(h, v);
  return h;
}

/** Within HDR's 3-significant-digit resolution (one part in a thousand, plus a microsecond). */
function expectNear(actualMs: number, expectedMs: number): void {
  expect(Math.abs(actualMs - expectedMs)).toBeLessThanOrEqual(expectedMs / 1000 + 0.001);
}

const PERCENTILES = [0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100];

describe('summaries of known distributions', () => {
  it('uniform 1..10000 ms', () => {
    const h = histogramOf(Array.from({ length: 10_000 }, (_, i) => (i + 1) * 1000));
    const s = summarize(h);
    expect(s.count).toBe(10_000);
    expectNear(s.min, 1);
    expectNear(s.mean, 5000.5);
    expectNear(s.p50, 5000);
    expectNear(s.p90, 9000);
    expectNear(s.p95, 9500);
    expectNear(s.p99, 9900);
    expectNear(s.p999, 9990);
    expectNear(s.max, 10_000);
  });

  it('99% fast and 1% slow: p99 is the fast value, p99.9 the slow one', () => {
    const h = histogramOf([
      ...Array.from({ length: 990 }, () => 10_000),
      ...Array.from({ length: 10 }, () => 1_000_000),
    ]);
    const s = summarize(h);
    expectNear(s.p50, 10);
    expectNear(s.p99, 10);
    expectNear(s.p999, 1000);
    expectNear(s.max, 1000);
    expectNear(s.mean, 0.99 * 10 + 0.01 * 1000);
  });

  it('microsecond resolution for small values', () => {
    const s = summarize(histogramOf([1, 2, 3, 250, 1999]));
    expect(s.min).toBe(0.001);
    expect(s.p50).toBe(0.003);
    expect(s.max).toBe(1.999);
  });

  it('an empty histogram summarises to zeros', () => {
    expect(summarize(createHistogram())).toEqual({
      count: 0,
      min: 0,
      mean: 0,
      p50: 0,
      p90: 0,
      p95: 0,
      p99: 0,
      p999: 0,
      max: 0,
    });
    expect(percentile(createHistogram(), 99)).toBe(0);
  });

  it('percentile rejects values outside 0..100', () => {
    expect(() => percentile(histogramOf([1]), 101)).toThrow('percentile must be between 0 and 100, got 101');
    expect(() => percentile(histogramOf([1]), -1)).toThrow(RangeError);
  });
});

describe('recording', () => {
  it('clamps values above one hour and counts them', () => {
    const h = histogramOf([5_000, 2 * MAX_MICROS, MAX_MICROS + 1, MAX_MICROS]);
    expect(h.clamped).toBe(2);
    expect(totalCount(h)).toBe(4);
    expectNear(summarize(h).max, MAX_MICROS / 1000);
  });

  it('records negative and non-finite values as 0 and rounds fractions', () => {
    const h = histogramOf([-5, Number.NaN, 1.4]);
    const s = summarize(h);
    expect(s.count).toBe(3);
    expect(s.min).toBe(0);
    expect(s.max).toBe(0.001);
  });

  it('keeps a fixed footprint whatever the number of values', () => {
    const h = createHistogram();
    const before = h.impl.estimatedFootprintInBytes;
    for (let i = 0; i < 200_000; i++) record(h, (i * 7919) % MAX_MICROS);
    expect(h.impl.estimatedFootprintInBytes).toBe(before);
  });
});

describe('encoding', () => {
  it('round-trips: the decoded histogram summarises like the original', () => {
    const h = histogramOf(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 3_000_000));
    const decoded = decodeHistogram(encodeHistogram(h));
    expect(summarize(decoded)).toEqual(summarize(h));
    for (const p of PERCENTILES) expect(percentile(decoded, p)).toBe(percentile(h, p));
  });

  it('is compressed base64', () => {
    const b64 = encodeHistogram(histogramOf([1000, 2000, 3000]));
    expect(b64).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(b64.length).toBeLessThan(200);
  });

  it('merging encodings equals one histogram of both samples (property)', () => {
    const values = fc.array(fc.integer({ min: 0, max: 120_000_000 }), { maxLength: 300 });
    fc.assert(
      fc.property(values, values, (a, b) => {
        const merged = decodeHistogram(
          mergeEncoded([encodeHistogram(histogramOf(a)), encodeHistogram(histogramOf(b))]),
        );
        const both = histogramOf([...a, ...b]);
        expect(summarize(merged)).toEqual(summarize(both));
        for (const p of PERCENTILES) expect(percentile(merged, p)).toBe(percentile(both, p));
        expect(encodeHistogram(merged)).toBe(encodeHistogram(both));
      }),
      { numRuns: 40 },
    );
  });

  it('percentiles in one pass equal each percentile on its own, in any order (property)', () => {
    const values = fc.array(fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: MAX_MICROS })), {
      maxLength: 400,
    });
    const ps = fc.array(
      fc.oneof(fc.constantFrom(0, 50, 99, 99.9, 99.99, 99.999, 100), fc.double({ min: 0, max: 100, noNaN: true })),
      { minLength: 1, maxLength: 14 },
    );
    fc.assert(
      fc.property(values, ps, (vs, list) => {
        const h = histogramOf(vs);
        expect(percentiles(h, list)).toEqual(list.map((p) => percentile(h, p)));
      }),
      { numRuns: 200 },
    );
    // 7 % of 100 is 7.000000000000001 in floating point: the count is 7 (one ulp less, rounded up), not 8.
    const hundred = histogramOf(Array.from({ length: 100 }, (_, i) => (i + 1) * 1000));
    expect(percentiles(hundred, [7])).toEqual([percentile(hundred, 7)]);
    expect(percentiles(hundred, [7])).toEqual([7.003]); // 7 ms, as its highest equivalent value (8 ms: 8.007)
    expect(() => percentiles(histogramOf([1]), [50, 101])).toThrow(RangeError);
  });

  it('merges any number of encodings, none included', () => {
    const parts = [[1000, 2000], [3000], [], [4000, 5000, 6000]];
    const merged = decodeHistogram(mergeEncoded(parts.map((p) => encodeHistogram(histogramOf(p)))));
    expect(summarize(merged)).toEqual(summarize(histogramOf(parts.flat())));
    expect(totalCount(decodeHistogram(mergeEncoded([])))).toBe(0);
  });

  it('addInto adds every value', () => {
    const a = histogramOf([1000, 2000]);
    addInto(a, histogramOf([3000, MAX_MICROS * 2]));
    expect(summarize(a)).toEqual(summarize(histogramOf([1000, 2000, 3000, MAX_MICROS])));
    expect(a.clamped).toBe(1);
  });

  it('rejects what is not an encoded histogram (decoding it, or only checking it)', () => {
    for (const read of [decodeHistogram, checkEncodedHistogram]) {
      expect(() => read('not base64 at all!')).toThrow(/^not an encoded histogram: /);
      expect(() => read('')).toThrow(/^not an encoded histogram: /);
    }
    expect(() => checkEncodedHistogram(encodeHistogram(histogramOf([0, 1000, MAX_MICROS])))).not.toThrow();
  });

  it('rejects a histogram of another precision (decoding it, or only checking it)', () => {
    const coarse = createHistogram('coarse');
    record(coarse, 1000);
    for (const read of [decodeHistogram, checkEncodedHistogram]) {
      expect(() => read(encodeHistogram(coarse))).toThrow(
        'not a petload histogram: 2 significant digits up to 3600000000 µs (expected 3 digits up to 3600000000 µs)',
      );
    }
  });

  it('inflates no more than a histogram of petload takes, whatever the stream holds', () => {
    // The standard layout: header and 9 bytes per count, about 0.2 MB.
    expect(maxInflatedBytes()).toBeGreaterThan(100_000);
    expect(maxInflatedBytes()).toBeLessThan(300_000);
    const full = histogramOf(Array.from({ length: 20_000 }, (_, i) => 1 + i * 180_000));
    expect(() => checkEncodedHistogram(encodeHistogram(full))).not.toThrow();
    const stream = deflateSync(Buffer.alloc(4 * 1024 * 1024));
    const head = Buffer.alloc(8);
    head.writeInt32BE(0x1c849314, 0);
    head.writeInt32BE(stream.length, 4);
    const bomb = Buffer.concat([head, stream]).toString('base64');
    for (const read of [decodeHistogram, checkEncodedHistogram])
      expect(() => read(bomb)).toThrow(/^not a petload histogram: it inflates to more than \d+ bytes/);
  });

  it('checks the header before allocating what it describes', () => {
    const h = histogramOf([1000]);
    const outer = Buffer.from(encodeHistogram(h), 'base64');
    const raw = Buffer.from(inflateRaw(outer));
    raw.writeBigInt64BE(BigInt(2) ** BigInt(62), 24); // highest trackable value: 4.6e18
    const stream = deflateSync(raw);
    const head = Buffer.alloc(8);
    head.writeInt32BE(outer.readInt32BE(0), 0);
    head.writeInt32BE(stream.length, 4);
    expect(() => decodeHistogram(Buffer.concat([head, stream]).toString('base64'))).toThrow(
      /^not a petload histogram: 3 significant digits up to 4611686018427388000 µs/,
    );
  });
});
