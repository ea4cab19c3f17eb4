import { describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { KeyRing, parseAuthorization } from './auth.js';
import { makeKey } from './test-client.js';

describe('parseAuthorization', () => {
  it.each([
    [undefined, { kind: 'none' }],
    ['Bearer abc', { kind: 'bearer', token: 'abc' }],
    ['bearer   abc  ', { kind: 'bearer', token: 'abc' }],
    ['Bearer ', { kind: 'bearer', token: '' }],
    ['Bearer', { kind: 'bearer', token: '' }],
    ['Basic dXNlcjpwYXNz', { kind: 'other' }],
    ['Bearerabc', { kind: 'other' }],
    ['', { kind: 'other' }],
  ])('reads %j', (header, cred) => {
    expect(parseAuthorization(header)).toEqual(cred);
  });
});

describe('KeyRing', () => {
  const a = makeKey('key-aaaaaaaa', 'free', PLANS.free);
  const b = makeKey('key-bbbbbbbb', 'pro', PLANS.pro);
  const ring = new KeyRing([a, b]);

  it('finds a key by its exact secret only', () => {
    expect(ring.find('key-aaaaaaaa')).toBe(a);
    expect(ring.find('key-bbbbbbbb')).toBe(b);
    expect(ring.find('key-aaaaaaa')).toBeUndefined();
    expect(ring.find('key-aaaaaaaaa')).toBeUndefined();
    expect(ring.find('KEY-AAAAAAAA')).toBeUndefined();
    expect(ring.find('')).toBeUndefined();
  });
});
