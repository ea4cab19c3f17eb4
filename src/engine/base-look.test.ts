import { describe, expect, it } from 'vitest';
import { buildExchange } from '../testing/exchange-builder.js';
import { apiLike, withV1 } from './base-look.js';

describe('the look at the base with /v1 added', () => {
  it('adds /v1 to a base without it, and looks nowhere when it ends in /v1', () => {
    expect(withV1('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/v1');
    expect(withV1('https://staging.example.com/api/')).toBe('https://staging.example.com/api/v1');
    expect(withV1('http://127.0.0.1:8080/v1')).toBeNull();
    expect(withV1('http://127.0.0.1:8080/api/V1/')).toBeNull();
  });

  it('judges the answer by its status, headers and body', () => {
    expect(apiLike(buildExchange({ json: [] }))).toBe('200 with a JSON list and rate-limit headers');
    const none = { 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined };
    expect(apiLike(buildExchange({ json: [], headers: none }))).toBe('200 with a JSON list');
    const limited = buildExchange({ status: 429, json: { code: 'rate_limited', message: 'later', status: 429 } });
    expect(apiLike(limited)).toBe('429 with a JSON body and rate-limit headers');
    expect(apiLike(buildExchange({ json: { code: 'not_found' } }))).toBeNull();
    expect(apiLike(buildExchange({ status: 404, json: [] }))).toBeNull();
    expect(apiLike(buildExchange({ status: 429, json: {}, headers: none }))).toBeNull();
  });
});
