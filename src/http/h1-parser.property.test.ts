/**
 * The parser's two readings of a head agree: the regular expression of the usual path (a head arriving whole) and
 * the byte-by-byte scanner (a head arriving in pieces) accept the same heads, and refuse the others with the same
 * code; the scanner never finds nothing wrong in a head the expression refused (HPE_INTERNAL). Heads are valid
 * ones with bytes replaced, inserted or removed, from an alphabet of what goes wrong in heads.
 */
import fc from 'fast-check';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { H1Error } from './h1-error.js';
import { H1ResponseParser } from './h1-parser.js';

const HEADS = [
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1',
  'HTTP/1.0 404 Not Found\r\nConnection: keep-alive\r\nX-RateLimit-Remaining: 0\r\nContent-Length: 1',
  'ICE/1.1 301\r\nTransfer-Encoding: gzip, chunked\r\nLocation: /x',
  'HTTP/1.1 204 \r\nContent-Length: 0\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2',
];
const ALPHABET = ['\r', '\n', ' ', '\t', ':', ',', '/', '.', '0', '9', 'a', 'H', '\x00', '\x01', '\x7f', '\xe9', '"'];

const mutation = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('replace', 'insert', 'remove'),
  byte: fc.constantFrom(...ALPHABET),
});

function mutate(head: string, ms: readonly { at: number; op: string; byte: string }[]): string {
  let h = head;
  for (const m of ms) {
    const i = m.at % (h.length + 1);
    if (m.op === 'insert') h = h.slice(0, i) + m.byte + h.slice(i);
    else if (m.op === 'replace') h = h.slice(0, i) + m.byte + h.slice(i + 1);
    else h = h.slice(0, i) + h.slice(i + 1);
  }
  return h;
}

/** The heads the parser reports and the code it stops at, the bytes fed in pieces cut at `cuts`. */
function read(
  bytes: Buffer,
  cuts: readonly number[],
): { heads: [number, IncomingHttpHeaders][]; error: string | null } {
  const heads: [number, IncomingHttpHeaders][] = [];
  const p = new H1ResponseParser({ onHead: (s, h) => heads.push([s, h]), onBody: () => {}, onComplete: () => {} });
  try {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      if (cut > from) p.execute(bytes.subarray(from, cut));
      from = cut;
    }
  } catch (e) {
    if (!(e instanceof H1Error)) throw e;
    return { heads, error: e.code };
  }
  return { heads, error: null };
}

describe('H1ResponseParser: a head arriving whole reads as one arriving in pieces', () => {
  it('accepts and refuses the same heads, with the same code, and never disagrees with itself', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HEADS), fc.array(mutation, { minLength: 1, maxLength: 4 }), (head, ms) => {
        const bytes = Buffer.from(`${mutate(head, ms)}\r\n\r\nx`, 'latin1');
        const whole = read(bytes, []);
        expect(whole.error).not.toBe('HPE_INTERNAL');
        expect(read(bytes, [1])).toEqual(whole);
        expect(read(bytes, [Math.floor(bytes.length / 2)])).toEqual(whole);
      }),
      { numRuns: 3000 },
    );
  });
});
