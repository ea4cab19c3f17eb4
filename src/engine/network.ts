/**
 * A run's network (docs/cli.md, "Staging networks"): what its HTTP clients are given (src/http/network.ts), the
 * secrets it adds to the run's redactor (secret header values, a proxy's credentials), and the line of the run's
 * header that says how the target was reached.
 */
import { type ExtraHeader, resolveHeaders } from '../config/headers.js';
import { CUT_MIN } from '../config/redactor.js';
import type { Scenario } from '../config/scenario.js';
import { describeProtocols, type NetworkOptions, type Protocol, redactProxyUrl } from '../http/network.js';
import { VERSION } from './version.js';

/** The network options of a run (RunOptions.network), as the CLI gives them. */
export interface RunNetwork extends Omit<NetworkOptions, 'headers'> {
  /** Extra headers, the scenario's included (the CLI resolves them); absent: the scenario's, from process.env. */
  readonly headers?: readonly ExtraHeader[];
  /** The environment variable the proxy came from (HTTPS_PROXY, ...), for the run's header. */
  readonly proxyFrom?: string;
  /** The files of --ca and --client-cert, for the run's header. */
  readonly caFile?: string;
  readonly clientCertFile?: string;
}

/** The User-Agent of every request, unless the run sets its own. */
export const USER_AGENT = `petload/${VERSION}`;

/** A secret of the network and what it is replaced by (config/redactor.ts). */
export interface NetworkSecret {
  readonly text: string;
  readonly name: string;
}

export interface ResolvedNetwork {
  /** What the run's clients are given. */
  readonly client: NetworkOptions;
  /** Secret header values and a proxy's password, for the redactor. */
  readonly secrets: readonly NetworkSecret[];
  /** The proxy as printed (credentials hidden), or undefined. */
  readonly proxy: string | undefined;
  /** The header line on how the target is reached, once the protocol is known. */
  describe(protocols: readonly Protocol[]): string;
  /** The protocols the run's connections spoke so far (the run adds them as it learns them). */
  readonly protocols: Set<Protocol>;
}

export function resolveNetwork(network: RunNetwork | undefined, scenario: Scenario): ResolvedNetwork {
  const n = network ?? {};
  const extra = n.headers ?? resolveHeaders(scenario.headers, [], process.env, `scenario ${scenario.name}`);
  const headers: [string, string][] = extra.map((h) => [h.name, h.value]);
  if (!extra.some((h) => h.name === 'user-agent')) headers.unshift(['user-agent', USER_AGENT]);
  const secrets: NetworkSecret[] = extra
    .filter((h) => h.secret && h.value !== '')
    .map((h) => ({ text: h.value, name: `header ${h.name}` }));
  // A proxy's password (its user name is no secret); a short one is never printed, but could not be redacted
  // without hiding ordinary words with it.
  const password = n.proxy !== undefined && URL.canParse(n.proxy) ? decodeURIComponent(new URL(n.proxy).password) : '';
  if (password.length >= CUT_MIN) secrets.push({ text: password, name: 'proxy password' });
  const proxy = n.proxy === undefined ? undefined : redactProxyUrl(n.proxy);
  const client: NetworkOptions = {
    ...(n.proxy !== undefined ? { proxy: n.proxy } : {}),
    ...(n.ca !== undefined ? { ca: n.ca } : {}),
    ...(n.clientCert !== undefined ? { clientCert: n.clientCert } : {}),
    ...(n.http2 ? { http2: true } : {}),
    headers,
  };
  const describe = (protocols: readonly Protocol[]) => {
    const parts = [
      `over ${describeProtocols(protocols) ?? 'no connection yet'}${n.http2 ? ' (HTTP/2 offered by ALPN)' : ''}`,
    ];
    parts.push(
      proxy === undefined ? 'direct (no proxy)' : `via the proxy ${proxy}${n.proxyFrom ? ` (${n.proxyFrom})` : ''}`,
    );
    if (n.ca !== undefined) parts.push(`trusting the CA of ${n.caFile ?? '--ca'}`);
    if (n.clientCert !== undefined) parts.push(`with the client certificate ${n.clientCertFile ?? '--client-cert'}`);
    const names = headers.map(([name]) => name);
    parts.push(`headers ${names.join(', ')}`);
    return `petload: connected ${parts.join('; ')}`;
  };
  return { client, secrets, proxy, describe, protocols: new Set() };
}

/** Whether the run's network is anything but the default (then its line is a notice, shown even with --quiet). */
export function isSpecialNetwork(network: RunNetwork | undefined): boolean {
  return (
    network !== undefined &&
    (network.proxy !== undefined || network.ca !== undefined || network.clientCert !== undefined || !!network.http2)
  );
}
