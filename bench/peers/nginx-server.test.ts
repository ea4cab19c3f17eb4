import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_LIMITS } from '../lib/key.js';
import { detectPinning } from '../lib/processes.js';
import { listBody } from './bare-server.js';
import { type NginxServer, startNginxListServer } from './nginx-server.js';

let server: NginxServer;
beforeAll(async () => {
  server = await startNginxListServer(detectPinning(false));
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

describe("the throughput rounds' nginx", () => {
  it.each(['limit=20', 'limit=3&status=sold', 'status=pending', 'limit=100&status=available', '', 'limit=abc'])(
    'answers /pets?%s with the bare peer’s list, as JSON, with the rate-limit triple',
    async (query) => {
      const res = await fetch(`${server.url}/pets${query === '' ? '' : `?${query}`}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.text()).toBe(listBody(query).toString());
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(BENCH_LIMITS.perMinute));
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(BENCH_LIMITS.perMinute - 1));
      // Reset: the end of the minute the answer was given in (a second of slack on either side of the request).
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      const nowS = Date.now() / 1000;
      expect(reset % 60).toBe(0);
      expect(reset).toBeGreaterThan(nowS - 1);
      expect(reset).toBeLessThanOrEqual(Math.floor((nowS + 1) / 60) * 60 + 60);
      expect(res.headers.get('date')).not.toBeNull();
    },
  );

  it('names the worker that answers (its CPU time is the server’s)', () => {
    expect(server.pid).toBeGreaterThan(0);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });
});
