/**
 * The deprecated probe against a loopback target that sends no X-RateLimit-* on the list and the get alike
 * (as a limiter speaking only the IETF RateLimit fields does): that is ratelimit.headers-present's failure, not
 * a change of the deprecated endpoint's behaviour. A target that drops them on the get alone still fails it.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { parseScenarioText } from '../config/load-scenario.js';
import { runScenario } from '../engine/run.js';

const KEY = 'free-k1-0123456789abcdef01234567';

/** How the get uses the quota: counted (as the list), never, or given back once as a refilling limiter does. */
type GetQuota = 'counted' | 'never' | 'refill-once';

/** Answers GET /v1/pets and GET /v1/pets/1 with one animal; X-RateLimit-* on the routes asked for. */
function target(
  headersOn: { list: boolean; get: boolean },
  getQuota: GetQuota = 'counted',
): Promise<Server & { gets: number }> {
  let remaining = 60;
  let gets = 0;
  const reset = Math.ceil(Date.now() / 1000) + 60;
  const server = createServer((req, res) => {
    const json = { 'Content-Type': 'application/json' };
    if (req.headers.authorization !== `Bearer ${KEY}`) {
      res
        .writeHead(401, { ...json, 'WWW-Authenticate': 'Bearer' })
        .end('{"code":"unauthorized","message":"no","status":401}');
      return;
    }
    const pet = { id: 1, name: 'rex', categoryId: 1 };
    const list = req.url?.startsWith('/v1/pets?') || req.url === '/v1/pets';
    if (!list) gets++;
    const counted = list || getQuota === 'counted' || (getQuota === 'refill-once' && gets > 1);
    if (counted) remaining--;
    const limits = {
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': String(remaining),
      'X-RateLimit-Reset': String(reset),
    };
    const headers = (list ? headersOn.list : headersOn.get) ? { ...json, ...limits } : json;
    res.writeHead(200, headers).end(JSON.stringify(list ? [pet] : pet));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(Object.defineProperty(server, 'gets', { get: () => gets }) as Server & { gets: number }),
    ),
  );
}

describe('deprecation.behaviour-unchanged without X-RateLimit-*', () => {
  const dirs: string[] = [];
  const servers: Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  let server: Server & { gets: number };
  async function statusOf(headersOn: { list: boolean; get: boolean }, getQuota: GetQuota = 'counted') {
    server = await target(headersOn, getQuota);
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), 'petload-deprecated-'));
    dirs.push(dir);
    const { port } = server.address() as { port: number };
    const { report } = await runScenario({
      scenario: parseScenarioText(
        'name: deprecated-only\ndescription: the deprecated probe\nprobes: [deprecated]\n',
        'inline.yaml',
      ),
      target: {
        kind: 'external',
        url: `http://127.0.0.1:${port}/v1`,
        keys: parseKeys({ keys: [{ key: KEY, plan: 'free' }] }, 'keys'),
      },
      reportDir: dir,
      log: () => {},
    });
    return report.checks.find((c) => c.id === 'deprecation.behaviour-unchanged')!;
  }

  it("missing on the list and the get alike: not this check's failure (the 200 with a Pet passes it)", async () => {
    const c = await statusOf({ list: false, get: false });
    expect(c.status).toBe('pass');
    expect(c.byPlan.flatMap((p) => p.reasons).join(' ')).toMatch(
      /lack x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset too \(see ratelimit.headers-present\)/,
    );
  });

  it('missing on the deprecated get alone: fails', async () => {
    const c = await statusOf({ list: true, get: false });
    expect(c.status).toBe('fail');
    expect(JSON.stringify(c.byPlan.flatMap((p) => p.evidence))).toMatch(/which the list answers around it carry/);
  });

  it('a get that is never counted against the quota fails, after measuring three times', async () => {
    const c = await statusOf({ list: true, get: true }, 'never');
    expect(c.status).toBe('fail');
    expect(c.byPlan.flatMap((p) => p.evidence.map((e) => e.message))).toEqual([
      expect.stringMatching(/the deprecated endpoint does not count against the same quota as the list$/),
    ]);
    expect(server.gets).toBe(3);
  });

  it('a request given back once between two answers (a refilling limiter) is measured again, and passes', async () => {
    const c = await statusOf({ list: true, get: true }, 'refill-once');
    expect(c.status).toBe('pass');
    expect(server.gets).toBe(2);
  });
});
