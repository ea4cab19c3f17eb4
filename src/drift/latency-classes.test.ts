/**
 * The breadth condition by kind of answer, and latency compared only within one traffic class (docs/compare.md).
 */
import { describe, expect, it } from 'vitest';
import { createHistogram, encodeHistogram, record, summarize } from '../metrics/histogram.js';
import type { Report } from '../report/schema.js';
import { logNormal } from '../testing/drift-histograms.js';
import { sampleReport } from '../testing/sample-report.js';
import { compareReports } from './compare.js';
import { driftRows } from './drifts.js';

const hist = (micros: readonly number[]) => {
  const h = createHistogram();
  for (const v of micros) record(h, v);
  return h;
};

/** The sample report with createPet answered 201 at `created` and 401 at `refused` latencies (µs). */
function createPet(created: readonly number[], refused: readonly number[]): Report {
  const r = structuredClone(sampleReport());
  const op = r.operations.find((o) => o.operation === 'createPet')!;
  const all = [...created, ...refused];
  op.count = all.length;
  op.statusCounts = { '201': created.length, '401': refused.length };
  op.latency = summarize(hist(all));
  op.serviceTime = op.latency;
  op.histograms = {
    all: encodeHistogram(hist(all)),
    serviceTime: encodeHistogram(hist(all)),
    '2xx': encodeHistogram(hist(created)),
    '4xx': encodeHistogram(hist(refused)),
  };
  r.traffic = { measured: 'probes', load: [], probes: ['create-get', 'auth'] };
  return r;
}

// 860 answers around 2 ms and 140 refusals around 0.5 ms (the auth probe's 401s, answered before the handler).
const ANSWERS = logNormal(860, 2000, 0.35, 5);
const REFUSALS = logNormal(140, 500, 0.2, 6);
const drift = (b: Report, c: Report) => compareReports(b, c).operations.find((o) => o.operation === 'createPet')!;

describe('compare: a slowdown every answer carries', () => {
  it('is a regression though the refusals, answered before the slow part, were not slowed', () => {
    // The store adds 40 ms to every createPet answer; its limiter's and its auth's refusals come back as fast.
    const b = createPet(ANSWERS, REFUSALS);
    const c = createPet(
      ANSWERS.map((v) => v + 40_000),
      REFUSALS,
    );
    const op = drift(b, c);
    // Over every request, 14 % of pairs are not slower: the old rule called this "a shift of some requests only".
    expect(op.test!.superiorityBeyondMargin).toBeGreaterThan(0.8);
    expect(op.test!.superiorityBeyondMargin).toBeLessThan(0.9);
    expect(op.test!.mainKind).toMatchObject({ status: '2xx', n1: 860, n2: 860 });
    expect(op.test!.mainKind!.superiorityBeyondMargin).toBeGreaterThan(0.99);
    expect(op.test!.broad).toBe(true);
    expect(op.regression).toBe(true);
    const row = driftRows(compareReports(b, c)).find((r) => r.subject === 'createPet p99')!;
    expect(row.verdict).toBe('REGRESSION');
    expect(row.detail).toMatch(/A\(\+5\.0 ms\)=0\.8\d; 2xx: A\(\+5\.0 ms\)=1\.00$/);
  });

  it('is no regression when only a tail of the answers is slower', () => {
    const b = createPet(ANSWERS, REFUSALS);
    // 3 % of the answers 60 ms slower: p99 rises far, but most answers did not move.
    const c = createPet(
      ANSWERS.map((v, i) => (i % 33 === 0 ? v + 60_000 : v)),
      REFUSALS,
    );
    const op = drift(b, c);
    const p99 = op.percentiles.find((p) => p.percentile === 'p99')!;
    expect(p99.large).toBe(true);
    expect(op.test!.mainKind!.superiorityBeyondMargin).toBeLessThan(0.1);
    expect(op.test!.broad).toBe(false);
    expect(op.regression).toBe(false);
  });

  it('has no main kind when no kind holds half of each side', () => {
    const b = createPet(ANSWERS.slice(0, 400), logNormal(600, 500, 0.2, 7));
    const op = drift(b, b);
    expect(op.test!.mainKind).toMatchObject({ status: '4xx' });
    const even = createPet(ANSWERS.slice(0, 300), REFUSALS.slice(0, 100));
    expect(drift(even, even).test!.mainKind).toMatchObject({ status: '2xx' });
  });
});

/** createPet answered 201, 400 and 401 (µs each), with a histogram per class and, unless `old`, per code. */
function byCode(codes: Record<'201' | '400' | '401', readonly number[]>, old = false): Report {
  const r = createPet(codes['201'], [...codes['400'], ...codes['401']]);
  const op = r.operations.find((o) => o.operation === 'createPet')!;
  op.statusCounts = { '201': codes['201'].length, '400': codes['400'].length, '401': codes['401'].length };
  if (!old) for (const [code, v] of Object.entries(codes)) op.histograms[code] = encodeHistogram(hist(v));
  return r;
}

describe('compare: a slowdown of every answer of one status code', () => {
  const codes = { '201': logNormal(100, 2000, 0.35, 11), '400': logNormal(300, 1500, 0.3, 12), '401': REFUSALS };

  it('is a regression though its class mixes it with a code that did not move', () => {
    const slower = { ...codes, '400': codes['400'].map((v) => v + 40_000) };
    const c = compareReports(byCode(codes), byCode(slower));
    const op = c.operations.find((o) => o.operation === 'createPet')!;
    expect(op.test!.mainKind).toMatchObject({ status: '4xx' });
    expect(op.test!.mainKind!.superiorityBeyondMargin).toBeLessThan(0.9);
    expect(op.statuses!.map((s) => [s.status, s.regression])).toEqual([
      ['201', false],
      ['400', true],
      ['401', false],
    ]);
    expect(op.regression).toBe(true);
    expect(c.regressions.filter((r) => r.kind === 'status').map((r) => r.message)).toEqual([
      expect.stringMatching(
        /^createPet 400 median 1\.\d+ ms -> 4\d\.\d ms \(\+\d+\.\d ms, \+\d+ %\); 300 and 300 answers 400, /,
      ),
    ]);
  });

  it('is no regression for a tail, and not judged in a report of an older version (per class only)', () => {
    const tail = { ...codes, '400': codes['400'].map((v, i) => (i % 20 === 0 ? v + 40_000 : v)) };
    const op = compareReports(byCode(codes), byCode(tail)).operations.find((o) => o.operation === 'createPet')!;
    expect(op.statuses!.find((s) => s.status === '400')!.regression).toBe(false);
    const slower = { ...codes, '400': codes['400'].map((v) => v + 40_000) };
    const old = compareReports(byCode(codes, true), byCode(slower, true));
    expect(old.operations.find((o) => o.operation === 'createPet')!.statuses).toEqual([]);
  });
});

describe('compare: latency only within one traffic class', () => {
  it("refuses to judge the load's latency against the probes', and says so", () => {
    const probes = createPet(ANSWERS, REFUSALS);
    const load = createPet(
      ANSWERS.map((v) => v + 40_000),
      REFUSALS,
    );
    load.traffic = { measured: 'load', load: ['phase 1 (constant-rate)'], probes: [] };
    const c = compareReports(probes, load);
    expect(c.latencyTraffic).toEqual({ baseline: 'probes', current: 'load', compared: false });
    expect(c.regressed).toBe(false);
    expect(c.differences.join('\n')).toMatch(
      /^latency not compared: the baseline's latency is of the probes' requests/m,
    );
    for (const op of c.operations) {
      expect(op.test).toBeNull();
      expect(op.note).toMatch(/^not compared: /);
    }
    // No SLOWER or requests/s row: what is not compared does not drift.
    expect(driftRows(c).filter((r) => /^(listPets|createPet|getPet) /.test(r.subject))).toEqual([]);
  });

  it('reads a report of an older version (no traffic) as every request together, compared only with its like', () => {
    const old = createPet(ANSWERS, REFUSALS);
    delete old.traffic;
    expect(compareReports(old, old).latencyTraffic).toEqual({ baseline: 'all', current: 'all', compared: true });
    expect(compareReports(old, createPet(ANSWERS, REFUSALS)).latencyTraffic?.compared).toBe(false);
  });
});
