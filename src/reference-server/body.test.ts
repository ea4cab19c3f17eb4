import { describe, expect, it } from 'vitest';
import { parseNewPet } from './body.js';

describe('parseNewPet', () => {
  it.each([
    ['{"name":"Rex","categoryId":3}', { name: 'Rex', categoryId: 3 }],
    ['{"name":"Rex","categoryId":3,"status":"sold"}', { name: 'Rex', categoryId: 3, status: 'sold' }],
    ['{"name":"","categoryId":-4}', { name: '', categoryId: -4 }],
    ['{"name":"Big","categoryId":9223372036854775807}', { name: 'Big', categoryId: 9223372036854775807n }],
    ['{"name":"Small","categoryId":-9223372036854775808}', { name: 'Small', categoryId: -9223372036854775808n }],
  ])('accepts %s', (text, pet) => {
    expect(parseNewPet(text)).toEqual({ ok: true, pet });
  });

  it.each([
    '',
    '   ',
    '{"categoryId":1}',
    '{"name":"x"}',
    '{"name":"x","categoryId":"1"}',
    '{"name":"x","categoryId":1.5}',
    '{"name":"x","categoryId":9223372036854775808}',
    '{"name":"x","categoryId":-9223372036854775809}',
    '{"name":"x","categoryId":1e30}',
    '{"name":7,"categoryId":1}',
    '{"name":"x","categoryId":1,"status":"foo"}',
    '{"name":"x","categoryId":1,"status":null}',
    '{"name":"x","categoryId":1,"extra":true}',
    '{"name":"x","categoryId":1,"name":"y"}',
    '{"name":"x",',
    '[{"name":"x","categoryId":1}]',
    'null',
    '"name"',
  ])('refuses %j', (text) => {
    const res = parseNewPet(text);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.message.length).toBeGreaterThan(0);
  });
});
