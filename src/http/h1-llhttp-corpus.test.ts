import { describe, expect, it } from 'vitest';
import { type CorpusCase, type CorpusResponse, LLHTTP_RESPONSE_CORPUS } from '../testing/llhttp-response-corpus.js';
import { H1Error } from './h1-error.js';
import { H1ResponseParser } from './h1-parser.js';

interface Outcome {
  responses: CorpusResponse[];
  error: string | null;
}

/** What the parser makes of `bytes` fed in pieces cut at `cuts`: the responses it reported, and its error. */
function outcomeOf(c: Pick<CorpusCase, 'bytes' | 'finish' | 'noBody'>, cuts: readonly number[]): Outcome {
  const responses: { status: number; body: string; complete: boolean }[] = [];
  const p = new H1ResponseParser({
    onHead: (status) => responses.push({ status, body: '', complete: false }),
    onBody: (chunk) => {
      responses.at(-1)!.body += chunk.toString('latin1');
    },
    onComplete: () => {
      responses.at(-1)!.complete = true;
      if (c.noBody) p.expect(true);
    },
  });
  if (c.noBody) p.expect(true);
  const bytes = Buffer.from(c.bytes, 'latin1');
  let error: string | null = null;
  try {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      // A copy of each piece: the parser may hand on views of what it is fed, as a socket's buffer would be.
      if (cut > from) p.execute(Buffer.from(bytes.subarray(from, cut)));
      from = cut;
    }
    if (c.finish) p.finish();
  } catch (e) {
    if (!(e instanceof H1Error)) throw e;
    error = e.code;
  }
  return { responses, error };
}

/** Fed whole, and cut in two at every byte: each time the same outcome, llhttp's. */
function agrees(c: Pick<CorpusCase, 'bytes' | 'finish' | 'noBody' | 'responses' | 'error'>): void {
  const expected = { responses: c.responses, error: c.error ?? null };
  expect(outcomeOf(c, [])).toEqual(expected);
  for (let cut = 1; cut < c.bytes.length; cut++) expect({ cut, ...outcomeOf(c, [cut]) }).toEqual({ cut, ...expected });
}

describe('the direct transport’s parser over llhttp 9.4.2’s response corpus (test/response/*.md)', () => {
  it('holds all 77 strict cases', () => {
    expect(LLHTTP_RESPONSE_CORPUS).toHaveLength(77);
  });

  it.each(LLHTTP_RESPONSE_CORPUS.map((c) => [`${c.file}.md: ${c.name}`, c] as const))(
    '%s: same framing, same acceptance, same error code, whole or cut at any byte',
    (_name, c) => agrees(c),
  );
});

/**
 * Where the transport parted from llhttp before (issue 42), on bytes the corpus does not hold; the outcomes are
 * llhttp's (checked against node's own llhttp, 9.3, where 9.3 and 9.4 agree).
 */
describe('the direct transport’s parser where it parted from llhttp', () => {
  const sized = (length: string, body: string) => `HTTP/1.1 200 OK\r\nContent-Length: ${length}\r\n\r\n${body}`;
  const chunked = (coding: string, rest: string) => `HTTP/1.1 200 OK\r\nTransfer-Encoding: ${coding}\r\n\r\n${rest}`;

  it.each([
    ['a Content-Length of 26 digits, leading zeros', sized('00000000000000000000000005', 'hello'), 'hello', true],
    ['a Content-Length of 16 digits', sized('1000000000000000', 'abc'), 'abc', false],
    [
      'chunk sizes of 22 hex digits, leading zeros',
      chunked('chunked', '0000000000000000000005\r\nhello\r\n0\r\n\r\n'),
      'hello',
      true,
    ],
    ['a chunk size of 16 hex digits', chunked('chunked', 'FFFFFFFFFFFFFFFF\r\nab'), 'ab', false],
    [
      '`chunked<HTAB>`: another coding, read until the close',
      chunked('chunked\t', '2\r\nab\r\n0\r\n\r\n'),
      '2\r\nab\r\n0\r\n\r\n',
      false,
    ],
    ['`chunked<SP>`: chunked', chunked('chunked ', '2\r\nab\r\n0\r\n\r\n'), 'ab', true],
    ['`gzip, chunked`: chunked', chunked('gzip, chunked', '2\r\nab\r\n0\r\n\r\n'), 'ab', true],
  ])('%s', (_what, bytes, body, complete) => {
    agrees({ bytes, responses: [{ status: 200, body, complete }] });
  });

  it.each([
    ['a Content-Length over a uint64', sized('18446744073709551616', ''), 'HPE_INVALID_CONTENT_LENGTH'],
    ['a chunk size over a uint64', chunked('chunked', '10000000000000000\r\n'), 'HPE_INVALID_CHUNK_SIZE'],
    ['a space after a chunk size', chunked('chunked', '2 \r\nab\r\n'), 'HPE_INVALID_CHUNK_SIZE'],
    ['an empty Content-Length', sized('', ''), 'HPE_INVALID_CONTENT_LENGTH'],
    [
      'a bad Content-Length in a 204',
      'HTTP/1.1 204 No Content\r\nContent-Length: x\r\n\r\n',
      'HPE_INVALID_CONTENT_LENGTH',
    ],
  ])('%s is refused', (_what, bytes, error) => {
    const outcome = outcomeOf({ bytes }, []);
    expect(outcome.error).toBe(error);
    expect(outcome.responses.filter((r) => r.complete)).toEqual([]);
  });

  it('skips line ends before a response in a later read, and a response may follow them', () => {
    const ok = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
    const { responses, error } = outcomeOf({ bytes: `${ok}\r\n\r\n\n\r${ok}` }, [
      ok.length,
      ok.length + 2,
      ok.length + 5,
    ]);
    expect(error).toBeNull();
    expect(responses).toEqual([
      { status: 200, body: 'ok', complete: true },
      { status: 200, body: 'ok', complete: true },
    ]);
  });
});
