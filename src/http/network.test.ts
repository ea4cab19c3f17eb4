import { describe, expect, it } from 'vitest';
import { describeProtocols, protocolOfAlpn, proxyFromEnv, redactProxyUrl } from './network.js';

describe('proxyFromEnv: the proxy undici would take', () => {
  const env = { HTTP_PROXY: 'http://plain:3128', HTTPS_PROXY: 'http://secure:3128' };

  it('takes HTTPS_PROXY for https targets and HTTP_PROXY for http ones, lower case first', () => {
    expect(proxyFromEnv('https://api.example.com/v1', env)).toEqual({
      url: 'http://secure:3128',
      variable: 'HTTPS_PROXY',
    });
    expect(proxyFromEnv('http://api.example.com/v1', env)).toEqual({
      url: 'http://plain:3128',
      variable: 'HTTP_PROXY',
    });
    expect(proxyFromEnv('http://api.example.com/v1', { ...env, http_proxy: 'http://lower:1' })?.variable).toBe(
      'http_proxy',
    );
    // As undici: an https target falls back to the http proxy.
    expect(proxyFromEnv('https://api.example.com/v1', { HTTP_PROXY: 'http://plain:3128' })?.variable).toBe(
      'HTTP_PROXY',
    );
    expect(proxyFromEnv('https://api.example.com/v1', {})).toBeNull();
  });

  it('is exempted by NO_PROXY: a host, a parent domain, a port, or *', () => {
    const at = (noProxy: string, target = 'https://api.staging.example.com:8443/v1') =>
      proxyFromEnv(target, { ...env, NO_PROXY: noProxy });
    expect(at('api.staging.example.com')).toBeNull();
    expect(at('.example.com')).toBeNull();
    expect(at('*.example.com')).toBeNull();
    expect(at('example.com:8443')).toBeNull();
    expect(at('example.com:443')).not.toBeNull();
    expect(at('other.com, localhost')).not.toBeNull();
    expect(at('*')).toBeNull();
    expect(at('')).not.toBeNull();
    expect(proxyFromEnv('https://a.example.com/v1', { ...env, NO_PROXY: 'x.org', no_proxy: 'example.com' })).toBeNull();
  });
});

describe('the rest', () => {
  it('hides the credentials of a proxy URL', () => {
    expect(redactProxyUrl('http://user:pa55@proxy.corp:3128')).toBe('http://***@proxy.corp:3128');
    expect(redactProxyUrl('http://proxy.corp:3128/')).toBe('http://proxy.corp:3128');
    expect(redactProxyUrl('::')).toBe('(a proxy URL that does not parse)');
  });

  it('names protocols by ALPN', () => {
    expect(protocolOfAlpn('h2')).toBe('HTTP/2');
    expect(protocolOfAlpn('http/1.1')).toBe('HTTP/1.1');
    expect(protocolOfAlpn(undefined)).toBe('HTTP/1.1');
    expect(describeProtocols([])).toBeUndefined();
    expect(describeProtocols(['HTTP/2'])).toBe('HTTP/2');
    expect(describeProtocols(['HTTP/2', 'HTTP/1.1'])).toBe('HTTP/1.1 and HTTP/2');
  });
});
