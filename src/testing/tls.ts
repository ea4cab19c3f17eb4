/**
 * Test-only: the real things of a staging network on loopback. A CA, a server certificate for 127.0.0.1 and a
 * client certificate, made by the openssl CLI (Debian's openssl, through ./system-packages.ts); a TLS front
 * (HTTPS, HTTP/2 over TLS, or HTTPS that demands a client certificate) that forwards every request to a
 * plain-HTTP target such as the reference server and logs what it saw; a forward proxy (npm's `proxy`, a
 * devDependency) that logs what it carried.
 * Never imported by src.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request, createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import {
  createSecureServer,
  type Http2SecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { createProxy } from 'proxy';
import { programPath } from './system-packages.js';

export interface TlsFiles {
  /** PEM files: the CA, the server's certificate and key (for 127.0.0.1 and localhost), a client's. */
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync(programPath('openssl'), args, { cwd: dir, stdio: 'pipe' });
}

/** A CA of its own and two certificates it signs, written into `dir` (a few tens of ms of openssl). */
export function makeTlsFiles(dir: string): TlsFiles {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=petload test CA',
  ]);
  const sign = (name: string, subject: string, ext: string) => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl(dir, ['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
    openssl(
      dir,
      ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'].concat([
        '-out',
        `${name}.pem`,
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
      ]),
    );
  };
  sign('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  sign('client', '/CN=petload test client', 'extendedKeyUsage=clientAuth\n');
  const at = (f: string) => join(dir, f);
  return {
    ca: at('ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
  };
}

/** One request a front or a proxy saw. */
export interface Seen {
  readonly method: string;
  /** The request target as sent: a path, an absolute URL (proxy), or host:port (CONNECT). */
  readonly url: string;
  /** 1.1 or 2.0. */
  readonly httpVersion: string;
  readonly userAgent: string | undefined;
  readonly headers: IncomingHttpHeaders;
  /** The client certificate's subject CN, when one was presented. */
  readonly clientCn?: string;
}

export interface Listening {
  /** https://127.0.0.1:PORT/v1 for a front, http://127.0.0.1:PORT for a proxy. */
  readonly url: string;
  readonly seen: Seen[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'host']);

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith(':') && !HOP_BY_HOP.has(k)));
}

type AnyRequest = Parameters<Parameters<typeof createHttpServer>[1] & object>[0] | Http2ServerRequest;
type AnyResponse = { writeHead(s: number, h: IncomingHttpHeaders): unknown; end(): unknown } & NodeJS.WritableStream;

/** What a server notes of a request it saw. */
const seenOf = (req: AnyRequest): Seen => ({
  method: req.method ?? '',
  url: req.url ?? '',
  httpVersion: req.httpVersion,
  userAgent: req.headers['user-agent'],
  headers: req.headers,
});

/** Forward one request to `upstream` (a plain-HTTP origin), noting it in `seen`. */
function forward(upstream: URL, seen: Seen[]) {
  return (req: AnyRequest, res: AnyResponse | Http2ServerResponse) => {
    const cn = (req.socket as TLSSocket).getPeerCertificate?.()?.subject?.CN;
    seen.push({ ...seenOf(req), ...(typeof cn === 'string' ? { clientCn: cn } : {}) });
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: forwardable(req.headers),
      },
      (up) => {
        (res as AnyResponse).writeHead(up.statusCode ?? 502, forwardable(up.headers));
        up.pipe(res as NodeJS.WritableStream);
      },
    );
    out.on('error', () => (res as AnyResponse).end());
    (req as NodeJS.ReadableStream).pipe(out);
  };
}

async function listen(
  server: Server | Http2SecureServer,
  scheme: string,
  path: string,
  seen: Seen[],
): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}${path}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as Server).closeAllConnections?.();
      }),
  };
}

/**
 * A TLS front of `upstream` (e.g. the reference server's http://127.0.0.1:PORT/v1): `https` (HTTP/1.1), `h2` (HTTP/2
 * only, by ALPN), or `mtls` (HTTPS that refuses a client without a certificate signed by the CA).
 */
export function startTlsFront(upstream: string, files: TlsFiles, kind: 'https' | 'h2' | 'mtls'): Promise<Listening> {
  const base = new URL(upstream);
  const seen: Seen[] = [];
  const tls = { key: readFileSync(files.serverKey), cert: readFileSync(files.serverCert) };
  const handler = forward(base, seen);
  const path = base.pathname.replace(/\/$/, '');
  if (kind === 'h2') {
    const server = createSecureServer({ ...tls, allowHTTP1: false }, handler);
    return listen(server, 'https', path, seen);
  }
  const server = createHttpsServer(
    kind === 'mtls' ? { ...tls, ca: readFileSync(files.ca), requestCert: true, rejectUnauthorized: true } : tls,
    handler,
  );
  return listen(server, 'https', path, seen);
}

/**
 * A forward proxy on 127.0.0.1 (npm's `proxy`): plain requests by absolute URL, https ones by CONNECT, all noted.
 * `refuseAll`: it answers 407 Proxy Authentication Required to everything.
 */
export function startForwardProxy(options: { refuseAll?: boolean } = {}): Promise<Listening> {
  const seen: Seen[] = [];
  const server = createProxy(createHttpServer());
  if (options.refuseAll) server.authenticate = () => false;
  const note = (req: AnyRequest) => seen.push(seenOf(req));
  server.prependListener('request', note);
  server.prependListener('connect', note);
  return listen(server, 'http', '', seen);
}
