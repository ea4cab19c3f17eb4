import { describe, expect, it } from 'vitest';
import type { Clock } from '../core/clock.js';
import type { Exchange } from '../http/exchange.js';
import { buildExchange, FIXED_NOW } from '../testing/exchange-builder.js';
import { mergeSnapshots } from './merge.js';
import { createMetrics, type MetricsSnapshot } from './recorder.js';

const clock: Clock = { scale: 1, now: () => FIXED_NOW, monotonic: () => 10_000, sleep: () => Promise.resolve() };

function exchanges(seed: number, n: number): Exchange[] {
  const ops = ['listPets', 'createPet', 'getPet', null] as const;
  const statuses = [200, 201, 404, 429, 500, null];
  return Array.from({ length: n }, (_, i) => {
    const k = (i * 7919 + seed * 104_729) % 100_003;
    const status = statuses[k % statuses.length]!;
    const t = i * 3;
    return buildExchange({
      operation: ops[k % ops.length]!,
      status,
      ...(status === null ? { headers: {}, error: { kind: 'reset' as const, message: 'reset' } } : {}),
      timing: { intended: t, sent: t + (k % 5), headers: null, done: t + 5 + (k % 2000) / 7 },
    });
  });
}

function snapshotOf(list: readonly Exchange[], dropped = 0): MetricsSnapshot {
  const m = createMetrics({ clock, startMono: 0 });
  for (const ex of list) m.record(ex);
  m.dropped(dropped);
  return m.snapshot();
}

describe('mergeSnapshots', () => {
  it('gives exactly what one recorder of both runs gives: histograms, summaries, counts', () => {
    const a = exchanges(1, 1500);
    const b = exchanges(2, 900);
    const merged = mergeSnapshots(snapshotOf(a, 3), snapshotOf(b, 4));
    const both = snapshotOf([...a, ...b], 7);
    expect(merged.operations).toEqual(both.operations);
    expect({ ...merged.totals, rps: 0 }).toEqual({ ...both.totals, rps: 0 });
  });

  it('adds throughput, as of runs side by side', () => {
    const merged = mergeSnapshots(snapshotOf(exchanges(1, 100)), snapshotOf(exchanges(2, 50)));
    // 100 and 50 requests over 10 real seconds each.
    expect(merged.totals.rps).toBe(15);
  });

  it('keeps operations seen in only one run, in report order', () => {
    const a = snapshotOf([buildExchange({ operation: 'getPet' })]);
    const b = snapshotOf([buildExchange({ operation: null }), buildExchange({ operation: 'listPets' })]);
    const merged = mergeSnapshots(a, b);
    expect(merged.operations.map((o) => o.operation)).toEqual(['listPets', 'getPet', 'other']);
    expect(merged.operations[1]).toEqual(a.operations[0]);
  });

  it('overlays timelines and interleaves key timelines', () => {
    const a = snapshotOf(exchanges(1, 400));
    const b = snapshotOf(exchanges(2, 400));
    const merged = mergeSnapshots(a, b);
    expect(merged.timeline.buckets.map((x) => x.sent)).toEqual(
      a.timeline.buckets.map((x, i) => x.sent + b.timeline.buckets[i]!.sent),
    );
    expect(merged.keyTimelines).toHaveLength(1);
    expect(merged.keyTimelines[0]!.refusals.length).toBe(
      a.keyTimelines[0]!.refusals.length + b.keyTimelines[0]!.refusals.length,
    );
  });

  it('refuses an operation without its `all` histogram', () => {
    const a = snapshotOf([buildExchange()]);
    const { all: _all, ...rest } = a.operations[0]!.histograms;
    const broken: MetricsSnapshot = { ...a, operations: [{ ...a.operations[0]!, histograms: rest }] };
    expect(() => mergeSnapshots(a, broken)).toThrow(
      'operation listPets has no "all" histogram, so it cannot be merged exactly',
    );
  });
});
