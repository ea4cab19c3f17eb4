import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { H1Error } from './h1-error.js';
import { H1ResponseParser, type KeepAlive, MAX_HEAD_BYTES } from './h1-parser.js';

interface Seen {
  heads: { status: number; headers: IncomingHttpHeaders; keepAlive: KeepAlive }[];
  body: string;
  completes: boolean[];
}

function parser(): { p: H1ResponseParser; seen: Seen } {
  const seen: Seen = { heads: [], body: '', completes: [] };
  const p = new H1ResponseParser({
    onHead: (status, headers, keepAlive) => seen.heads.push({ status, headers, keepAlive }),
    onBody: (chunk) => {
      seen.body += chunk.toString('latin1');
    },
    onComplete: (trailing) => seen.completes.push(trailing),
  });
  return { p, seen };
}

/** Feeds `bytes` in pieces cut at the given offsets. */
function feed(p: H1ResponseParser, bytes: Buffer, cuts: readonly number[]): void {
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) p.execute(bytes.subarray(from, cut));
    from = Math.max(from, cut);
  }
}

/** What parsing `text` gives when fed whole, and when cut once at every offset, must be the same. */
function parsesAlikeAtEveryCut(text: string, finish = false): Seen {
  const bytes = Buffer.from(text, 'latin1');
  const whole = parser();
  feed(whole.p, bytes, []);
  if (finish) whole.p.finish();
  for (let cut = 1; cut < bytes.length; cut++) {
    const split = parser();
    feed(split.p, bytes, [cut]);
    if (finish) split.p.finish();
    expect({ cut, heads: split.seen.heads, body: split.seen.body, n: split.seen.completes.length }).toEqual({
      cut,
      heads: whole.seen.heads,
      body: whole.seen.body,
      n: whole.seen.completes.length,
    });
  }
  return whole.seen;
}

function rejects(text: string, code: string, finish = false): void {
  const { p } = parser();
  let thrown: unknown = null;
  try {
    p.execute(Buffer.from(text, 'latin1'));
    if (finish) p.finish();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(H1Error);
  expect((thrown as H1Error).code).toBe(code);
}

const SIZED = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n[1,2,3,4]';

describe('H1ResponseParser: framing', () => {
  it('reads a sized body the same whether it comes whole or cut anywhere', () => {
    const seen = parsesAlikeAtEveryCut(SIZED);
    expect(seen.heads).toEqual([
      {
        status: 200,
        headers: { 'content-type': 'application/json', 'content-length': '9' },
        keepAlive: { reusable: true, timeoutMs: null },
      },
    ]);
    expect(seen.body).toBe('[1,2,3,4]');
    expect(seen.completes).toEqual([false]);
  });

  it('reads a chunked body with extensions and trailers, cut anywhere', () => {
    const text =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nabcd\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n';
    const seen = parsesAlikeAtEveryCut(text);
    expect(seen.body).toBe('abcd0123456789');
    expect(seen.completes).toHaveLength(1);
  });

  it('reads a body without length or chunking until the connection closes', () => {
    const seen = parsesAlikeAtEveryCut('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it', true);
    expect(seen.body).toBe('all of it');
    expect(seen.completes).toHaveLength(1);
    expect(seen.heads[0]!.keepAlive.reusable).toBe(false);
  });

  it('passes informational answers on before the real one, and says when bytes follow an end', () => {
    const { p, seen } = parser();
    p.execute(Buffer.from(`HTTP/1.1 100 Continue\r\n\r\n${SIZED}`, 'latin1'));
    expect(seen.heads.map((h) => h.status)).toEqual([100, 200]);
    expect(seen.completes).toEqual([true, false]);
    p.execute(Buffer.from(`${SIZED}HTTP/1.1`, 'latin1'));
    expect(seen.completes).toEqual([true, false, true]);
  });

  it('reads no body after 204, 304 or an answer to HEAD, whatever Content-Length says', () => {
    for (const status of ['204 No Content', '304 Not Modified']) {
      const { p, seen } = parser();
      p.execute(Buffer.from(`HTTP/1.1 ${status}\r\nContent-Length: 10\r\n\r\n`, 'latin1'));
      expect(seen.completes).toHaveLength(1);
    }
    const { p, seen } = parser();
    p.expect(true);
    p.execute(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n', 'latin1'));
    expect(seen.completes).toHaveLength(1);
    expect(seen.body).toBe('');
  });

  it('says a response cut short by the close is not whole, and a close between responses is nothing', () => {
    const { p } = parser();
    p.finish();
    p.execute(Buffer.from(SIZED.slice(0, -3), 'latin1'));
    expect(p.midResponse).toBe(true);
    expect(() => p.finish()).toThrow(expect.objectContaining({ code: 'H1_CLOSED' }));
  });
});

describe('H1ResponseParser: headers', () => {
  it('lower-cases names, trims optional whitespace, keeps repeats as arrays and prototype names as own', () => {
    const { p, seen } = parser();
    p.execute(
      Buffer.from(
        'HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nset-cookie:  b=2 \t\r\nConstructor: c\r\n__proto__: p\r\nX-Latin: \xe9\xa0\r\nContent-Length: 0\r\n\r\n',
        'latin1',
      ),
    );
    const h = seen.heads[0]!.headers;
    expect(h['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(Object.hasOwn(h, 'constructor') && h.constructor).toBe('c');
    expect(Object.getOwnPropertyDescriptor(h, '__proto__')?.value).toBe('p');
    expect(h['x-latin']).toBe('\xe9\xa0');
  });

  it('keeps a connection by the version and Connection, and reads the Keep-Alive timeout', () => {
    const keep = (head: string) => {
      const { p, seen } = parser();
      p.execute(Buffer.from(`${head}\r\nContent-Length: 0\r\n\r\n`, 'latin1'));
      return seen.heads[0]!.keepAlive;
    };
    expect(keep('HTTP/1.1 200 OK')).toEqual({ reusable: true, timeoutMs: null });
    expect(keep('HTTP/1.1 200 OK\r\nConnection: Close')).toEqual({ reusable: false, timeoutMs: null });
    expect(keep('HTTP/1.0 200 OK')).toEqual({ reusable: false, timeoutMs: null });
    expect(keep('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5, max=100')).toEqual({
      reusable: true,
      timeoutMs: 5000,
    });
  });
});

describe('H1ResponseParser: what llhttp refuses, it refuses', () => {
  it.each([
    ['a version that is not N.N', 'HTTP/2 200 OK\r\n\r\n', 'HPE_INVALID_VERSION'],
    ['garbage', 'hello world\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nX-Broken\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a space in a header name', 'HTTP/1.1 200 OK\r\nX Bad: 1\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a folded header line', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  more\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a control character in a value', 'HTTP/1.1 200 OK\r\nX-A: a\x01b\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a bare LF', 'HTTP/1.1 200 OK\nContent-Length: 0\n\n', 'HPE_CR_EXPECTED'],
    [
      'two lengths',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n',
      'HPE_UNEXPECTED_CONTENT_LENGTH',
    ],
    ['a length that is no number', 'HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n', 'HPE_INVALID_CONTENT_LENGTH'],
    [
      'a length before chunking',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n',
      'HPE_INVALID_TRANSFER_ENCODING',
    ],
    [
      'a length after chunking',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n',
      'HPE_INVALID_CONTENT_LENGTH',
    ],
    [
      'a chunk size that is not hex',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HPE_INVALID_CHUNK_SIZE',
    ],
    ['a chunk not ended by CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n', 'HPE_STRICT'],
  ])('%s', (_what, text, code) => rejects(text, code));

  it('a head over the limit, whole or in pieces', () => {
    const big = `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`;
    rejects(big, 'UND_ERR_HEADERS_OVERFLOW');
    const { p } = parser();
    const bytes = Buffer.from(big.slice(0, -4), 'latin1');
    expect(() => feed(p, bytes, [100, 5000, 12_000])).toThrow(
      expect.objectContaining({ code: 'UND_ERR_HEADERS_OVERFLOW' }),
    );
  });

  it('a chunked body cut short by the close', () => {
    rejects('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nab', 'H1_CLOSED', true);
  });
});

describe('header names carried from one head to the next', () => {
  const head = (lines: readonly string[]) => `HTTP/1.1 200 OK\r\n${lines.join('\r\n')}\r\n\r\n`;
  const headersOf = (p: H1ResponseParser, seen: Seen, lines: readonly string[]) => {
    p.execute(Buffer.from(head(lines), 'latin1'));
    return seen.heads.at(-1)!.headers;
  };

  it('reads each head as a fresh parser would, whatever the head before it', () => {
    const heads: readonly (readonly string[])[] = [
      ['Content-Length: 0', 'X-RateLimit-Limit: 60', 'X-RateLimit-Remaining: 59'],
      ['Content-Length: 0', 'X-RateLimit-Limit: 60', 'X-RateLimit-Remaining: 58'],
      ['Content-Length: 0', 'X-RateLimit-Limit: 60'],
      ['Content-Length: 0', 'X-RateLimit-Limit: 60', 'X-RateLimit-Remaining: 57', 'Retry-After: 3'],
      ['Content-Length: 0', 'X-RateLimit-Limitx: 60', 'X-RateLimit-Remaining: 56', 'Retry-After: 3'],
      ['content-length: 0', 'X-RATELIMIT-LIMIT: 61', 'x-ratelimit-remaining: 55', 'Retry-After: 2'],
      ['Content-Length: 0', 'Set-Cookie: a=1', 'Set-Cookie: b=2'],
      ['Content-Length: 0', 'Set-Cookie: c=3', 'Set-Cookie: d=4'],
      ['Content-Length: 0', 'Set-Cookie: e=5', 'Set-Cookie2: f=6'],
      ['Content-Length: 0', '__proto__: x', 'Via: 1.1 a'],
      ['Content-Length: 0', '__proto__: y', 'Via: 1.1 b'],
      ['Content-Length: 0', 'X-RateLimit-Limit: 60', 'X-RateLimit-Remaining: 54'],
    ];
    const { p, seen } = parser();
    for (const lines of heads) {
      const fresh = parser();
      expect(headersOf(p, seen, lines)).toEqual(headersOf(fresh.p, fresh.seen, lines));
    }
    expect(Object.getPrototypeOf(seen.heads[10]!.headers)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(seen.heads[10]!.headers, '__proto__')?.value).toBe('y');
    expect(seen.heads[7]!.headers['set-cookie']).toEqual(['c=3', 'd=4']);
  });

  it('never lets what a reader did to one head’s headers reach the next head’s', () => {
    const { p, seen } = parser();
    const lines = ['Content-Length: 0', 'X-RateLimit-Limit: 60'];
    const first = headersOf(p, seen, lines);
    first['x-added'] = 'by a reader';
    first['x-ratelimit-limit'] = 'changed';
    const second = headersOf(p, seen, lines);
    expect(second).toEqual({ 'content-length': '0', 'x-ratelimit-limit': '60' });
    expect(second).not.toBe(first);
  });
});
