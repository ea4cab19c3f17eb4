import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { makeKey } from '../reference-server/test-client.js';
import { parseLoad, startLoadTarget, type LoadTarget } from '../testing/load-context.js';
import { runLoad } from './run-load.js';

const business = makeKey('business-key-secret-0201', 'business', PLANS.business);

const targets: LoadTarget[] = [];
afterEach(async () => {
  for (const t of targets.splice(0)) await t.stop();
});

describe('saturate', () => {
  it('measures maximum throughput through autocannon for the run-clock duration and records it as load.capacity', async () => {
    const t = await startLoadTarget([business], 10);
    targets.push(t);
    // 3 s of run clock at scale 10: 0.3 s of real time.
    const outcome = await runLoad(
      t.ctx,
      parseLoad({ phases: [{ executor: 'saturate', connections: 4, duration: '3s' }] }),
    );
    const [result] = outcome.phases[0]!.saturate!;
    expect(result).toMatchObject({ plan: 'business', key: business.label, connections: 4 });
    expect(result!.durationS).toBeGreaterThan(0.2);
    expect(result!.durationS).toBeLessThan(2);
    expect(result!.requests).toBeGreaterThan(0);
    expect(result!.requestsPerSecond).toBeCloseTo(result!.requests / result!.durationS, 6);
    expect(Object.values(result!.statusCounts).reduce((a, b) => a + b, 0)).toBe(result!.requests);
    expect(result!.non2xx).toBe(
      result!.requests - (result!.statusCounts['200'] ?? 0) - (result!.statusCounts['201'] ?? 0),
    );
    expect(result!.latencyMs.p99).toBeGreaterThanOrEqual(result!.latencyMs.p50);
    const capacity = t.ledger.all().find((o) => o.id === 'load.capacity' && o.plan === 'business');
    expect(capacity?.info['phase 1 (saturate)']).toEqual(result);
    expect(JSON.stringify([outcome, t.ledger.all(), t.logs])).not.toContain(business.secret);
    // Its traffic bypasses the engine's client: nothing to judge exchange by exchange.
    expect(t.exchanges).toHaveLength(0);
  });

  it("feeds the run's metrics with every answer autocannon got, by operation and status, as other executors do", async () => {
    const t = await startLoadTarget([business], 10);
    targets.push(t);
    const outcome = await runLoad(
      t.ctx,
      parseLoad({
        mix: { listPets: 1, createPet: 1 },
        phases: [{ executor: 'saturate', connections: 4, duration: '3s' }],
      }),
    );
    const [result] = outcome.phases[0]!.saturate!;
    const snap = t.metrics.snapshot();
    // The same answers autocannon counted, status by status, and its failures as transport errors.
    expect(snap.totals.requests).toBe(result!.requests + result!.errors);
    expect(snap.totals.transportErrors).toBe(result!.errors);
    const { error: _errors, ...statuses } = snap.totals.statusCounts;
    expect(statuses).toEqual(result!.statusCounts);
    // Attributed to the operations of the mix (both were drawn among the 64 requests autocannon cycles through).
    const ops = Object.fromEntries(snap.operations.map((o) => [o.operation, o.count]));
    expect(ops.listPets).toBeGreaterThan(0);
    expect(ops.createPet).toBeGreaterThan(0);
    expect(ops.getPet).toBeUndefined();
    expect(snap.operations.find((o) => o.operation === 'createPet')?.statusCounts['201']).toBeGreaterThan(0);
    // Latency from autocannon's own times, in real milliseconds (not run-clock ones): every answer took less
    // than the phase's real duration, and the slowest at least as long as autocannon's median 2xx.
    const all = snap.operations.reduce((n, o) => n + o.latency.count, 0);
    expect(all).toBe(snap.totals.requests);
    const slowest = Math.max(...snap.operations.map((o) => o.latency.max));
    expect(slowest).toBeLessThanOrEqual(result!.durationS * 1000);
    expect(slowest).toBeGreaterThanOrEqual(result!.latencyMs.p50);
    // The key timeline read the rate-limit headers of the answers.
    expect(snap.keyTimelines.find((k) => k.key === business.label)?.remaining.length).toBeGreaterThan(0);
  });

  it("sends the run's headers with petload's own credential, and is skipped through a proxy it cannot use", async () => {
    const t = await startLoadTarget([business], 10);
    targets.push(t);
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const headers: [string, string][] = [
      ['user-agent', 'petload/test'],
      ['x-tenant', 'acme'],
    ];
    const load = parseLoad({ phases: [{ executor: 'saturate', connections: 2, duration: '1s' }] });
    try {
      await runLoad({ ...t.ctx, baseUrl, network: { headers } }, load);
      expect(seen.length).toBeGreaterThan(0);
      for (const h of seen) {
        expect(h).toMatchObject({ 'user-agent': 'petload/test', 'x-tenant': 'acme' });
        expect(h.authorization).toBe(`Bearer ${business.secret}`);
      }
      const sent = seen.length;
      const proxied = await runLoad({ ...t.ctx, baseUrl, network: { headers, proxy: 'http://127.0.0.1:9' } }, load);
      expect(proxied.phases[0]!.saturate).toEqual([]);
      expect(t.logs).toContain(
        'phase 1 (saturate): saturate skipped: autocannon cannot go through a proxy (HTTP_PROXY/HTTPS_PROXY)',
      );
      expect(seen).toHaveLength(sent);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
