/**
 * Property tests of the reference server over raw TCP: whatever arrives (any method, path, query string,
 * header, body, even bytes node's own client refuses to send), it never answers 5xx and never crashes: it
 * answers a plain request correctly afterwards. And many distinct unknown keys leave no state behind.
 */
import fc from 'fast-check';
import { Agent, request as httpRequest } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { createReferenceServer, type ReferenceServer } from '../reference-server/index.js';
import { rawExchange } from '../testing/raw-http.js';

const KEY = 'fuzz-free-0123456789abcdef';
let server: ReferenceServer;

beforeAll(async () => {
  // Huge figures: the fuzzing must not spend the quota and end up seeing 429s only.
  server = await createReferenceServer({
    keys: parseKeys({ keys: [{ key: KEY, plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000 }] }, 'fuzz'),
  });
});
afterAll(() => server.close());

const text = (max: number) =>
  fc.oneof(
    fc.string({ maxLength: max }),
    fc.string({ unit: 'binary', maxLength: max }),
    fc.string({ unit: 'grapheme-ascii', maxLength: max }),
  );
const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$/);

const method = fc.oneof(fc.constantFrom('GET', 'POST', 'PATCH', 'HEAD', 'OPTIONS', 'get', 'CONNECT'), token);
const pathPart = fc.oneof(
  { arbitrary: fc.constant('/v1/pets'), weight: 4 },
  fc.constantFrom(
    '/v1/pets',
    '/v1/pets/',
    '/v1/pets/1',
    '/v1/pets/9223372036854775807',
    '/v1/pets/-1',
    '/v1/pets/1.5',
    '/v1/pets/%00',
    '/v1',
    '/',
    '/v1/store/orders',
    '//v1/pets',
    '/v1/pets/../pets',
    '*',
  ),
  text(30).map((t) => `/v1/pets/${encodeURIComponent(t)}`),
  text(30).map((t) => `/v1/pets/${t.replace(/[\s\r\n]/g, '')}`),
);
const queryPart = fc.oneof(
  fc.constant(''),
  fc
    .array(
      fc.tuple(
        fc.constantFrom('limit', 'status', 'LIMIT', 'limit[]', '', 'x'),
        fc.oneof(
          text(12),
          fc.constantFrom(
            '1',
            '100',
            '101',
            '-1',
            '0',
            '1e2',
            '0x10',
            '%zz',
            '%00',
            'available',
            'AVAILABLE',
            ' 5',
            '5 ',
          ),
        ),
      ),
      { maxLength: 4 },
    )
    .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`),
  text(20).map((t) => `?${t.replace(/[\s\r\n#]/g, '')}`),
);
const auth = fc.oneof(
  { arbitrary: fc.constant(`Bearer ${KEY}`), weight: 4 },
  fc.constant(null),
  fc.constantFrom(
    `Bearer ${KEY}`,
    'Bearer ',
    'Bearer',
    'bearer  ' + KEY,
    `Basic ${Buffer.from('a:b').toString('base64')}`,
    `Bearer ${KEY} extra`,
    `Bearer ${KEY}\t`,
  ),
  text(40).map((t) => `Bearer ${t.replace(/[\r\n]/g, '')}`),
);
const header = fc.tuple(
  fc.oneof(
    token,
    fc.constantFrom(
      'Content-Length',
      'Transfer-Encoding',
      'Content-Type',
      'Authorization',
      'Host',
      'Expect',
      'Connection',
    ),
  ),
  fc.oneof(
    text(40),
    fc.constantFrom(
      'chunked',
      '-1',
      'abc',
      '99999999999999999999',
      '100-continue',
      'application/json',
      'text/plain; charset=utf-16',
      'close',
    ),
  ),
);
const body = fc.oneof(
  fc.constant(''),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  {
    // A valid NewPet of any content (names of any characters, int64 ids), so that creates happen too.
    arbitrary: fc
      .record(
        {
          name: text(20),
          categoryId: fc.oneof(fc.maxSafeInteger(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
          status: fc.constantFrom('available', 'pending', 'sold'),
        },
        { requiredKeys: ['name', 'categoryId'] },
      )
      .map((o) =>
        JSON.stringify(o, (_k, v: unknown) => (typeof v === 'bigint' ? `__${v}__` : v)).replace(/"__(-?\d+)__"/, '$1'),
      ),
    weight: 3,
  },
  fc
    .record(
      {
        name: fc.oneof(text(20), fc.integer()),
        categoryId: fc.oneof(fc.integer(), fc.double(), text(5)),
        status: text(8),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  text(200),
  fc.nat({ max: 5000 }).map((n) => '['.repeat(n) + '12345678901234567890' + ']'.repeat(n)),
  fc.constantFrom(
    '{"name":"a","categoryId":9223372036854775808}',
    '{"name":"a","categoryId":1e400}',
    '{"__proto__":{"x":1},"name":"a","categoryId":1}',
    '0'.repeat(70_000),
  ),
);

/** Well-formed HTTP/1.1 (any method, path, query, credential and body), so that the requests reach the API. */
const wellFormed = fc
  .record({
    method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE'),
    path: pathPart,
    query: queryPart,
    auth,
    body,
    extra: fc.array(header, { maxLength: 1 }),
    weird: fc.boolean(),
  })
  .map((r) => {
    const bytes = Buffer.from(r.body, 'utf8');
    const lines = [
      `${r.method} ${r.path}${r.query} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      `Content-Length: ${bytes.length}`,
    ];
    if (r.auth !== null) lines.push(`Authorization: ${r.auth}`);
    // Now and then a header of any name and value on top.
    if (r.weird) for (const [k, v] of r.extra) lines.push(`${k}: ${v.replace(/[\r\n]/g, ' ')}`);
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
  });

/** Framing gone wrong: odd methods and versions, no length, a lying length, chunked, headers of any kind. */
const malformed = fc
  .record({
    method,
    path: pathPart,
    query: queryPart,
    auth,
    headers: fc.array(header, { maxLength: 4 }),
    body,
    framing: fc.constantFrom('none', 'chunked', 'lying'),
    version: fc.constantFrom('1.1', '1.0', '2.0', ''),
  })
  .map((r) => {
    const lines = [`${r.method} ${r.path}${r.query}${r.version ? ` HTTP/${r.version}` : ''}`, 'Host: 127.0.0.1'];
    if (r.auth !== null) lines.push(`Authorization: ${r.auth}`);
    for (const [k, v] of r.headers) lines.push(`${k}: ${v.replace(/[\r\n]/g, ' ')}`);
    const bytes = Buffer.from(r.body, 'utf8');
    let payload: Buffer = bytes;
    if (r.framing === 'lying') lines.push(`Content-Length: ${bytes.length + 10}`);
    if (r.framing === 'chunked') {
      lines.push('Transfer-Encoding: chunked');
      payload = Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
    }
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
  });

async function stillServes(): Promise<void> {
  const r = await fetch(`${server.url}/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
  expect(r.status).toBe(200);
  expect(await r.json()).toHaveLength(1);
}

describe('the reference server on arbitrary requests', () => {
  it.each([
    ['well-formed requests of any content', wellFormed, 400],
    ['malformed requests', malformed, 200],
  ])('never answers 5xx to %s', { timeout: 60_000 }, async (_what, requests, numRuns) => {
    const seen = new Set<number | null>();
    await fc.assert(
      fc.asyncProperty(requests, async (bytes) => {
        const r = await rawExchange(server.port, bytes, 500);
        seen.add(r.status);
        if (r.status !== null) expect(r.status, bytes.toString('latin1').slice(0, 300)).toBeLessThan(500);
      }),
      { numRuns },
    );
    // The requests got past the parser to the API, and the server still serves.
    expect(seen.has(400)).toBe(true);
    if (requests === wellFormed) for (const status of [200, 201, 401, 404]) expect(seen).toContain(status);
    await stillServes();
  });

  it('never answers 5xx to arbitrary bytes, nor to headers beyond any limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
          text(300).map((t) => Buffer.from(t)),
        ),
        async (bytes) => {
          const r = await rawExchange(server.port, bytes, 500);
          if (r.status !== null) expect(r.status).toBeLessThan(500);
        },
      ),
      { numRuns: 200 },
    );
    const long = await rawExchange(
      server.port,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(100_000)}\r\n\r\n`,
    );
    expect(long.status).toBe(400);
    await stillServes();
  });
});

describe('the reference server under many distinct unknown keys', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heapUsed = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };

  it('keeps no state for them: neither its stats nor its heap grow', { timeout: 60_000 }, async () => {
    // A server of its own: the per-address limit of unauthenticated requests starts afresh (401s, then 429s).
    const fresh = await createReferenceServer({ keys: parseKeys({ keys: [{ key: KEY, plan: 'free' }] }, 'fuzz') });
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const statuses = new Set<number>();
    const one = (token: string) =>
      new Promise<void>((resolve, reject) => {
        const req = httpRequest(
          `${fresh.url}/pets`,
          { agent, headers: { authorization: `Bearer ${token}` } },
          (res) => {
            statuses.add(res.statusCode ?? 0);
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end();
      });
    /** 10 000 requests, each with a key never seen before. */
    const round = async (r: number) => {
      for (let batch = 0; batch < 100; batch++) {
        await Promise.all(Array.from({ length: 100 }, (_, i) => one(`unknown-${r}-${batch}-${i}-${'z'.repeat(40)}`)));
      }
    };
    try {
      await round(0);
      const stats = fresh.stats();
      const before = heapUsed();
      await round(1);
      await round(2);
      // State kept per unknown key would take well over 100 bytes each: over 2 MB for these 20 000.
      expect(heapUsed() - before).toBeLessThan(1024 * 1024);
      expect(fresh.stats()).toEqual(stats);
      // Refused as unknown (401), or limited per address once the Free figures are spent (429).
      expect([...statuses].sort()).toEqual([401, 429]);
    } finally {
      agent.destroy();
      await fresh.close();
    }
  });
});
