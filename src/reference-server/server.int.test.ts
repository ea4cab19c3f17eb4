import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody, Pet, Pets } from '../api/schemas.js';
import { createReferenceServer, type ReferenceServer } from './index.js';
import { call, rate, type Reply } from './test-client.js';

let server: ReferenceServer;
const free = () => server.keys[0]!;
const pro = () => server.keys[1]!;
const business = () => server.keys[2]!;

/** Date on the server clock, Content-Type and the rate-limit triple, on every response. */
function expectSharedHeaders(r: Reply): void {
  expect(r.headers.get('content-type')).toBe('application/json');
  const { limit, remaining, reset, date } = rate(r);
  expect(Number.isInteger(limit) && limit > 0).toBe(true);
  expect(Number.isInteger(remaining) && remaining >= 0 && remaining <= limit).toBe(true);
  expect(Math.abs(date - server.clock.now() / 1000)).toBeLessThan(3);
  expect(reset).toBeGreaterThanOrEqual(date);
  expect(reset).toBeLessThanOrEqual(date + (limit === 60 || limit === 300 || limit === 1000 ? 61 : 86_401));
}

function expectError(r: Reply, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(ErrorBody.parse(r.json)).toMatchObject({ code, status });
  expectSharedHeaders(r);
}

beforeAll(async () => {
  // A clock ten years ahead proves Date, Reset and the windows come from the server clock, not the real one.
  const offset = 10 * 365 * 86_400_000;
  const origin = Date.now();
  const t0 = performance.now();
  server = await createReferenceServer({
    clock: {
      scale: 1,
      now: () => origin + offset + (performance.now() - t0),
      monotonic: () => performance.now() - t0,
      sleep: async () => {},
    },
  });
});
afterAll(() => server.close());

describe('GET /pets', () => {
  it('answers a bare array of at most 20 animals by default, newest first', async () => {
    const r = await call(server.url, '/pets', { auth: free() });
    expect(r.status).toBe(200);
    const pets = Pets.parse(r.json);
    expect(pets).toHaveLength(20);
    expect(pets.map((p) => Number(p.id))).toEqual([...pets.map((p) => Number(p.id))].sort((a, b) => b - a));
    expectSharedHeaders(r);
    expect(rate(r).date * 1000).toBeGreaterThan(Date.now() + 300 * 86_400_000);
  });

  it.each([1, 2, 50, 100])('respects limit=%i', async (limit) => {
    const r = await call(server.url, `/pets?limit=${limit}`, { auth: business() });
    expect(Pets.parse(r.json)).toHaveLength(limit);
  });

  it.each(['available', 'pending', 'sold'])('filters status=%s', async (status) => {
    const r = await call(server.url, `/pets?status=${status}&limit=100`, { auth: business() });
    const pets = Pets.parse(r.json);
    expect(pets.length).toBeGreaterThan(0);
    expect(pets.every((p) => p.status === status)).toBe(true);
  });

  it.each([
    'limit=0',
    'limit=101',
    'limit=-1',
    'limit=abc',
    'limit=1.5',
    'status=foo',
    'status=AVAILABLE',
    'limit=%G1',
    'limit=1&limit=2',
  ])('answers 400 invalid_query to %s', async (qs) => {
    expectError(await call(server.url, `/pets?${qs}`, { auth: business() }), 400, 'invalid_query');
  });
});

describe('POST /pets', () => {
  it('creates an animal with and without status, echoing the fields with a new id', async () => {
    const a = await call(server.url, '/pets', {
      method: 'POST',
      auth: pro(),
      body: '{"name":"Rex","categoryId":7,"status":"pending"}',
    });
    expect(a.status).toBe(201);
    expectSharedHeaders(a);
    const pa = Pet.parse(a.json);
    expect(pa).toMatchObject({ name: 'Rex', categoryId: 7, status: 'pending' });
    const b = await call(server.url, '/pets', { method: 'POST', auth: pro(), body: '{"name":"Mia","categoryId":8}' });
    const pb = Pet.parse(b.json);
    expect(pb).toEqual({ id: pb.id, name: 'Mia', categoryId: 8 });
    expect(Number(pb.id)).toBeGreaterThan(Number(pa.id));
    const list = Pets.parse((await call(server.url, '/pets?limit=2', { auth: pro() })).json);
    expect(list.map((p) => p.id)).toEqual([pb.id, pa.id]);
  });

  it('keeps a categoryId beyond 2^53 exact', async () => {
    const r = await call(server.url, '/pets', {
      method: 'POST',
      auth: pro(),
      body: '{"name":"Big","categoryId":9223372036854775807}',
    });
    expect(r.status).toBe(201);
    expect(r.text).toContain('"categoryId":9223372036854775807');
  });

  it.each([
    ['missing name', '{"categoryId":1}'],
    ['missing categoryId', '{"name":"x"}'],
    ['categoryId as a string', '{"name":"x","categoryId":"1"}'],
    ['categoryId 1.5', '{"name":"x","categoryId":1.5}'],
    ['categoryId beyond int64', '{"name":"x","categoryId":9223372036854775808}'],
    ['name as a number', '{"name":5,"categoryId":1}'],
    ['status foo', '{"name":"x","categoryId":1,"status":"foo"}'],
    ['malformed JSON', '{"name":"x"'],
    ['an empty body', ''],
    ['a JSON array', '[{"name":"x","categoryId":1}]'],
  ])('answers 400 invalid_body to %s and creates nothing', async (_, body) => {
    const before = Pets.parse((await call(server.url, '/pets?limit=1', { auth: pro() })).json)[0]!.id;
    expectError(await call(server.url, '/pets', { method: 'POST', auth: pro(), body }), 400, 'invalid_body');
    const after = Pets.parse((await call(server.url, '/pets?limit=1', { auth: pro() })).json)[0]!.id;
    expect(after).toBe(before);
  });

  it('answers 413 to a body over 64 KiB', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(70 * 1024), categoryId: 1 });
    expectError(await call(server.url, '/pets', { method: 'POST', auth: pro(), body }), 413, 'body_too_large');
  });
});

describe('GET /pets/{petId} (deprecated)', () => {
  it('returns the animal with Deprecation, Sunset and a Link to its successor', async () => {
    const created = Pet.parse(
      (await call(server.url, '/pets', { method: 'POST', auth: pro(), body: '{"name":"Get","categoryId":2}' })).json,
    );
    const r = await call(server.url, `/pets/${created.id}`, { auth: pro() });
    expect(r.status).toBe(200);
    expect(Pet.parse(r.json)).toEqual(created);
    expectSharedHeaders(r);
    expect(r.headers.get('deprecation')).toMatch(/^@\d+$/);
    const since = Number(r.headers.get('deprecation')!.slice(1));
    expect(since * 1000).toBeLessThan(Date.UTC(2030, 11, 5));
    expect(r.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(r.headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
  });

  it.each(['999999999', '9223372036854775807', 'abc', '1.5', '-1', '007', '%31'])(
    'answers 404 to /pets/%s',
    async (id) => {
      const r = await call(server.url, `/pets/${id}`, { auth: pro() });
      expectError(r, 404, 'not_found');
      expect(r.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    },
  );
});

describe('authentication', () => {
  it.each([
    ['no Authorization', undefined, 'missing_key', 'Bearer realm="animal-store"'],
    [
      'an unknown key',
      { header: 'Bearer not-a-real-key-000' },
      'invalid_key',
      'Bearer realm="animal-store", error="invalid_token"',
    ],
    ['an empty Bearer', { header: 'Bearer ' }, 'invalid_key', 'Bearer realm="animal-store", error="invalid_token"'],
    [
      'a Basic credential',
      { header: 'Basic dXNlcjpwYXNz' },
      'invalid_key',
      'Bearer realm="animal-store", error="invalid_token"',
    ],
  ])('answers 401 with a Bearer challenge to %s on every endpoint', async (_, auth, code, challenge) => {
    for (const [method, path, body] of [
      ['GET', '/pets'],
      ['POST', '/pets', '{"name":"x","categoryId":1}'],
      ['GET', '/pets/1'],
    ] as const) {
      const r = await call(server.url, path, { method, ...(auth ? { auth } : {}), ...(body ? { body } : {}) });
      expectError(r, 401, code);
      expect(r.headers.get('www-authenticate')).toBe(challenge);
    }
  });

  it('never lets requests without a valid key touch a key quota', async () => {
    const before = rate(await call(server.url, '/pets', { auth: free() }));
    for (let i = 0; i < 20; i++) await call(server.url, '/pets', { auth: { header: `Bearer unknown-key-${i}` } });
    const after = rate(await call(server.url, '/pets', { auth: free() }));
    expect(after.remaining).toBe(before.remaining - 1);
  });
});

describe('routing', () => {
  it('answers 404 not_found to unknown routes', async () => {
    for (const path of ['/store/order', '/store/orders/1', '/pets/', '/pets/1/x', '/']) {
      expectError(await call(server.url, path, { auth: business() }), 404, 'not_found');
    }
    expectError(await call(server.url.replace('/v1', '/v2'), '/pets', { auth: business() }), 404, 'not_found');
  });

  it('serves GET /store/orders: a bare array of orders, behind authentication and the limiter', async () => {
    const r = await call(server.url, '/store/orders', { auth: business() });
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      { id: 1, petId: 1, quantity: 1, status: 'placed' },
      { id: 2, petId: 2, quantity: 2, status: 'approved' },
      { id: 3, petId: 3, quantity: 1, status: 'delivered' },
    ]);
    expectSharedHeaders(r);
    const next = await call(server.url, '/store/orders', { auth: business() });
    expect(rate(next).remaining).toBe(rate(r).remaining - 1);
    expectError(await call(server.url, '/store/orders'), 401, 'missing_key');
    expectError(await call(server.url, '/store/orders', { auth: { header: 'Bearer nope-0000' } }), 401, 'invalid_key');
    const post = await call(server.url, '/store/orders', { method: 'POST', auth: business(), body: '{}' });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('answers 405 with Allow to a wrong method', async () => {
    const a = await call(server.url, '/pets', { method: 'DELETE', auth: business() });
    expectError(a, 405, 'method_not_allowed');
    expect(a.headers.get('allow')).toBe('GET, POST');
    const b = await call(server.url, '/pets/1', { method: 'PUT', auth: business(), body: '{}' });
    expectError(b, 405, 'method_not_allowed');
    expect(b.headers.get('allow')).toBe('GET');
  });
});

/** Sends raw bytes and returns what came back (until the server closes or 2 s pass). */
function raw(bytes: string, closeAfterWrite = false): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let out = '';
    const timer = setTimeout(() => socket.destroy(), 2000);
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.write(bytes, () => {
      if (closeAfterWrite) socket.destroy();
    });
  });
}

describe('hostile input', () => {
  it('answers a malformed request line with a 400 Error carrying the rate-limit headers', async () => {
    const out = await raw('GARBAGE\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
    expect(out).toMatch(/X-RateLimit-Remaining: \d+/);
    expect(ErrorBody.parse(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)))).toMatchObject({ status: 400 });
  });

  it('answers huge headers with a 400 Error', async () => {
    const out = await raw(`GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
    expect(out).toContain('"code":"bad_request"');
  });

  it('survives a POST aborted mid-body and bad URLs, and keeps serving', async () => {
    await raw(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${business().secret}\r\nContent-Length: 1000\r\n\r\n{"name":`,
      true,
    );
    const odd = await raw(
      `GET /v1/pets?%%%=%E0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${business().secret}\r\nConnection: close\r\n\r\n`,
    );
    expect(odd).toMatch(/^HTTP\/1\.1 400 /);
    const star = await raw(
      `OPTIONS * HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${business().secret}\r\nConnection: close\r\n\r\n`,
    );
    expect(star).toMatch(/^HTTP\/1\.1 404 /);
    expect((await call(server.url, '/pets?limit=1', { auth: business() })).status).toBe(200);
  });

  it('reads Authorization whatever the case of its name, and the first of repeated ones', async () => {
    const key = business().secret;
    const lower = await raw(
      `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
    );
    expect(lower).toMatch(/^HTTP\/1\.1 200 /);
    const first = await raw(
      `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nAUTHORIZATION: Bearer ${key}\r\nAuthorization: Bearer nope-nope-nope\r\nConnection: close\r\n\r\n`,
    );
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    const invalidFirst = await raw(
      `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope-nope-nope\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
    );
    expect(invalidFirst).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('keeps no state per unknown key: they share their address quota', async () => {
    const before = server.stats().addresses;
    const statuses = new Set<number>();
    for (let i = 0; i < 100; i++) {
      const r = await call(server.url, '/pets', { auth: { header: `Bearer random-${i}-${Math.random()}` } });
      statuses.add(r.status);
      if (r.status === 429) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Free figures per address: 60 a minute, so the unknown keys were counted together and refused together.
    expect(statuses).toEqual(new Set([401, 429]));
    expect(server.stats().addresses).toBe(Math.max(before, 1));
    expect((await call(server.url, '/pets', { auth: pro() })).status).toBe(200);
  });
});

describe('a bug in the server', () => {
  it('becomes a 500 Error for that request, not a crash', async () => {
    let broken = false;
    const s = await createReferenceServer({
      clock: {
        scale: 1,
        now: () => {
          if (broken) throw new Error('clock broke');
          return Date.now();
        },
        monotonic: () => performance.now(),
        sleep: async () => {},
      },
    });
    try {
      broken = true;
      const r = await call(s.url, '/pets', { auth: s.keys[0]! });
      expect(r.status).toBe(500);
      expect(ErrorBody.parse(r.json)).toMatchObject({ code: 'internal_error', status: 500 });
      broken = false;
      expect((await call(s.url, '/pets', { auth: s.keys[0]! })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
