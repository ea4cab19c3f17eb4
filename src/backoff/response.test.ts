import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../core/api-key.js';
import { buildExchange, FIXED_NOW, FIXED_NOW_S, rateLimitHeaders } from '../testing/exchange-builder.js';
import { testKey } from '../testing/exchange-builder.js';
import { readWindow } from './response.js';

const key: ApiKey = testKey('free');
const NO_X = { 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined };

describe('readWindow', () => {
  it('reads the window from X-RateLimit-*', () => {
    const w = readWindow(buildExchange({ headers: rateLimitHeaders(60, 12, FIXED_NOW_S + 30) }), key);
    expect(w).toMatchObject({ window: 'minute', remaining: 12, reset: FIXED_NOW_S + 30 });
  });

  it('follows the IETF fields when the target sends only them', () => {
    const ex = buildExchange({ headers: { ...NO_X, 'ratelimit-policy': '"m";q=60;w=60', ratelimit: '"m";r=0;t=20' } });
    expect(readWindow(ex, key)).toEqual({
      window: 'minute',
      remaining: 0,
      reset: FIXED_NOW_S + 20,
      resetLocal: FIXED_NOW + 20_000,
    });
  });

  it('never lets the IETF fields stand in for X-RateLimit-* that are there, even broken', () => {
    const ex = buildExchange({
      headers: {
        ...NO_X,
        'x-ratelimit-remaining': '12',
        'ratelimit-policy': '"m";q=60;w=60',
        ratelimit: '"m";r=0;t=20',
      },
    });
    expect(readWindow(ex, key)).toMatchObject({ window: null, remaining: 12, reset: null });
  });
});
