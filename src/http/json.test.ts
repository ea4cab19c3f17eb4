import { describe, expect, it } from 'vitest';
import { parseJsonLossless } from './json.js';

describe('parseJsonLossless', () => {
  const table: Array<[string, string, unknown]> = [
    ['2^53 + 1 becomes a bigint', '9007199254740993', 9007199254740993n],
    ['2^53 - 1 stays a number (16 digits, safe)', '9007199254740991', 9007199254740991],
    ['-(2^53 - 1) stays a number', '-9007199254740991', -9007199254740991],
    ['2^53 becomes a bigint (not safe)', '9007199254740992', 9007199254740992n],
    ['int64 max', '9223372036854775807', 9223372036854775807n],
    ['int64 min', '-9223372036854775808', -(2n ** 63n)],
    ['beyond int64 still exact', '123456789012345678901234567890', 123456789012345678901234567890n],
    ['small integers', '[0, -0, 42, -7]', [0, -0, 42, -7]],
    ['a float with many digits stays a number', '1234567890123456.5', 1234567890123456.5],
    ['an unsafe integer written as a float stays a number', '9007199254740993.0', 9007199254740992],
    ['exponent form stays a number', '1e20', 1e20],
    ['exponent with many digits stays a number', '12345678901234567E2', 1.2345678901234567e18],
    [
      'long digits inside a string do not change it',
      '{"s":"12345678901234567890","n":5}',
      { s: '12345678901234567890', n: 5 },
    ],
    [
      'nested: ids in an array of objects',
      '[{"id":9223372036854775807,"name":"Rex","categoryId":1,"price":3.5},{"id":2,"tags":[{"n":18446744073709551615}]}]',
      [
        { id: 9223372036854775807n, name: 'Rex', categoryId: 1, price: 3.5 },
        { id: 2, tags: [{ n: 18446744073709551615n }] },
      ],
    ],
    ['last duplicate key wins, as with JSON.parse', '{"a":1,"a":12345678901234567890}', { a: 12345678901234567890n }],
    ['plain JSON without long digits', '{"a":[true,false,null,"x"]}', { a: [true, false, null, 'x'] }],
  ];

  it.each(table)('%s', (_name, text, expected) => {
    expect(parseJsonLossless(text)).toStrictEqual(expected);
  });

  it('keeps JSON.parse results for texts without long integers', () => {
    const text = '{"id":123456789012345,"f":0.1,"e":-2.5e-3}';
    expect(parseJsonLossless(text)).toStrictEqual(JSON.parse(text));
  });

  it.each(['', '{', '{"id":12345678901234567890', '[1,]', 'nope'])('throws a SyntaxError on %j', (text) => {
    expect(() => parseJsonLossless(text)).toThrow(SyntaxError);
  });
});
