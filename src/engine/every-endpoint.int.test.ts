/**
 * A staging without GET /store/orders: a gateway (node:http, in this test) that answers that path 404 itself, with
 * a body and headers no rule of the interface allows, and passes everything else to a store on loopback. The
 * interface says the endpoint exists, and says nothing else of it: the run gives the advisory warning
 * contract.every-endpoint and nothing else fails, exit 0.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, type ReferenceServer } from '../reference-server/index.js';
import { makeKey } from '../reference-server/test-client.js';
import { readReportJson, runCli, scratch } from '../testing/cli.js';

const s = scratch('petload-every-endpoint-');
const FIGURES = { perMinute: 12, perDay: 1000 };
const SECRETS = ['sk_orders_free_0123456789a', 'sk_orders_free_0123456789b', 'sk_orders_free_0123456789c'];
let store: ReferenceServer;
let gateway: Server;
let gatewayUrl: string;
let seen404 = 0;
/** Of those, requests with a valid key (enforce's request over the limit). */
let keyed404 = 0;

beforeAll(async () => {
  store = await createReferenceServer({
    host: '127.0.0.1',
    port: 0,
    keys: SECRETS.map((k) => makeKey(k, 'free', FIGURES)),
  });
  const upstream = new URL(store.url);
  gateway = createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] === '/v1/store/orders') {
      seen404++;
      if (SECRETS.some((k) => req.headers.authorization === `Bearer ${k}`)) keyed404++;
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Cannot GET /v1/store/orders');
      return;
    }
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((done) => gateway.listen(0, '127.0.0.1', done));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((done) => gateway.close(done));
  await store.close();
});

describe('a staging without GET /store/orders', () => {
  it('gets the advisory warning contract.every-endpoint only, and passes (exit 0)', { timeout: 120_000 }, async () => {
    const scenario = s.file(
      'orders.yaml',
      'name: orders\ndescription: the probes that send to every endpoint\nplans: [free]\nprobes: [auth, enforce]\n',
    );
    const dir = join(s.dir, 'report');
    const keys = s.keys(SECRETS.map((key) => ({ key, plan: 'free', perMinute: 12, perDay: 1000 })));
    const r = await runCli(['run', scenario, '--target', gatewayUrl, '--keys-file', keys, '--report-dir', dir]);
    const report = readReportJson(dir);
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(
      failed.map((c) => c.id),
      `${r.stdout}${r.stderr}`,
    ).toEqual(['contract.every-endpoint']);
    expect(failed[0]!.severity).toBe('advisory');
    expect(JSON.stringify(failed[0]!.byPlan)).toContain('the interface says this endpoint exists');
    expect(r.code).toBe(0);
    expect(seen404).toBeGreaterThanOrEqual(5);
    expect(keyed404).toBe(1);
    // enforce sent its request over the limit there first, then counted on GET /pets as before.
    expect(report.checks.find((c) => c.id === 'ratelimit.enforced')!.status).toBe('pass');
    // Its 404s were judged by nothing else: the auth checks skipped them, naming the advisory check.
    const auth = report.checks.find((c) => c.id === 'auth.missing-key')!;
    expect(auth.status).toBe('pass');
    expect(auth.byPlan.flatMap((p) => p.reasons).join(' ')).toContain('(see contract.every-endpoint)');
  });
});
