/**
 * The flags of a run's network (docs/cli.md, "Staging networks"): --header, --header-secret, --ca,
 * --client-cert, --client-key, --http2, and the proxy from HTTP_PROXY / HTTPS_PROXY / NO_PROXY. Read once into
 * the run's options (src/engine/network.ts); every problem is a usage error naming the flag or the variable.
 */
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { type ExtraHeader, parseHeaderFlag, parseHeaderSecretFlag, resolveHeaders } from '../config/headers.js';
import type { Scenario } from '../config/scenario.js';
import { PetloadError } from '../core/errors.js';
import type { RunNetwork } from '../engine/network.js';
import { proxyFromEnv } from '../http/network.js';
import { isLoopback } from '../http/target-url.js';
import type { NetworkArgs } from './network-options.js';

type Env = Readonly<Record<string, string | undefined>>;

function usage(message: string): never {
  throw new PetloadError('E_USAGE', message);
}

/** A PEM file's text, checked to hold what `expected` names. */
function readPem(flag: string, file: string, marker: RegExp, expected: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return usage(`${flag}: ${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')})`);
  }
  if (!marker.test(text)) usage(`${flag}: ${file}: expected ${expected} in PEM, found no such block`);
  const certs = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  certs.forEach((block, i) => {
    // TLS skips a certificate that does not parse without a word: say so now.
    try {
      new X509Certificate(block);
    } catch {
      usage(`${flag}: ${file}: expected ${expected} in PEM, found a certificate (number ${i + 1}) that does not parse`);
    }
  });
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text))
    usage(`${flag}: ${file}: expected a key without a passphrase, found an encrypted one (openssl pkey -in F -out F2)`);
  return text;
}

/** What TLS makes of the PEM files: a certificate that does not parse, or a key that is not the certificate's. */
function checkTls(flags: string, options: { ca?: string; cert?: string; key?: string }): void {
  try {
    createSecureContext(options);
  } catch (e) {
    usage(`${flags}: ${(e as Error).message.replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/, '')}`);
  }
}

/** NODE_EXTRA_CA_CERTS' certificates: node drops them once a CA is given, so --ca adds them itself. */
function extraCaCerts(env: Env): string {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return '';
  try {
    return `\n${readFileSync(file, 'utf8')}`;
  } catch {
    return '';
  }
}

/** The proxy of a remote target from the environment (a loopback one is reached directly, as k6 and Go do). */
function proxyOf(a: NetworkArgs, env: Env): Pick<RunNetwork, 'proxy' | 'proxyFrom'> {
  if (a.target === undefined) return {};
  if (isLoopback(a.target) && env.PETLOAD_TREAT_AS_REMOTE !== '1') return {};
  const found = proxyFromEnv(a.target, env);
  if (found === null) return {};
  // As curl: a proxy without a scheme is an http one.
  const proxy = found.url.includes('://') ? found.url : `http://${found.url}`;
  const url = URL.canParse(proxy) ? new URL(proxy) : null;
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    usage(
      `${found.variable}: expected a proxy URL such as http://proxy.example.com:3128, found one that is not http(s)`,
    );
  return { proxy, proxyFrom: found.variable };
}

/** The network of every run of the command, but its headers (which depend on the scenario: networkFor). */
export function readNetworkFlags(
  a: NetworkArgs,
  env: Env,
): Omit<RunNetwork, 'headers'> & { flagHeaders: ExtraHeader[] } {
  const tlsOnly = (['ca', 'client-cert', 'client-key', 'http2'] as const).filter((f) => a[f] !== undefined);
  if (a.target === undefined && tlsOnly.length > 0)
    usage(`--${tlsOnly[0]} applies to --target only (the embedded reference server speaks plain HTTP/1.1)`);
  if (a.http2 && a.target !== undefined && URL.canParse(a.target) && new URL(a.target).protocol !== 'https:')
    usage('--http2: expected an https:// --target (HTTP/2 is negotiated by ALPN in the TLS handshake)');
  if ((a['client-cert'] === undefined) !== (a['client-key'] === undefined))
    usage('--client-cert and --client-key go together: give both, or neither');
  const flagHeaders = [
    ...(a.header ?? []).map(parseHeaderFlag),
    ...(a['header-secret'] ?? []).map((h) => parseHeaderSecretFlag(h, env)),
  ];
  const cert = /-----BEGIN CERTIFICATE-----/;
  const read = {
    ...proxyOf(a, env),
    ...(a.ca !== undefined
      ? { ca: readPem('--ca', a.ca, cert, 'CA certificates') + extraCaCerts(env), caFile: a.ca }
      : {}),
    ...(a['client-cert'] !== undefined && a['client-key'] !== undefined
      ? {
          clientCert: {
            cert: readPem('--client-cert', a['client-cert'], cert, 'a certificate'),
            key: readPem('--client-key', a['client-key'], /-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a private key'),
          },
          clientCertFile: a['client-cert'],
        }
      : {}),
    ...(a.http2 ? { http2: true } : {}),
    flagHeaders,
  };
  if (read.ca !== undefined) checkTls('--ca', { ca: read.ca });
  if (read.clientCert !== undefined) checkTls('--client-cert and --client-key', read.clientCert);
  return read;
}

/** A scenario's run network: the command's, with the scenario's headers under the flags'. */
export function networkFor(
  read: ReturnType<typeof readNetworkFlags>,
  scenario: Scenario,
  file: string,
  env: Env,
): RunNetwork {
  const { flagHeaders, ...rest } = read;
  return { ...rest, headers: resolveHeaders(scenario.headers, flagHeaders, env, file) };
}
