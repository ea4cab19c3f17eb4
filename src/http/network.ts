/**
 * The networks a target lives in (docs/cli.md, "Staging networks"): a forward proxy, a private CA, a client
 * certificate, HTTP/2, extra headers. What the HTTP client (./client.ts, the only undici import) is given; the
 * choice of a proxy from HTTP_PROXY / HTTPS_PROXY / NO_PROXY is made here, once, by undici's own rules
 * (EnvHttpProxyAgent's), so that the run's header names the proxy its requests really go through.
 */

/** How the client reaches the target. Every field is optional: none is a direct HTTP/1.1 connection. */
export interface NetworkOptions {
  /** A forward proxy's URL (http: or https:); https targets go through it by CONNECT, http ones as absolute URLs. */
  readonly proxy?: string;
  /** PEM certificates of CAs trusted besides node's own (the target's, and an https proxy's). */
  readonly ca?: string;
  /** A client certificate and its key (PEM), for mutual TLS. */
  readonly clientCert?: { readonly cert: string; readonly key: string };
  /** Offer HTTP/2 by ALPN (TLS targets): the server chooses; HTTP/1.1 otherwise. */
  readonly http2?: boolean;
  /** Headers of every request, [lower-case name, value], after Accept; never Authorization. */
  readonly headers?: readonly (readonly [string, string])[];
}

/** The protocol a connection spoke, by its ALPN protocol (none: HTTP/1.1). */
export type Protocol = 'HTTP/1.1' | 'HTTP/2';

export function protocolOfAlpn(alpn: string | false | null | undefined): Protocol {
  return alpn === 'h2' ? 'HTTP/2' : 'HTTP/1.1';
}

/** What a report says of the protocols a run's connections spoke (absent: none was made). */
export function describeProtocols(
  seen: readonly Protocol[],
): 'HTTP/1.1' | 'HTTP/2' | 'HTTP/1.1 and HTTP/2' | undefined {
  if (seen.length === 0) return undefined;
  if (seen.length === 1) return seen[0];
  return 'HTTP/1.1 and HTTP/2';
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** Whether NO_PROXY exempts host:port (undici's EnvHttpProxyAgent rules: exact host, a parent domain, `*`). */
function exempt(url: URL, noProxy: string): boolean {
  const entries = noProxy.split(/[,\s]/).filter((e) => e !== '');
  if (entries.length === 0) return false;
  if (noProxy.trim() === '*') return true;
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  return entries.some((entry) => {
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (m && Number.parseInt(m[2]!, 10) !== port) return false;
    return host === name || host.endsWith(`.${name}`);
  });
}

/**
 * The proxy for `target` from the environment, as undici's EnvHttpProxyAgent chooses it: http_proxy or
 * HTTP_PROXY for http targets, https_proxy or HTTPS_PROXY for https ones (falling back to the http proxy), unless
 * no_proxy or NO_PROXY exempts the host. Null: direct.
 */
export function proxyFromEnv(target: string, env: Env): { url: string; variable: string } | null {
  const url = new URL(target);
  const pick = (...names: string[]) => {
    for (const name of names) {
      const value = env[name];
      if (value !== undefined && value !== '') return { url: value, variable: name };
    }
    return null;
  };
  const http = pick('http_proxy', 'HTTP_PROXY');
  const chosen = url.protocol === 'https:' ? (pick('https_proxy', 'HTTPS_PROXY') ?? http) : http;
  if (chosen === null) return null;
  return exempt(url, env.no_proxy ?? env.NO_PROXY ?? '') ? null : chosen;
}

/** A proxy URL fit to print: its user name and password replaced (they are credentials). */
export function redactProxyUrl(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.username === '' && url.password === '') return url.href.replace(/\/$/, '');
    url.username = '***';
    url.password = '';
    return url.href.replace(/\/$/, '');
  } catch {
    return '(a proxy URL that does not parse)';
  }
}
