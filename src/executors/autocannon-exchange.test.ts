import { describe, expect, it } from 'vitest';
import { HeaderNames, lowerCaseHeaders } from './autocannon-exchange.js';

describe('lowerCaseHeaders (saturate answers as exchanges)', () => {
  it('lower-cases the names, keeps the values, and gathers a name sent in several cases', () => {
    const names = new HeaderNames();
    expect(
      lowerCaseHeaders({ 'Content-Type': 'application/json', 'X-RateLimit-Limit': '60', Via: ['a', 'b'] }, names),
    ).toStrictEqual({
      'content-type': 'application/json',
      'x-ratelimit-limit': '60',
      via: ['a', 'b'],
    });
    expect(lowerCaseHeaders({ 'Retry-After': '5', 'retry-after': '6' }, names)).toStrictEqual({
      'retry-after': ['5', '6'],
    });
    expect(lowerCaseHeaders(undefined, names)).toStrictEqual({});
  });

  it("gives the same answer with a run's name cache as without, past the cache's bound too", () => {
    const names = new HeaderNames();
    for (let i = 0; i < 300; i++) {
      const raw = { [`X-Header-${i}`]: String(i), 'X-RateLimit-Remaining': String(i) };
      expect(lowerCaseHeaders(raw, names)).toStrictEqual(lowerCaseHeaders(raw));
      expect(lowerCaseHeaders(raw, names)).toStrictEqual({
        [`x-header-${i}`]: String(i),
        'x-ratelimit-remaining': String(i),
      });
    }
  });
});
