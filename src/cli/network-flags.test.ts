import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PetloadError } from '../core/errors.js';
import { makeTlsFiles } from '../testing/tls.js';
import { readNetworkFlags } from './network-flags.js';

const dir = mkdtempSync(join(tmpdir(), 'petload-netflags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const tls = makeTlsFiles(dir);
const pem = (f: string) => readFileSync(f, 'utf8');
const remote = 'https://staging.example.com/v1';

function refused(a: Parameters<typeof readNetworkFlags>[0], env = {}): string {
  try {
    readNetworkFlags(a, env);
  } catch (e) {
    expect(e).toBeInstanceOf(PetloadError);
    expect((e as PetloadError).exitCode).toBe(2);
    return (e as PetloadError).message;
  }
  throw new Error('accepted');
}

describe('the network flags', () => {
  it('read the CA (with NODE_EXTRA_CA_CERTS), the client certificate, HTTP/2 and the headers', () => {
    const n = readNetworkFlags(
      {
        target: remote,
        ca: tls.ca,
        'client-cert': tls.clientCert,
        'client-key': tls.clientKey,
        http2: true,
        header: ['X-Tenant: acme'],
        'header-secret': ['X-Token=TOKEN'],
      },
      { NODE_EXTRA_CA_CERTS: tls.serverCert, TOKEN: 'a-secret-token' },
    );
    expect(n.ca).toBe(`${pem(tls.ca)}\n${pem(tls.serverCert)}`);
    expect(n.clientCert).toEqual({ cert: pem(tls.clientCert), key: pem(tls.clientKey) });
    expect(n.http2).toBe(true);
    expect(n.flagHeaders).toEqual([
      { name: 'x-tenant', value: 'acme', secret: false },
      { name: 'x-token', value: 'a-secret-token', secret: true },
    ]);
  });

  it('take the proxy of a remote target from the environment, and never one for a loopback target', () => {
    const env = { HTTPS_PROXY: 'http://proxy.corp:3128' };
    expect(readNetworkFlags({ target: remote }, env)).toMatchObject({
      proxy: env.HTTPS_PROXY,
      proxyFrom: 'HTTPS_PROXY',
    });
    expect(readNetworkFlags({ target: 'https://127.0.0.1:8443/v1' }, env).proxy).toBeUndefined();
    expect(
      readNetworkFlags({ target: 'https://127.0.0.1:8443/v1' }, { ...env, PETLOAD_TREAT_AS_REMOTE: '1' }).proxy,
    ).toBe(env.HTTPS_PROXY);
    expect(readNetworkFlags({}, env).proxy).toBeUndefined();
    expect(readNetworkFlags({ target: remote }, { https_proxy: 'proxy.corp:3128' }).proxy).toBe(
      'http://proxy.corp:3128',
    );
    expect(refused({ target: remote }, { HTTPS_PROXY: 'ftp://user:pw@x' })).toBe(
      'HTTPS_PROXY: expected a proxy URL such as http://proxy.example.com:3128, found one that is not http(s)',
    );
  });

  it('refuse what cannot work, naming the flag', () => {
    expect(refused({ http2: true })).toMatch(/^--http2 applies to --target only/);
    expect(refused({ ca: 'x.pem' })).toMatch(/^--ca applies to --target only/);
    expect(refused({ target: 'http://api.example.com/v1', http2: true })).toMatch(/expected an https:\/\/ --target/);
    expect(refused({ target: remote, 'client-cert': file('only.pem', CERT) })).toBe(
      '--client-cert and --client-key go together: give both, or neither',
    );
    expect(refused({ target: remote, ca: join(dir, 'missing.pem') })).toMatch(
      /^--ca: .*missing\.pem: cannot read it \(no such file\)$/,
    );
    expect(refused({ target: remote, ca: file('notpem.txt', 'hello') })).toMatch(/expected CA certificates in PEM/);
    expect(refused({ target: remote, ca: file('broken.pem', CERT) })).toMatch(
      /certificate \(number 1\) that does not parse$/,
    );
    expect(refused({ target: remote, 'client-cert': tls.clientCert, 'client-key': tls.serverKey })).toMatch(
      /^--client-cert and --client-key: .*key values mismatch/,
    );
    const encrypted = file(
      'enc.key',
      '-----BEGIN ENCRYPTED PRIVATE KEY-----\nx\n-----END ENCRYPTED PRIVATE KEY-----\n',
    );
    expect(refused({ target: remote, 'client-cert': tls.clientCert, 'client-key': encrypted })).toMatch(
      /found an encrypted one/,
    );
    expect(refused({ target: remote, header: ['Authorization: Bearer x'] })).toMatch(/Authorization cannot be set/);
  });
});
