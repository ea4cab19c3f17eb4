/**
 * Before a run: is anything answering HTTP at the target? One unauthenticated request to the base path, no
 * retry. Any HTTP response counts (a 404 or 401 is a live server); no response is a tool error, not a verdict.
 */
import { realClock } from '../core/clock.js';
import { PetloadError } from '../core/errors.js';
import { createHttpClient } from './client.js';
import type { TransportError } from './exchange.js';
import { type NetworkOptions, type Protocol, redactProxyUrl } from './network.js';
import { REACHABILITY_TIMEOUT_MS } from '../core/defaults.js';

function why(error: TransportError, target: URL, timeoutMs: number, proxy: string | undefined): string {
  // Through a proxy, the connection that failed is the proxy's.
  const url = proxy !== undefined && URL.canParse(proxy) ? new URL(proxy) : target;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const hostPort = `${proxy !== undefined ? 'the proxy ' : ''}${url.hostname}:${port}`;
  switch (error.kind) {
    case 'refused':
      return `ECONNREFUSED (nothing listens on ${hostPort})`;
    case 'timeout':
      return `no HTTP response within ${timeoutMs} ms from ${hostPort}`;
    case 'reset':
      return `the connection to ${hostPort} was closed without an HTTP response (${error.message})`;
    default:
      return error.message;
  }
}

/** TLS and proxy failures by what to do about them: the hint replaces "Check --target and that the service is up". */
const TLS_HINTS: readonly (readonly [RegExp, string])[] = [
  [
    /SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|CERT_UNTRUSTED|self[- ]signed certificate|unable to verify the first certificate/i,
    "The target's certificate is signed by a CA node does not trust (a private or corporate CA): give that CA's certificate (PEM) with --ca FILE, or set NODE_EXTRA_CA_CERTS=FILE.",
  ],
  [
    /CERTIFICATE_REQUIRED|certificate required|ALERT_BAD_CERTIFICATE|ALERT_HANDSHAKE_FAILURE|peer did not return a certificate/i,
    'The target asks for a client certificate (mutual TLS): give it with --client-cert FILE and --client-key FILE.',
  ],
  [
    /ERR_TLS_CERT_ALTNAME_INVALID|altnames/i,
    "The target's certificate does not name the host of --target: check its host name.",
  ],
  [
    /CERT_HAS_EXPIRED|CERT_NOT_YET_VALID/i,
    "The target's certificate is expired or not yet valid: check the target and this machine's clock.",
  ],
  [
    /Proxy response|Proxy Authentication/i,
    'The proxy refused the request: check HTTP_PROXY / HTTPS_PROXY (its credentials go in its URL: http://user:password@host:port) and NO_PROXY.',
  ],
];

/**
 * The hint for a TLS or proxy failure, or undefined for any other one. A TLS 1.3 server that refuses a client without a
 * certificate closes the connection after the handshake: a reset of an https target may be that too.
 */
export function tlsHint(error: TransportError, https: boolean): string | undefined {
  const hint = TLS_HINTS.find(([pattern]) => pattern.test(error.message))?.[1];
  if (hint !== undefined || !https || error.kind !== 'reset') return hint;
  return 'Check --target and that the service is up; if it demands a client certificate (mutual TLS), give it with --client-cert FILE and --client-key FILE.';
}

/**
 * `signal` cancels the check (an interrupt): it then returns without a conclusion, and the caller stops anyway.
 * Returns the protocols its connection spoke (none when cancelled). `network`: how the target is reached.
 */
export async function assertReachable(
  baseUrl: string,
  timeoutMs = REACHABILITY_TIMEOUT_MS,
  signal?: AbortSignal,
  network?: NetworkOptions,
): Promise<readonly Protocol[]> {
  const client = createHttpClient({
    baseUrl,
    clock: realClock,
    connections: 1,
    timeoutMs,
    ...(network ? { network } : {}),
  });
  try {
    const ex = await client.send({
      operation: null,
      method: 'GET',
      path: '/',
      auth: { kind: 'none' },
      tag: 'reachability',
      ...(signal ? { signal } : {}),
    });
    if (ex.status !== null || ex.error === null || ex.error.kind === 'aborted') return client.protocols();
    const url = new URL(baseUrl);
    const hint = tlsHint(ex.error, url.protocol === 'https:');
    throw new PetloadError(
      'E_TARGET_UNREACHABLE',
      `target ${url.origin}${url.pathname} is unreachable: ${why(ex.error, url, timeoutMs, network?.proxy)}${network?.proxy !== undefined && ex.error.kind !== 'refused' ? ` (through the proxy ${redactProxyUrl(network.proxy)})` : ''}`,
      hint !== undefined ? { hint } : undefined,
    );
  } finally {
    await client.close();
  }
}
