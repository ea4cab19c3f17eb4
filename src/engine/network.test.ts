import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../config/load-scenario.js';
import { resolveNetwork, USER_AGENT } from './network.js';
import { VERSION } from './version.js';

const scenario = parseScenarioText('name: n\ndescription: d\nprobes: [auth]\nheaders:\n  X-Tenant: acme\n', 'n.yaml');

describe("a run's network", () => {
  it("sends petload's User-Agent unless the run sets one, and the scenario's headers when the caller gives none", () => {
    expect(USER_AGENT).toBe(`petload/${VERSION}`);
    expect(resolveNetwork(undefined, scenario).client.headers).toEqual([
      ['user-agent', USER_AGENT],
      ['x-tenant', 'acme'],
    ]);
    const own = resolveNetwork({ headers: [{ name: 'user-agent', value: 'ci/7', secret: false }] }, scenario);
    expect(own.client.headers).toEqual([['user-agent', 'ci/7']]);
  });

  it("gives the redactor secret header values and a proxy's password, and prints the proxy without them", () => {
    const n = resolveNetwork(
      {
        proxy: 'http://ci:a-long-password@proxy.corp:3128',
        proxyFrom: 'HTTPS_PROXY',
        http2: true,
        headers: [{ name: 'x-token', value: 'tok-0123456789', secret: true }],
      },
      scenario,
    );
    expect(n.secrets).toEqual([
      { text: 'tok-0123456789', name: 'header x-token' },
      { text: 'a-long-password', name: 'proxy password' },
    ]);
    expect(n.proxy).toBe('http://***@proxy.corp:3128');
    expect(n.describe(['HTTP/2'])).toBe(
      'petload: connected over HTTP/2 (HTTP/2 offered by ALPN); via the proxy http://***@proxy.corp:3128 (HTTPS_PROXY); headers user-agent, x-token',
    );
    // A short password is never printed, and could not be hidden without hiding ordinary words with it.
    expect(resolveNetwork({ proxy: 'http://ci:pw@proxy:1' }, scenario).secrets).toEqual([]);
  });
});
