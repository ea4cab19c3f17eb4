import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from './json-syntax.js';

describe('findJsonSyntaxError', () => {
  it.each([
    [
      '{"keys":[{"key":"k","plan":"free",}]}',
      1,
      35,
      'expected a property name in double quotes, found "}" (a trailing comma before it is not allowed in JSON)',
    ],
    [
      '{"keys":[1,]}',
      1,
      12,
      'expected a value (a string, number, object, list, true, false or null), found "]" (a trailing comma before it is not allowed in JSON)',
    ],
    ['{"key":"a" "plan":"b"}', 1, 12, 'expected "," or "}" after a value in an object, found a string'],
    [
      '{\n  "key": sk_live_abc\n}',
      2,
      10,
      'expected a value (a string, number, object, list, true, false or null), found an unquoted word',
    ],
    ["{'key': 1}", 1, 2, 'expected a property name in double quotes, found "\'"'],
    ['', 1, 1, 'expected a value (a string, number, object, list, true, false or null), found the end of the file'],
    ['{"a": 1} x', 1, 10, 'expected the end of the file after the value, found an unquoted word'],
    ['{"a": "line\nbreak"}', 1, 12, 'expected the string to end with " on the same line, found a control character'],
    ['{"a": "\\x"}', 1, 8, 'expected a valid escape (\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX), found "\\"'],
    ['{"a": 01}', 1, 8, 'expected "," or "}" after a value in an object, found a digit'],
    ['{"a": "open', 1, 12, 'expected the string to end with ", found the end of the file'],
    ['[1, 2', 1, 6, 'expected "," or "]" after a value in a list, found the end of the file'],
  ])('%j: %i:%i %s', (text, line, col, message) => {
    expect(findJsonSyntaxError(text)).toEqual({ line, col, text: message });
  });

  it('never quotes more than one character of the text', () => {
    const secret = 'sk_live_0123456789abcdef';
    for (const text of [`{"key":${secret}}`, `{"key":"${secret}" "x"}`, `{"key":"${secret}",}`, `${secret}`]) {
      expect(findJsonSyntaxError(text)?.text).not.toMatch(/sk_|0123/);
    }
  });

  it('agrees with JSON.parse on arbitrary text', () => {
    const pieces = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      ':',
      ',',
      '"a"',
      '"',
      '1',
      '-',
      '0.5',
      'e3',
      'true',
      'null',
      ' ',
      '\n',
      '\\',
      'x',
      '\u0001',
    );
    const texts = fc.oneof(
      fc.string(),
      fc.array(pieces, { maxLength: 12 }).map((p) => p.join('')),
      fc.jsonValue().map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(texts, (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(findJsonSyntaxError(text) === null).toBe(valid);
      }),
      { numRuns: 3000 },
    );
  });
});
