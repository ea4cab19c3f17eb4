import { describe, expect, it } from 'vitest';
import { MAX_TIMELINE_BUCKETS, mergeTimelines, Timeline, type TimelineBucket } from './timeline.js';

const zero = (t: number): TimelineBucket => ({ t, sent: 0, s2xx: 0, s4xx: 0, s429: 0, s5xx: 0, errors: 0, p99: null });
const sum = (buckets: TimelineBucket[], k: 'sent' | 's2xx' | 's4xx' | 's429' | 's5xx' | 'errors') =>
  buckets.reduce((n, b) => n + b[k], 0);

describe('Timeline', () => {
  it('buckets sends by time with their status mix and p99', () => {
    const tl = new Timeline(1000, 10);
    tl.add(0, 200, 5_000);
    tl.add(999, 201, 7_000);
    tl.add(1000, 404, 1_000);
    tl.add(1500, 429, 2_000);
    tl.add(1600, 503, 3_000);
    tl.add(1700, null, 30_000_000);
    tl.add(1800, 301, 1_000);
    const { bucketMs, buckets } = tl.snapshot();
    expect(bucketMs).toBe(1000);
    expect(buckets).toHaveLength(2);
    expect(buckets[0]).toMatchObject({ t: 0, sent: 2, s2xx: 2, s4xx: 0, s429: 0, s5xx: 0, errors: 0 });
    expect(buckets[0]!.p99).toBeCloseTo(7, 1);
    // 429 is not a 4xx here; a 3xx counts only as sent.
    expect(buckets[1]).toMatchObject({ t: 1000, sent: 5, s2xx: 0, s4xx: 1, s429: 1, s5xx: 1, errors: 1 });
    expect(buckets[1]!.p99).toBeGreaterThan(29_000);
  });

  it('fills gaps with empty buckets and puts sends before the start in the first', () => {
    const tl = new Timeline(1000, 10);
    tl.add(-50, 200, 1000);
    tl.add(3500, 200, 1000);
    const { buckets } = tl.snapshot();
    expect(buckets.map((b) => b.sent)).toEqual([1, 0, 0, 1]);
    expect(buckets[1]).toEqual(zero(1000));
  });

  it('doubles its width, merging pairs, instead of growing beyond its cap', () => {
    const tl = new Timeline(1000, 10);
    for (let t = 0; t < 10_000; t += 100) tl.add(t, 200, 1000);
    expect(tl.snapshot().bucketMs).toBe(1000);
    expect(tl.snapshot().buckets).toHaveLength(10);
    tl.add(10_000, 429, 1000);
    const { bucketMs, buckets } = tl.snapshot();
    expect(bucketMs).toBe(2000);
    expect(buckets).toHaveLength(6);
    expect(buckets.slice(0, 5).map((b) => b.sent)).toEqual([20, 20, 20, 20, 20]);
    expect(buckets[5]).toMatchObject({ t: 10_000, sent: 1, s429: 1 });
    // A send far ahead doubles several times at once.
    tl.add(100_000, 200, 1000);
    expect(tl.snapshot().bucketMs).toBe(16_000);
    expect(sum(tl.snapshot().buckets, 'sent')).toBe(102);
  });

  it('stays within MAX_TIMELINE_BUCKETS over a long run and keeps every count', () => {
    const tl = new Timeline();
    for (let i = 0; i < 50_000; i++) tl.add(i * 2_000, i % 10 === 0 ? 429 : 200, 1000 + (i % 100) * 1000);
    const { buckets, bucketMs } = tl.snapshot();
    expect(buckets.length).toBeLessThanOrEqual(MAX_TIMELINE_BUCKETS);
    expect(buckets.length).toBeGreaterThan(MAX_TIMELINE_BUCKETS / 2);
    expect(sum(buckets, 'sent')).toBe(50_000);
    expect(sum(buckets, 's429')).toBe(5_000);
    expect(buckets.every((b, i) => b.t === i * bucketMs)).toBe(true);
    expect(buckets.every((b) => b.p99 !== null && b.p99 >= 99 && b.p99 <= 101)).toBe(true);
  });
});

describe('mergeTimelines', () => {
  it('overlays two runs from their starts at the wider width; p99 is the larger', () => {
    const a = new Timeline(1000, 10);
    a.add(0, 200, 10_000);
    a.add(1000, 200, 10_000);
    a.add(2500, 503, 10_000);
    const b = new Timeline(1000, 10);
    for (let t = 0; t < 20_000; t += 1000) b.add(t, 429, 20_000);
    const m = mergeTimelines(a.snapshot(), b.snapshot(), 10);
    expect(m.bucketMs).toBe(2000);
    expect(m.buckets).toHaveLength(10);
    expect(m.buckets[0]).toMatchObject({ t: 0, sent: 4, s2xx: 2, s429: 2 });
    expect(m.buckets[1]).toMatchObject({ t: 2000, sent: 3, s5xx: 1, s429: 2 });
    expect(m.buckets[0]!.p99).toBeCloseTo(20, 0);
    expect(sum(m.buckets, 'sent')).toBe(23);
  });

  it('widens further when the overlay would exceed the cap', () => {
    const m = mergeTimelines(
      { bucketMs: 1000, buckets: [zero(0)] },
      { bucketMs: 1000, buckets: [{ ...zero(25_000), sent: 3 }] },
      10,
    );
    expect(m.bucketMs).toBe(4000);
    expect(m.buckets).toHaveLength(7);
    expect(m.buckets[6]).toEqual({ ...zero(24_000), sent: 3 });
  });

  it('stays within the cap whatever timelines read from files say (zero width, negative or far starts)', () => {
    const m = mergeTimelines(
      { bucketMs: 0, buckets: [{ ...zero(-5000), sent: 1 }] },
      { bucketMs: -3, buckets: [{ ...zero(1e15), sent: 2 }] },
    );
    expect(m.buckets.length).toBeLessThanOrEqual(MAX_TIMELINE_BUCKETS);
    expect(sum(m.buckets, 'sent')).toBe(3);
  });

  it('of two empty timelines is empty', () => {
    expect(mergeTimelines({ bucketMs: 1000, buckets: [] }, { bucketMs: 2000, buckets: [] })).toEqual({
      bucketMs: 2000,
      buckets: [],
    });
  });
});
