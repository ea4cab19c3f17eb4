import { describe, expect, it } from 'vitest';
import { buildExchange } from '../../testing/exchange-builder.js';
import { scopeOf } from './request.js';

describe('scopeOf', () => {
  it.each([
    ['/pets', false, { kind: 'absent' }, { kind: 'absent' }],
    ['/pets?', false, { kind: 'absent' }, { kind: 'absent' }],
    ['/pets?limit=1', false, { kind: 'valid', value: 1 }, { kind: 'absent' }],
    ['/pets?limit=100&status=sold', false, { kind: 'valid', value: 100 }, { kind: 'valid', value: 'sold' }],
    ['/pets?limit=050', false, { kind: 'valid', value: 50 }, { kind: 'absent' }],
    ['/pets?status=avail%61ble', false, { kind: 'absent' }, { kind: 'valid', value: 'available' }],
    ['/pets?limit=0', true, { kind: 'invalid', raw: '0' }, { kind: 'absent' }],
    ['/pets?limit=101', true, { kind: 'invalid', raw: '101' }, { kind: 'absent' }],
    ['/pets?limit=-1', true, { kind: 'invalid', raw: '-1' }, { kind: 'absent' }],
    ['/pets?limit=1.5', true, { kind: 'invalid', raw: '1.5' }, { kind: 'absent' }],
    ['/pets?limit=abc', true, { kind: 'invalid', raw: 'abc' }, { kind: 'absent' }],
    ['/pets?limit=', true, { kind: 'invalid', raw: '' }, { kind: 'absent' }],
    ['/pets?limit=+5', true, { kind: 'invalid', raw: ' 5' }, { kind: 'absent' }],
    ['/pets?limit=5&limit=6', true, { kind: 'invalid', raw: '5,6' }, { kind: 'absent' }],
    ['/pets?status=AVAILABLE', true, { kind: 'absent' }, { kind: 'invalid', raw: 'AVAILABLE' }],
    ['/pets?status=foo&status=sold', true, { kind: 'absent' }, { kind: 'invalid', raw: 'foo,sold' }],
    ['/pets?cursor=abc', true, { kind: 'absent' }, { kind: 'absent' }],
  ])('%s: outside=%s', (path, outside, limit, status) => {
    expect(scopeOf(buildExchange({ path }))).toEqual({ outside, list: { limit, status } });
  });

  it('clips a long raw value', () => {
    const scope = scopeOf(buildExchange({ path: `/pets?limit=${'9'.repeat(100)}` }));
    expect(scope.list?.limit).toEqual({ kind: 'invalid', raw: `${'9'.repeat(32)}…` });
  });

  it.each([
    ['/pets/1', false],
    ['/pets/0', false],
    ['/pets/-7', false],
    ['/pets/9223372036854775807', false],
    ['/pets/9223372036854775808', true],
    ['/pets/-9223372036854775808', false],
    ['/pets/007', true],
    ['/pets/abc', true],
    ['/pets/1.5', true],
    ['/pets/1?x=1', true],
  ])('getPet %s: outside=%s', (path, outside) => {
    expect(scopeOf(buildExchange({ operation: 'getPet', path }))).toEqual({ outside, list: null });
  });

  it('createPet is outside only with a query; unknown operations are never outside', () => {
    expect(scopeOf(buildExchange({ operation: 'createPet', method: 'POST', path: '/pets' })).outside).toBe(false);
    expect(scopeOf(buildExchange({ operation: 'createPet', method: 'POST', path: '/pets?x=1' })).outside).toBe(true);
    expect(scopeOf(buildExchange({ operation: null, path: '/store/orders?x=1' })).outside).toBe(false);
  });
});
