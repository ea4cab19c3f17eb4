/**
 * The client in the networks staging lives in, against real servers on loopback: an HTTP/2 server over TLS with
 * a CA the test makes, a server that demands a client certificate, and a forward proxy (npm's `proxy`). Each of
 * them logs what it saw; the reference server answers behind the TLS fronts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../core/clock.js';
import { createReferenceServer, type ReferenceServer } from '../reference-server/index.js';
import { type Listening, makeTlsFiles, startForwardProxy, startTlsFront, type TlsFiles } from '../testing/tls.js';
import { createHttpClient } from './client.js';
import type { Exchange } from './exchange.js';
import type { NetworkOptions } from './network.js';
import { assertReachable, tlsHint } from './reachability.js';
import { PetloadError } from '../core/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'petload-tls-'));
let files: TlsFiles;
let ref: ReferenceServer;
let proxy: Listening;
const fronts: Listening[] = [];
beforeAll(async () => {
  files = makeTlsFiles(dir);
  ref = await createReferenceServer();
  proxy = await startForwardProxy();
});
afterAll(async () => {
  await Promise.all([...fronts.map((f) => f.close()), proxy?.close(), ref?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

async function front(kind: 'https' | 'h2' | 'mtls'): Promise<Listening> {
  const f = await startTlsFront(ref.url, files, kind);
  fronts.push(f);
  return f;
}

const pem = (f: string) => readFileSync(f, 'utf8');

/** GET /pets (twice, on one connection) through a fresh client; its exchanges and the protocols it spoke. */
async function list(baseUrl: string, network: NetworkOptions): Promise<{ exchanges: Exchange[]; protocols: string[] }> {
  const client = createHttpClient({ baseUrl, clock: realClock, connections: 1, timeoutMs: 5000, network });
  try {
    const exchanges: Exchange[] = [];
    for (let i = 0; i < 2; i++) {
      exchanges.push(
        await client.send({ operation: 'listPets', method: 'GET', path: '/pets', auth: { kind: 'none' }, tag: 't' }),
      );
    }
    return { exchanges, protocols: [...client.protocols()] };
  } finally {
    await client.close();
  }
}

describe('the client over TLS', () => {
  it('speaks HTTP/2 to an HTTP/2 server when offered by ALPN, and says so; the server saw HTTP/2 streams', async () => {
    const h2 = await front('h2');
    const r = await list(h2.url, { http2: true, ca: pem(files.ca), headers: [['user-agent', 'petload/test']] });
    expect(r.exchanges.map((e) => e.status)).toEqual([401, 401]);
    expect(r.protocols).toEqual(['HTTP/2']);
    expect(h2.seen.map((s) => `${s.httpVersion} ${s.method} ${s.url} ${s.userAgent}`)).toEqual([
      '2.0 GET /v1/pets petload/test',
      '2.0 GET /v1/pets petload/test',
    ]);
  });

  it('is refused by a CA it does not trust, with a hint naming --ca; trusts it with the CA given', async () => {
    const https = await front('https');
    const refused = await list(https.url, {});
    expect(refused.exchanges[0]!.error?.message).toMatch(
      /UNABLE_TO_VERIFY_LEAF_SIGNATURE|self-signed|unable to get local issuer/i,
    );
    expect(tlsHint(refused.exchanges[0]!.error!, true)).toMatch(/--ca FILE, or set NODE_EXTRA_CA_CERTS/);
    const trusted = await list(https.url, { ca: pem(files.ca) });
    expect(trusted.exchanges[0]!.status).toBe(401);
    expect(trusted.protocols).toEqual(['HTTP/1.1']);
  });

  it('is refused by a server that demands a client certificate without one, and accepted with it', async () => {
    const mtls = await front('mtls');
    const without = await list(mtls.url, { ca: pem(files.ca) });
    expect(without.exchanges[0]!.status).toBeNull();
    expect(tlsHint(without.exchanges[0]!.error!, true)).toMatch(/--client-cert FILE and --client-key FILE/);
    expect(mtls.seen).toEqual([]);
    const withCert = await list(mtls.url, {
      ca: pem(files.ca),
      clientCert: { cert: pem(files.clientCert), key: pem(files.clientKey) },
    });
    expect(withCert.exchanges.map((e) => e.status)).toEqual([401, 401]);
    expect(mtls.seen.map((s) => s.clientCn)).toEqual(['petload test client', 'petload test client']);
  });
});

describe('the client through a forward proxy', () => {
  it('sends plain http by absolute URL and https by CONNECT; the proxy logged both', async () => {
    const https = await front('https');
    const headers: [string, string][] = [['x-tenant', 'acme']];
    const plain = await list(ref.url, { proxy: proxy.url, headers });
    const tunnelled = await list(https.url, { proxy: proxy.url, ca: pem(files.ca), headers });
    expect(plain.exchanges.map((e) => e.status)).toEqual([401, 401]);
    expect(tunnelled.exchanges.map((e) => e.status)).toEqual([401, 401]);
    const origin = new URL(ref.url).host;
    expect(proxy.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      `GET http://${origin}/v1/pets`,
      `GET http://${origin}/v1/pets`,
      `CONNECT ${new URL(https.url).host}`,
    ]);
    expect(proxy.seen[0]!.headers['x-tenant']).toBe('acme');
    expect(https.seen.map((s) => s.headers['x-tenant'])).toEqual(['acme', 'acme']);
  });
});

describe('the reachability check through a proxy', () => {
  async function refusal(target: string, network: NetworkOptions): Promise<PetloadError> {
    const e = await assertReachable(target, 3000, undefined, network).then(
      () => new Error('reachable'),
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(PetloadError);
    return e as PetloadError;
  }

  it('names the proxy that refused or does not listen, with a hint on the proxy variables', async () => {
    const refusing = await startForwardProxy({ refuseAll: true });
    fronts.push(refusing);
    const https = await front('https');
    for (const target of [ref.url, https.url]) {
      const e = await refusal(target, { proxy: refusing.url, ca: pem(files.ca) });
      expect(e.message).toMatch(/is unreachable: .*Proxy .*407.*\(through the proxy http:\/\/127\.0\.0\.1:\d+\)$/);
      expect(e.hint).toMatch(/^The proxy refused the request: check HTTP_PROXY \/ HTTPS_PROXY/);
    }
    const dead = await refusal(ref.url, { proxy: 'http://127.0.0.1:9' });
    expect(dead.message).toMatch(/is unreachable: ECONNREFUSED \(nothing listens on the proxy 127\.0\.0\.1:9\)$/);
  });
});
