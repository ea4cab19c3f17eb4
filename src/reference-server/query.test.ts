import { describe, expect, it } from 'vitest';
import { parseListQuery } from './query.js';

describe('parseListQuery', () => {
  it.each([
    ['', 20, undefined],
    ['limit=1', 1, undefined],
    ['limit=100&status=sold', 100, 'sold'],
    ['status=pending&other=x', 20, 'pending'],
    ['limit=05', 5, undefined],
    ['%6Cimit=7&status=%61vailable', 7, 'available'],
    ['&&limit=3&', 3, undefined],
  ])('accepts %j', (qs, limit, status) => {
    expect(parseListQuery(qs)).toEqual({ ok: true, query: { limit, status } });
  });

  it.each([
    'limit=0',
    'limit=101',
    'limit=-1',
    'limit=abc',
    'limit=1.5',
    'limit=',
    'limit',
    'limit=1e2',
    'limit=+5',
    'limit=1&limit=2',
    'status=foo',
    'status=AVAILABLE',
    'status=',
    'status=sold&status=sold',
    'limit=%ZZ',
    'status=%E0%A4%A',
  ])('refuses %j', (qs) => {
    const res = parseListQuery(qs);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.message.length).toBeGreaterThan(0);
  });
});
