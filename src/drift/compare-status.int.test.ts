/**
 * A slowdown of every answer of one status code, judged per code: an independent store (node:http) whose createPet
 * handler became 40 ms slower on every answer it gives (201 and 400), while its 401s and 429s come from middleware
 * before the handler, as fast as before. The 4xx class mixes the slowed 400s with the untouched 401s, and no class
 * holds the slowdown alone; the 400s (and the 201s) do. The reports' latency is the real recorder's, of real
 * exchanges sent by petload's client over loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createClock } from '../core/clock.js';
import type { Report } from '../report/schema.js';
import { testKey } from '../testing/exchange-builder.js';
import { createTestLoadContext } from '../testing/load-context.js';
import { sampleReport } from '../testing/sample-report.js';
import { compareReports } from './compare.js';
import { driftRows } from './drifts.js';

/** Each 20 requests: 6 created, 7 refused as invalid by the handler, 4 unauthenticated, 3 rate-limited. */
const ANSWERS = [...Array(6).fill(201), ...Array(7).fill(400), ...Array(4).fill(401), ...Array(3).fill(429)];
const REQUESTS = 400;
const CONCURRENCY = 2;
const SLOWER_MS = 40;

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

/** The store: its middleware answers 401 and 429 at once; its handler answers 201 and 400 after `handlerMs`. */
async function store(handlerMs: number): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = ANSWERS[n++ % ANSWERS.length]!;
      const headers = { 'content-type': 'application/json', 'x-ratelimit-limit': '1000' };
      const body =
        status === 201
          ? JSON.stringify({ id: n, name: 'Rex', status: 'available' })
          : JSON.stringify({ code: 'refused', message: 'no', status });
      const answer = () => {
        res.writeHead(status, status === 429 ? { ...headers, 'retry-after': '0' } : headers);
        res.end(body);
      };
      if (status === 201 || status === 400) setTimeout(answer, handlerMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** A report whose latency is the load's createPet requests against the store, recorded by the run's recorder. */
async function run(handlerMs: number): Promise<Report> {
  const baseUrl = await store(handlerMs);
  const key = testKey('free');
  const t = createTestLoadContext({ baseUrl, keys: [key], clock: createClock(1) });
  try {
    let next = 0;
    const lane = async () => {
      while (next < REQUESTS) {
        next++;
        await t.ctx.send({
          operation: 'createPet',
          method: 'POST',
          path: '/pets',
          auth: { kind: 'key', key },
          body: JSON.stringify({ name: 'Rex' }),
          tag: 'load',
        });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  } finally {
    await t.close();
  }
  const snap = t.metrics.snapshot();
  return {
    ...structuredClone(sampleReport()),
    totals: snap.totals,
    operations: snap.operations,
    traffic: { measured: 'load', load: ['phase 1 (constant-rate)'], probes: [] },
  };
}

describe('compare: a slowdown of every answer of one status code', { timeout: 60_000 }, () => {
  it('is a regression of the operation, whatever the other codes of its class did', async () => {
    const clean = [await run(0), await run(0)];
    const slower = await run(SLOWER_MS);
    const op = slower.operations.find((o) => o.operation === 'createPet')!;
    expect(op.statusCounts).toEqual({ '201': 120, '400': 140, '401': 80, '429': 60 });
    // The converse first: two runs of the same store, no slowdown, no alarm, either way round.
    const [one, two] = clean as [Report, Report];
    for (const [a, b] of [
      [one, two],
      [two, one],
    ] as const)
      expect(compareReports(a, b).regressions).toEqual([]);

    // Against the quieter of the two clean runs: a stall of a busy machine during a baseline is not what this test
    // is about (the false-alarm tests cover noisy pairs).
    const p90 = (r: Report) => r.operations.find((o) => o.operation === 'createPet')!.latency.p90;
    const before = p90(one) <= p90(two) ? one : two;
    const c = compareReports(before, slower);
    const create = c.operations.find((o) => o.operation === 'createPet')!;
    const breadth = (status: string) => create.test!.statuses!.find((s) => s.status === status)!;
    // Over the 4xx class (400s and 401s) the shift is not broad: the old rule's "a shift of some requests only".
    expect(create.test!.mainKind!.status).toBe('4xx');
    expect(create.test!.mainKind!.superiorityBeyondMargin).toBeLessThan(0.9);
    expect(create.test!.superiorityBeyondMargin).toBeLessThan(0.9);
    expect(breadth('400')).toMatchObject({ n1: 140, n2: 140 });
    // Every 400 and every 201 became slower; the 401s and 429s of the middleware did not.
    const status = (code: string) => create.statuses!.find((s) => s.status === code)!;
    expect(status('400').changeMs).toBeGreaterThan(30);
    // The 400s (and, but for a stall of the machine, the 201s) regress; the 401s and 429s never.
    const regressed = create.statuses!.filter((s) => s.regression).map((s) => s.status);
    expect(regressed).toContain('400');
    expect(regressed.filter((s) => s !== '201' && s !== '400')).toEqual([]);
    expect(create.regression).toBe(true);
    expect(c.regressed).toBe(true);
    expect(c.regressions.map((r) => (r.kind === 'status' ? `${r.operation} ${r.status}` : r.kind))).toEqual(
      expect.arrayContaining(['createPet 400']),
    );
    const row = driftRows(c).find((r) => r.subject === 'createPet 400 p50')!;
    expect(row.verdict).toBe('REGRESSION');
    expect(row.detail).toMatch(/^every 400 answer slower: createPet 400 median [\d.]+ ms -> [\d.]+ ms /);
  });
});
