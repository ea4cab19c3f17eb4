import { describe, expect, it } from 'vitest';
import type { Clock } from '../core/clock.js';
import { ReportSchema } from '../report/schema.js';
import { buildExchange, FIXED_NOW, FREE_LABEL } from '../testing/exchange-builder.js';
import { decodeHistogram, summarize } from './histogram.js';
import { KEY_TIMELINE_CAP } from './key-timelines.js';
import { createMetrics, MAX_STATUS_HISTOGRAMS, statusClass } from './recorder.js';
import { MAX_TIMELINE_BUCKETS } from './timeline.js';

const SnapshotSchema = ReportSchema.pick({
  totals: true,
  operations: true,
  timeline: true,
  keyTimelines: true,
  traffic: true,
  probeOperations: true,
}).strict();

/** A run clock standing still at `mono` (run-clock ms), `scale` times faster than real time. */
function clockAt(scale: number, mono: number): Clock {
  return { scale, now: () => FIXED_NOW, monotonic: () => mono, sleep: () => Promise.resolve() };
}

const START = 100_000;

function expectNear(actualMs: number, expectedMs: number): void {
  expect(Math.abs(actualMs - expectedMs)).toBeLessThanOrEqual(expectedMs / 1000 + 0.001);
}

describe('createMetrics', () => {
  function sampleRun() {
    const m = createMetrics({ clock: clockAt(10, START + 20_000), startMono: START });
    // Run clock ×10: 1000 run-ms from intended to done is 100 real ms.
    m.record(
      buildExchange({
        status: 200,
        timing: { intended: START, sent: START + 500, headers: START + 900, done: START + 1000 },
      }),
    );
    m.record(
      buildExchange({ status: 429, timing: { intended: START, sent: START, headers: START + 100, done: START + 100 } }),
    );
    m.record(
      buildExchange({
        operation: 'createPet',
        status: 201,
        timing: { intended: START + 5000, sent: START + 5000, headers: null, done: START + 5200 },
      }),
    );
    m.record(
      buildExchange({
        operation: null,
        status: 404,
        timing: { intended: START + 5000, sent: START + 5000, headers: START + 5010, done: START + 5010 },
      }),
    );
    m.record(
      buildExchange({
        operation: 'getPet',
        status: null,
        headers: {},
        error: { kind: 'timeout', message: 'timed out' },
        timing: { intended: START + 5500, sent: START + 5600, headers: null, done: START + 15_600 },
      }),
    );
    m.dropped();
    m.dropped(3);
    return m;
  }

  it('counts requests, statuses, transport errors and dropped sends; rps per real second', () => {
    const snap = sampleRun().snapshot();
    // 20 000 run-ms at ×10 are 2 real seconds.
    expect(snap.totals).toEqual({
      requests: 5,
      dropped: 4,
      transportErrors: 1,
      statusCounts: { '200': 1, '201': 1, '404': 1, '429': 1, error: 1 },
      rps: 2.5,
    });
  });

  it('counts every status and times each in its class, whatever order the statuses and operations come in', () => {
    const m = createMetrics({ clock: clockAt(1, START + 1000), startMono: START });
    const statuses = [200, 429, 200, 503, null, 200, 404, 429, 999, 200];
    for (const [i, status] of statuses.entries())
      m.record(
        buildExchange({
          operation: i % 3 === 0 ? 'getPet' : 'listPets',
          status,
          headers: {},
          ...(status === null ? { error: { kind: 'reset', message: 'reset' } } : {}),
          // Each status has a latency of its own: status ms (a transport error 7 ms).
          timing: { intended: START, sent: START, headers: null, done: START + (status ?? 7) },
        }),
      );
    const snap = m.snapshot();
    expect(snap.totals.statusCounts).toEqual({ '200': 4, '404': 1, '429': 2, '503': 1, '999': 1, error: 1 });
    const count = (op: string, cls: string) => {
      const h = snap.operations.find((o) => o.operation === op)!.histograms[cls];
      return h === undefined ? 0 : summarize(decodeHistogram(h)).count;
    };
    const max = (op: string, cls: string) =>
      summarize(decodeHistogram(snap.operations.find((o) => o.operation === op)!.histograms[cls]!)).max;
    // getPet: 200, 503, 404, 200; listPets: 429, 200, null, 200, 429, 999.
    expect([count('getPet', '2xx'), count('getPet', '5xx'), count('getPet', '4xx')]).toEqual([2, 1, 1]);
    expect([
      count('listPets', '2xx'),
      count('listPets', '429'),
      count('listPets', 'error'),
      count('listPets', '9xx'),
    ]).toEqual([2, 2, 1, 1]);
    expectNear(max('getPet', '5xx'), 503);
    expectNear(max('listPets', '429'), 429);
    expectNear(max('getPet', '4xx'), 404);
    expectNear(max('listPets', '9xx'), 999);
    expectNear(max('listPets', 'error'), 7);
    // Each status code has a histogram of its own besides its class's (the class 429 is the code 429).
    expect([count('getPet', '200'), count('getPet', '503'), count('getPet', '404')]).toEqual([2, 1, 1]);
    expectNear(max('listPets', '999'), 999);
  });

  it('keeps a bounded number of per-code histograms, the most answered codes', () => {
    const m = createMetrics({ clock: clockAt(1, START + 1000), startMono: START });
    // 100 codes answered once each, and 404 answered twice: the most answered code is kept first.
    for (const status of [404, 404, ...Array.from({ length: 100 }, (_, i) => 200 + i)])
      m.record(
        buildExchange({
          status,
          headers: {},
          timing: { intended: START, sent: START, headers: null, done: START + 1 },
        }),
      );
    const op = m.snapshot().operations[0]!;
    const codes = Object.keys(op.histograms).filter((k) => /^\d{3}$/.test(k) && k !== '429');
    expect(codes).toHaveLength(MAX_STATUS_HISTOGRAMS);
    expect(codes).toContain('404');
    expect(summarize(decodeHistogram(op.histograms['2xx']!)).count).toBe(100);
  });

  it('times each status code apart within its class, the class being their exact sum', () => {
    const m = createMetrics({ clock: clockAt(1, START + 1000), startMono: START });
    for (const status of [201, 400, 401, 400, 429, 201])
      m.record(
        buildExchange({
          operation: 'createPet',
          status,
          headers: {},
          timing: { intended: START, sent: START, headers: null, done: START + status },
        }),
      );
    const op = m.snapshot().operations[0]!;
    expect(Object.keys(op.histograms).sort()).toEqual(['201', '2xx', '400', '401', '429', '4xx', 'all', 'serviceTime']);
    const of = (name: string) => summarize(decodeHistogram(op.histograms[name]!));
    expect([of('400').count, of('401').count, of('4xx').count, of('201').count]).toEqual([2, 1, 3, 2]);
    expectNear(of('400').max, 400);
    expectNear(of('401').min, 401);
    expectNear(of('4xx').min, 400);
    expectNear(of('4xx').max, 401);
    expect(of('all').count).toBe(6);
  });

  it('summarises latency per operation in real milliseconds, from the intended send time', () => {
    const snap = sampleRun().snapshot();
    expect(snap.operations.map((o) => o.operation)).toEqual(['listPets', 'createPet', 'getPet', 'other']);
    const [list, create, get, other] = snap.operations;
    expect(list).toMatchObject({ count: 2, statusCounts: { '200': 1, '429': 1 } });
    expect(Object.keys(list!.histograms).sort()).toEqual(['200', '2xx', '429', 'all', 'serviceTime']);
    expectNear(list!.latency.max, 100);
    expectNear(list!.latency.min, 10);
    expect(list!.latency.count).toBe(2);
    // Service time runs from the actual send: 50 ms and 10 ms.
    expectNear(list!.serviceTime.max, 50);
    expectNear(list!.serviceTime.min, 10);
    expectNear(summarize(decodeHistogram(list!.histograms['429']!)).max, 10);
    expectNear(summarize(decodeHistogram(list!.histograms['2xx']!)).max, 100);
    expect(summarize(decodeHistogram(list!.histograms.all!))).toEqual(list!.latency);
    expect(summarize(decodeHistogram(list!.histograms.serviceTime!))).toEqual(list!.serviceTime);
    expectNear(create!.latency.p50, 20);
    expect(Object.keys(get!.histograms).sort()).toEqual(['all', 'error', 'serviceTime']);
    expect(get!.statusCounts).toEqual({ error: 1 });
    expectNear(get!.latency.max, 1010);
    expectNear(get!.serviceTime.max, 1000);
    expect(other).toMatchObject({ count: 1, statusCounts: { '404': 1 } });
    expect(Object.keys(other!.histograms).sort()).toEqual(['404', '4xx', 'all', 'serviceTime']);
  });

  it('places the timeline and key timelines on the run clock from the start', () => {
    const snap = sampleRun().snapshot();
    expect(snap.timeline.bucketMs).toBe(1000);
    expect(snap.timeline.buckets.map((b) => b.sent)).toEqual([2, 0, 0, 0, 0, 3]);
    expect(snap.timeline.buckets[0]).toMatchObject({ t: 0, s2xx: 1, s429: 1 });
    expect(snap.timeline.buckets[5]).toMatchObject({ t: 5000, s2xx: 1, s4xx: 1, errors: 1 });
    // Timeline histograms keep 2 significant digits: within 1%.
    expect(Math.abs(snap.timeline.buckets[0]!.p99! - 100)).toBeLessThanOrEqual(1);
    // Key samples at headers time (done when no headers time), ms since the start.
    expect(snap.keyTimelines).toEqual([
      {
        key: FREE_LABEL,
        plan: 'free',
        remaining: [
          [900, 59, 60],
          [100, 59, 60],
          [5200, 59, 60],
          [5010, 59, 60],
        ],
        refusals: [[100, null, 30]],
      },
    ]);
  });

  it('produces what report.json carries', () => {
    expect(() => SnapshotSchema.parse(sampleRun().snapshot())).not.toThrow();
    expect(() => SnapshotSchema.parse(createMetrics({ clock: clockAt(1, 0), startMono: 0 }).snapshot())).not.toThrow();
  });

  it('an empty run has zero totals, no operations and empty timelines', () => {
    expect(createMetrics({ clock: clockAt(1, 0), startMono: 0 }).snapshot()).toEqual({
      totals: { requests: 0, dropped: 0, transportErrors: 0, statusCounts: {}, rps: 0 },
      operations: [],
      traffic: { measured: 'load', load: [], probes: [] },
      timeline: { bucketMs: 1000, buckets: [] },
      keyTimelines: [],
    });
  });

  it("keeps the load's traffic and the probes' apart, each sender by name", () => {
    const m = createMetrics({ clock: clockAt(1, 10_000), startMono: 0 });
    const ex = (ms: number, traffic?: { class: 'load' | 'probes'; name: string }) => ({
      ...buildExchange({ timing: { intended: 0, sent: 0, headers: ms, done: ms } }),
      ...(traffic ? { traffic } : {}),
    });
    for (let i = 0; i < 10; i++) m.record(ex(2, { class: 'load', name: 'phase 1 (constant-rate)' }));
    m.record(ex(3)); // no source: the load's, named by its tag
    for (let i = 0; i < 4; i++) m.record(ex(900, { class: 'probes', name: 'burst' }));
    const s = m.snapshot();
    expect(s.traffic).toEqual({ measured: 'load', load: ['phase 1 (constant-rate)', 'test'], probes: ['burst'] });
    expect(s.operations.map((o) => [o.operation, o.count])).toEqual([['listPets', 11]]);
    expect(s.operations[0]!.latency.max).toBeLessThan(10);
    expect(s.probeOperations!.map((o) => [o.operation, o.count])).toEqual([['listPets', 4]]);
    expectNear(s.probeOperations![0]!.latency.p50, 900);
    expect(s.totals.requests).toBe(15);
    expect(s.timeline.buckets.reduce((n, b) => n + b.sent, 0)).toBe(11);
  });

  it("measures the probes' traffic in a run without load, and says so", () => {
    const m = createMetrics({ clock: clockAt(1, 10_000), startMono: 0 });
    m.record({ ...buildExchange({}), traffic: { class: 'probes', name: 'auth' } });
    const s = m.snapshot();
    expect(s.traffic).toEqual({ measured: 'probes', load: [], probes: ['auth'] });
    expect(s.operations.map((o) => o.count)).toEqual([1]);
    expect(s.probeOperations).toBeUndefined();
  });

  it('reports cheap progress figures', () => {
    const m = createMetrics({ clock: clockAt(1, 0), startMono: 0 });
    expect(m.progress()).toEqual({
      requests: 0,
      dropped: 0,
      transportErrors: 0,
      s2xx: 0,
      s4xx: 0,
      s429: 0,
      s5xx: 0,
      p99: null,
    });
    const p = sampleRun().progress();
    expect(p).toMatchObject({ requests: 5, dropped: 4, transportErrors: 1, s2xx: 2, s4xx: 1, s429: 1, s5xx: 0 });
    expectNear(p.p99!, 1010);
  });

  it('stays bounded over a long run', () => {
    const m = createMetrics({ clock: clockAt(600, 50_000_000), startMono: 0 });
    for (let i = 0; i < 20_000; i++) {
      const t = i * 2_500;
      m.record(
        buildExchange({
          status: i % 7 === 0 ? 429 : 200,
          headers: { 'x-ratelimit-remaining': String(59 - (i % 60)), 'retry-after': '2' },
          timing: { intended: t, sent: t, headers: t + 50, done: t + 60 },
        }),
      );
    }
    const snap = m.snapshot();
    expect(snap.totals.requests).toBe(20_000);
    expect(snap.timeline.buckets.length).toBeLessThanOrEqual(MAX_TIMELINE_BUCKETS);
    expect(snap.timeline.buckets.reduce((n, b) => n + b.sent, 0)).toBe(20_000);
    expect(snap.keyTimelines[0]!.remaining.length).toBeLessThanOrEqual(KEY_TIMELINE_CAP);
    expect(snap.keyTimelines[0]!.refusals.length).toBeLessThanOrEqual(KEY_TIMELINE_CAP);
    // 60 run-ms at ×600 is 0.1 real ms.
    expectNear(snap.operations[0]!.latency.max, 0.1);
  });
});

describe('statusClass', () => {
  it.each([
    [200, '2xx'],
    [204, '2xx'],
    [301, '3xx'],
    [404, '4xx'],
    [429, '429'],
    [503, '5xx'],
    [null, 'error'],
  ] as const)('%s is %s', (status, cls) => {
    expect(statusClass(status)).toBe(cls);
  });
});
