/**
 * `petload run` in the networks staging lives in, through the real CLI, against real servers on loopback (made by
 * src/testing/tls.ts): through a forward proxy (npm's `proxy`) to a plain target and to an HTTP/2 server over TLS
 * with a CA of the test's own, and to a server that demands a client certificate. PETLOAD_TREAT_AS_REMOTE=1 gives
 * the loopback targets the remote treatment, under which the proxy variables apply (loopback is reached directly).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKey } from '../core/api-key.js';
import { createReferenceServer, type ReferenceServer } from '../reference-server/index.js';
import { readReportJson, runCli, scratch } from '../testing/cli.js';
import { filesUnder, findSecret } from '../testing/secrets.js';
import { type Listening, makeTlsFiles, startForwardProxy, startTlsFront, type TlsFiles } from '../testing/tls.js';
import { USER_AGENT } from '../engine/network.js';

const s = scratch('petload-net-');
const SECRET = 'gw_0123456789abcdef_secret';
const SCENARIO = s.file(
  'staging.yaml',
  [
    'name: staging-net',
    'description: A few requests through the staging network',
    'plans: [free]',
    'probes: [auth, unknown-id]',
    'headers:',
    '  X-Tenant: "${TENANT:-acme}"',
    '  X-Gateway-Token: { secretEnv: GATEWAY_TOKEN }',
  ].join('\n'),
);
let files: TlsFiles;
let ref: ReferenceServer;
let keysFile: string;
let key: ApiKey;
const servers: Listening[] = [];
beforeAll(async () => {
  files = makeTlsFiles(s.dir);
  ref = await createReferenceServer();
  key = ref.keys.find((k) => k.plan === 'free')!;
  keysFile = s.keys([{ key: key.secret, plan: 'free' }]);
});
afterAll(async () => {
  await Promise.all([...servers.map((f) => f.close()), ref?.close()]);
  if (!process.env.KEEP) rmSync(s.dir, { recursive: true, force: true });
});

async function started<T extends Listening>(p: Promise<T>): Promise<T> {
  const l = await p;
  servers.push(l);
  return l;
}

function run(target: string, dir: string, flags: string[], env: NodeJS.ProcessEnv) {
  return runCli(['run', SCENARIO, '--target', target, '--keys-file', keysFile, '--report-dir', dir, ...flags], {
    env: { PETLOAD_TREAT_AS_REMOTE: '1', GATEWAY_TOKEN: SECRET, HTTP_PROXY: '', HTTPS_PROXY: '', NO_PROXY: '', ...env },
  });
}

describe.concurrent('petload run in a staging network', () => {
  it('goes through HTTPS_PROXY by CONNECT to an HTTP/2 server with --ca and --http2, and says so', async () => {
    const [proxy, h2] = await Promise.all([started(startForwardProxy()), started(startTlsFront(ref.url, files, 'h2'))]);
    const dir = `${s.dir}/h2`;
    const r = await run(h2.url, dir, ['--ca', files.ca, '--http2', '--header', 'X-Trace: on'], {
      HTTPS_PROXY: proxy.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `petload: connected over HTTP/2 (HTTP/2 offered by ALPN); via the proxy ${proxy.url} (HTTPS_PROXY); trusting the CA of ${files.ca}`,
    );
    expect(proxy.seen.map((x) => `${x.method} ${x.url}`)).toContain(`CONNECT ${new URL(h2.url).host}`);
    expect(proxy.seen.every((x) => x.method === 'CONNECT')).toBe(true);
    // The server's log: HTTP/2 streams only, each with petload's User-Agent and the run's headers.
    expect(h2.seen.length).toBeGreaterThan(3);
    for (const x of h2.seen) {
      expect(x.httpVersion).toBe('2.0');
      expect(x.userAgent).toBe(USER_AGENT);
      expect(x.headers).toMatchObject({ 'x-tenant': 'acme', 'x-gateway-token': SECRET, 'x-trace': 'on' });
    }
    const report = readReportJson(dir);
    expect(report.target).toMatchObject({ protocol: 'HTTP/2', proxy: proxy.url });
    // The secret header's value reached the server, and nothing else.
    expect(findSecret(`${r.stdout}\n${r.stderr}`, [SECRET])).toBeNull();
    for (const f of filesUnder(dir)) expect(findSecret(f.text, [SECRET]), f.path).toBeNull();
  });

  it('goes through HTTP_PROXY by absolute URL to a plain target; the proxy URL is shown without its password', async () => {
    const proxy = await started(startForwardProxy());
    const withCredentials = proxy.url.replace('http://', 'http://ci:pr0xy-pa55word@');
    const dir = `${s.dir}/plain`;
    const r = await run(ref.url, dir, [], { HTTP_PROXY: withCredentials, TENANT: 'globex' });
    expect(r.code, r.stderr).toBe(0);
    const shown = proxy.url.replace('http://', 'http://***@');
    expect(r.stderr).toContain(`via the proxy ${shown} (HTTP_PROXY)`);
    const pets = proxy.seen.filter((x) => x.url.startsWith(`${ref.url}/pets`));
    expect(pets.length).toBeGreaterThan(3);
    for (const x of pets) expect(x.headers).toMatchObject({ 'user-agent': USER_AGENT, 'x-tenant': 'globex' });
    expect(readReportJson(dir).target).toMatchObject({ protocol: 'HTTP/1.1', proxy: shown });
    expect(findSecret(`${r.stdout}\n${r.stderr}`, ['pr0xy-pa55word'])).toBeNull();
    for (const f of filesUnder(dir)) expect(findSecret(f.text, ['pr0xy-pa55word', SECRET]), f.path).toBeNull();
  });

  it('is refused by a server that demands a client certificate without --client-cert, and accepted with it', async () => {
    const mtls = await started(startTlsFront(ref.url, files, 'mtls'));
    const refused = await run(mtls.url, `${s.dir}/no-cert`, ['--ca', files.ca], {});
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/give it with --client-cert FILE and --client-key FILE/);
    expect(mtls.seen).toEqual([]);
    const dir = `${s.dir}/cert`;
    const cert = ['--ca', files.ca, '--client-cert', files.clientCert, '--client-key', files.clientKey];
    const accepted = await run(mtls.url, dir, cert, {});
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain(`with the client certificate ${files.clientCert}`);
    expect(new Set(mtls.seen.map((x) => x.clientCn))).toEqual(new Set(['petload test client']));
    expect(readReportJson(dir).target.protocol).toBe('HTTP/1.1');
  });

  it('names the CA options when the certificate is not trusted', async () => {
    const https = await started(startTlsFront(ref.url, files, 'https'));
    const r = await run(https.url, `${s.dir}/untrusted`, [], {});
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('unable to verify the first certificate');
    expect(r.stderr).toContain("give that CA's certificate (PEM) with --ca FILE, or set NODE_EXTRA_CA_CERTS=FILE");
    expect(r.stderr).not.toContain('Check --target and that the service is up');
  });
});
