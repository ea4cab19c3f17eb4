import { describe, expect, it } from 'vitest';
import { decodeBody, excerpt, isJsonMediaType } from './body.js';

describe('isJsonMediaType', () => {
  it.each<[string | undefined, boolean]>([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['  Application/JSON ;charset=UTF-8', true],
    ['application/problem+json', true],
    ['application/vnd.api+json; ext=x', true],
    ['text/json', false],
    ['application/jsonl', false],
    ['text/plain', false],
    ['application/json-seq', false],
    ['', false],
    [undefined, false],
  ])('%j → %s', (type, expected) => {
    expect(isJsonMediaType(type)).toBe(expected);
  });
});

describe('decodeBody', () => {
  it('parses JSON losslessly when the type says JSON', () => {
    expect(decodeBody('{"id":9007199254740993}', 'application/json')).toStrictEqual({
      kind: 'json',
      value: { id: 9007199254740993n },
      excerpt: '{"id":9007199254740993}',
    });
  });

  it('reports JSON that does not parse, with the parser message', () => {
    const body = decodeBody('{"id":', 'application/json');
    expect(body.kind).toBe('unparseable');
    if (body.kind === 'unparseable') expect(body.error).toMatch(/JSON|Unexpected|end/i);
  });

  it('keeps JSON-looking text of another type as text', () => {
    expect(decodeBody('{"id":1}', 'text/plain')).toStrictEqual({ kind: 'text', excerpt: '{"id":1}' });
    expect(decodeBody('{"id":1}', undefined)).toStrictEqual({ kind: 'text', excerpt: '{"id":1}' });
  });

  it('cuts excerpts at 500 characters', () => {
    expect(excerpt('a'.repeat(500))).toBe('a'.repeat(500));
    expect(excerpt('a'.repeat(501))).toBe(`${'a'.repeat(500)}…`);
  });
});
