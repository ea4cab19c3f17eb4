import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isImfFixdate,
  parseDeprecation,
  parseHttpDate,
  parseIntHeader,
  parseRateLimit,
  parseRetryAfter,
} from './headers.js';

describe('parseIntHeader', () => {
  it.each([
    ['60', { ok: true, value: 60 }],
    ['0', { ok: true, value: 0 }],
    ['007', { ok: true, value: 7 }],
    [' 59\t', { ok: true, value: 59 }],
    ['1700000000', { ok: true, value: 1_700_000_000 }],
    ['9007199254740991', { ok: true, value: Number.MAX_SAFE_INTEGER }],
  ])('accepts %j', (raw, expected) => {
    expect(parseIntHeader({ 'x-ratelimit-limit': raw }, 'x-ratelimit-limit')).toEqual(expected);
  });

  it.each([
    '',
    ' ',
    '-1',
    '+5',
    '1.5',
    '1e3',
    '60s',
    '60, 60',
    '60;w=60',
    '0x10',
    '١٢',
    '\u00a060',
    '60\n',
    '9007199254740993',
  ])('rejects %j as malformed', (raw) => {
    expect(parseIntHeader({ h: raw }, 'h')).toEqual({ ok: false, problem: 'malformed', raw });
  });

  it('reports a missing header', () => {
    expect(parseIntHeader({}, 'h')).toEqual({ ok: false, problem: 'missing' });
  });

  it('reports a repeated header with every value, even when each is well formed', () => {
    expect(parseIntHeader({ h: ['60', '60'] }, 'h')).toEqual({ ok: false, problem: 'repeated', raw: '60, 60' });
  });

  it('a header given as a one-element array is present once', () => {
    expect(parseIntHeader({ h: ['5'] }, 'h')).toEqual({ ok: true, value: 5 });
  });

  it('reads any text as the definition does: OWS, then 1*DIGIT, then OWS, a safe integer', () => {
    const definition = (raw: string) => {
      const m = /^[ \t]*([0-9]+)[ \t]*$/.exec(raw);
      const value = m === null ? Number.NaN : Number(m[1]);
      return Number.isSafeInteger(value) ? { ok: true, value } : { ok: false, problem: 'malformed', raw };
    };
    const digits = fc.stringMatching(/^[ \t]{0,2}[0-9]{1,20}[ \t]{0,2}$/);
    // The characters either side of the digits ('/' and ':'), signs, points, exponents and other spaces.
    const nearDigits = fc.stringMatching(/^[ \t0-9/:+\-.e\u00a0\n]{0,20}$/);
    fc.assert(
      fc.property(fc.oneof(digits, nearDigits, fc.string()), (raw) => {
        expect(parseIntHeader({ h: raw }, 'h')).toEqual(definition(raw));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseRateLimit', () => {
  it('reads the three headers independently', () => {
    expect(
      parseRateLimit({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': 'x', 'x-ratelimit-reset': ['1', '2'] }),
    ).toEqual({
      limit: { ok: true, value: 60 },
      remaining: { ok: false, problem: 'malformed', raw: 'x' },
      reset: { ok: false, problem: 'repeated', raw: '1, 2' },
    });
  });
});

describe('parseHttpDate', () => {
  const nov6 = Date.UTC(1994, 10, 6, 8, 49, 37);
  it.each([
    ['Sun, 06 Nov 1994 08:49:37 GMT', nov6],
    ['Sunday, 06-Nov-94 08:49:37 GMT', nov6],
    ['Sun Nov  6 08:49:37 1994', nov6],
    ['Sun Nov 16 08:49:37 1994', Date.UTC(1994, 10, 16, 8, 49, 37)],
    ['Thursday, 05-Dec-30 00:00:00 GMT', Date.UTC(2030, 11, 5)],
    ['Tue, 29 Feb 2028 23:59:59 GMT', Date.UTC(2028, 1, 29, 23, 59, 59)],
    ['Sat, 31 Dec 2016 23:59:60 GMT', Date.UTC(2017, 0, 1)],
    // The day name is not cross-checked with the date.
    ['Mon, 06 Nov 1994 08:49:37 GMT', nov6],
    [' Sun, 06 Nov 1994 08:49:37 GMT\t', nov6],
  ])('reads %j', (raw, expected) => {
    expect(parseHttpDate(raw)).toBe(expected);
  });

  it('keeps years 0..99 of the IMF form literal (no 19xx shift)', () => {
    const d = new Date(0);
    d.setUTCFullYear(50, 0, 1);
    expect(parseHttpDate('Sat, 01 Jan 0050 00:00:00 GMT')).toBe(d.getTime());
  });

  it.each([
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'sun, 06 nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 94 08:49:37 GMT',
    'Sun, 31 Nov 1994 08:49:37 GMT',
    'Thu, 29 Feb 2029 00:00:00 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 06 Nov 1994 08:49:61 GMT',
    'Sun, 00 Nov 1994 08:49:37 GMT',
    '1994-11-06T08:49:37Z',
    '784111777',
    '',
    'Sun Nov 6 08:49:37 1994',
  ])('rejects %j', (raw) => {
    expect(parseHttpDate(raw)).toBeNull();
  });
});

describe('isImfFixdate', () => {
  it('accepts only the IMF-fixdate form', () => {
    expect(isImfFixdate('Thu, 05 Dec 2030 00:00:00 GMT')).toBe(true);
    expect(isImfFixdate('Thursday, 05-Dec-30 00:00:00 GMT')).toBe(false);
    expect(isImfFixdate('Thu Dec  5 00:00:00 2030')).toBe(false);
    expect(isImfFixdate('Thu, 31 Apr 2030 00:00:00 GMT')).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['120', { kind: 'seconds', seconds: 120 }],
    ['0', { kind: 'seconds', seconds: 0 }],
    [' 5 ', { kind: 'seconds', seconds: 5 }],
    ['Fri, 31 Dec 1999 23:59:59 GMT', { kind: 'date', epochMs: Date.UTC(1999, 11, 31, 23, 59, 59) }],
    ['Friday, 31-Dec-99 23:59:59 GMT', { kind: 'date', epochMs: Date.UTC(1999, 11, 31, 23, 59, 59) }],
    ['1.5', { kind: 'malformed' }],
    ['-1', { kind: 'malformed' }],
    ['1e3', { kind: 'malformed' }],
    ['0x10', { kind: 'malformed' }],
    ['120s', { kind: 'malformed' }],
    ['120, 120', { kind: 'malformed' }],
    ['', { kind: 'malformed' }],
    ['2030-12-05T00:00:00Z', { kind: 'malformed' }],
  ])('reads %j', (raw, expected) => {
    expect(parseRetryAfter(raw)).toEqual(expected);
  });
});

describe('parseDeprecation', () => {
  it.each([
    ['@1688169599', 1_688_169_599_000],
    ['@0', 0],
    ['@-0', 0],
    ['@-86400', -86_400_000],
    [' @1 ', 1000],
    ['true', null],
    ['1688169599', null],
    ['@1.5', null],
    ['@', null],
    ['@1234567890123456', null],
    ['@1;foo', null],
    ['Sun, 06 Nov 1994 08:49:37 GMT', null],
  ])('reads %j', (raw, expected) => {
    expect(parseDeprecation(raw)).toBe(expected);
  });
});

describe('the parsers never throw', () => {
  const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('@', ' ', '\t', 'GMT', ', '));
  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(anyText, (s) => {
        parseRetryAfter(s);
        parseHttpDate(s);
        isImfFixdate(s);
        parseDeprecation(s);
        parseIntHeader({ h: s }, 'h');
      }),
      { numRuns: 2000 },
    );
  });

  it('on arbitrary header maps', () => {
    const value = fc.oneof(anyText, fc.array(anyText, { maxLength: 3 }));
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'other'),
          value,
        ),
        (h) => {
          const r = parseRateLimit(h);
          for (const v of [r.limit, r.remaining, r.reset])
            if (v.ok) expect(Number.isSafeInteger(v.value) && v.value >= 0).toBe(true);
        },
      ),
    );
  });

  it('round-trips any IMF-fixdate Node formats', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (s) => {
        const raw = new Date(s * 1000).toUTCString();
        expect(isImfFixdate(raw)).toBe(true);
        expect(parseHttpDate(raw)).toBe(s * 1000);
      }),
    );
  });
});
