/**
 * The auth probe alone against a scripted loopback target (src/testing/probe-harness.ts): it has no decision of its
 * own, it sends every endpoint with each credential that is not a valid key, and the passive auth.* checks judge the
 * answers: a store that refuses them all with 401 and a challenge holds, one that lets a Basic credential in fails.
 */
import { describe, expect, it } from 'vitest';
import { errorBody, figuresKey, fixedWindow, PET, runProbeAlone, type Script } from '../testing/probe-harness.js';

const key = figuresKey('free', 1, { perMinute: 100, perDay: 1000 });
const auth = (script: Script) => runProbeAlone({ probe: 'auth', keys: [key], script });

describe('auth probe, alone against a scripted target', () => {
  it('every endpoint with each bad credential: sixteen requests, 401 with a challenge holds all three checks', async () => {
    const run = await auth(fixedWindow([key]));
    expect(run.received).toHaveLength(16);
    expect(new Set(run.received.map((r) => `${r.method} ${r.path}`))).toEqual(
      new Set(['GET /pets', 'POST /pets', 'GET /pets/1', 'GET /store/orders']),
    );
    expect(run.received.filter((r) => r.headers.authorization === undefined)).toHaveLength(4);
    for (const id of ['auth.missing-key', 'auth.invalid-key', 'auth.challenge'] as const)
      expect(run.status(id, null).status).toBe('pass');
  });

  it('a Basic credential let in: auth.invalid-key fails', async () => {
    const limiter = fixedWindow([key]);
    const run = await auth((r) =>
      r.headers.authorization?.startsWith('Basic ') ? { status: 200, body: [PET] } : limiter(r),
    );
    expect(run.status('auth.invalid-key', null).status).toBe('fail');
    expect(run.status('auth.missing-key', null).status).toBe('pass');
  });

  it('GET /store/orders served without a key or with an invalid one: both auth checks fail, naming it', async () => {
    const limiter = fixedWindow([key]);
    const run = await auth((r) => (r.path === '/store/orders' ? { status: 200, body: [{ id: 1 }] } : limiter(r)));
    for (const id of ['auth.missing-key', 'auth.invalid-key'] as const) {
      expect(run.status(id, null).status).toBe('fail');
      expect(run.outcome(id, null)?.evidence.map((e) => e.request)).toContain('GET /store/orders');
    }
  });

  it('GET /store/orders missing (404 before authentication): only contract.every-endpoint fails', async () => {
    const limiter = fixedWindow([key]);
    const run = await auth((r) => (r.path === '/store/orders' ? { status: 404, body: {} } : limiter(r)));
    for (const id of ['auth.missing-key', 'auth.invalid-key', 'auth.challenge'] as const)
      expect(run.status(id, null).status).toBe('pass');
  });

  it('no WWW-Authenticate on the 401s: auth.challenge fails', async () => {
    const run = await auth(() => ({ status: 401, body: errorBody(401) }));
    expect(run.status('auth.challenge', null).status).toBe('fail');
  });
});
