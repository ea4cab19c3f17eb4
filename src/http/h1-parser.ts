/**
 * A strict parser of HTTP/1.1 responses (RFC 9112) for the direct HTTP/1.1 transport (./h1-pool.ts): one parser
 * per connection, fed the socket's bytes, calling back with each response's status and headers, its body chunks
 * and its end. What it rejects, llhttp (undici's parser) rejects too: a status line that is not `HTTP/1.x NNN`,
 * a header line without a name, a control character in the head, a line not ended by CRLF, two Content-Length
 * values, Content-Length beside chunked coding, a chunk size that is not hex. It throws an H1Error whose code is
 * llhttp's name for the defect (`HPE_...`; undici's for an oversized head), so the client classifies both parsers'
 * failures alike.
 *
 * The head is read as one latin1 string (a byte per character, as undici reads it) and checked by one regular
 * expression before it is split: a response's head costs a few native scans, not a step per byte in JavaScript.
 * Informational (1xx) responses are passed on like any other and need no body; 204, 304 and the answer to HEAD
 * have none either. A body with neither length nor chunking lasts until the connection closes (finish()).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** A defect of the bytes on the wire; `code` is llhttp's name for it (HPE_...), or H1_CLOSED for an early close. */
export class H1Error extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'H1Error';
  }
}

export interface H1ResponseEvents {
  /** A response's status line and headers (names in lower case, repeated ones as arrays, as undici gives them). */
  onHead(status: number, headers: IncomingHttpHeaders, keepAlive: KeepAlive): void;
  /**
   * A piece of the body: a view of the bytes being parsed, valid while execute() runs. `last`: the piece ends a body
   * of known length, whose onComplete follows within the same execute().
   */
  onBody(chunk: Buffer, last: boolean): void;
  /** `trailing`: more bytes follow the response's end in the bytes being parsed. */
  onComplete(trailing: boolean): void;
}

/** Whether the connection may carry another request after this response, and for how long the server keeps it (ms). */
export interface KeepAlive {
  readonly reusable: boolean;
  /** The server's `Keep-Alive: timeout=N`, in ms; null when it gave none. */
  readonly timeoutMs: number | null;
}

/** A token (RFC 9110: a method, a header name), as a regular-expression source; the transport's requests use it too. */
export const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";

/** The most bytes a response head may take (node's and undici's default maxHeaderSize). */
export const MAX_HEAD_BYTES = 16 * 1024;
/** Header lines of a head whose headers a parser copies for the next one, at most (headersOf). */
const MAX_NAMES_KEPT = 64;
/** The most bytes of a chunk-size line or of the trailers. */
const MAX_LINE_BYTES = 8 * 1024;

/**
 * A whole head: the status line, then header lines, each ended by CRLF (the blank line is not part of it). A header
 * name is a token; a value holds no control character but HT (obs-text, 0x80-0xff, is allowed); no line folding.
 */
const HEAD = new RegExp(
  `^HTTP\\/1\\.[01] [0-9]{3}(?: [^\\x00-\\x08\\x0a-\\x1f\\x7f]*)?(?:\\r\\n${TOKEN}:[^\\x00-\\x08\\x0a-\\x1f\\x7f]*)*$`,
);
const CONTENT_LENGTH = /^[0-9]{1,15}$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;[^\r\n]*)?$/;

enum State {
  Head,
  Sized,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
  UntilClose,
}

/** The two answers of a response without a `Keep-Alive: timeout`, made once. */
const KEEPS_ALIVE: KeepAlive = Object.freeze({ reusable: true, timeoutMs: null });
const CLOSES: KeepAlive = Object.freeze({ reusable: false, timeoutMs: null });

const protocolError = (code: string, message: string) => new H1Error(code, message);

const HEAD_END = '\r\n\r\n';
const HEAD_END_BYTES = Buffer.from(HEAD_END, 'latin1');

/** Optional whitespace: space and tab, nothing else (latin1 0xa0 is a character of a value). */
function isOws(c: number): boolean {
  return c === 32 || c === 9;
}

function addHeader(headers: IncomingHttpHeaders, name: string, value: string): void {
  // `constructor`, `__proto__` and the like are found on the prototype: only an own property is a repeat.
  if (headers[name] === undefined || !Object.hasOwn(headers, name)) {
    if (name === '__proto__') Object.defineProperty(headers, name, { value, enumerable: true, writable: true });
    else headers[name] = value;
    return;
  }
  const last = headers[name];
  if (Array.isArray(last)) last.push(value);
  else headers[name] = [last as string, value];
}

/** `Keep-Alive: timeout=N` in ms (undici's reading of it), or null. */
function keepAliveTimeout(value: string | string[] | undefined): number | null {
  if (typeof value !== 'string') return null;
  const m = /(?:^|[,;\s])timeout=([0-9]+)/i.exec(value);
  return m ? Number(m[1]) * 1000 : null;
}

/** Whether the connection stays open after the response, by its Connection header and the HTTP version. */
function keepsAlive(connection: string | string[] | undefined, http10: boolean): boolean {
  if (connection === undefined) return !http10;
  if (connection === 'keep-alive') return true;
  if (connection === 'close') return false;
  const list = tokens(connection);
  return http10 ? list.includes('keep-alive') : !list.includes('close');
}

/** The comma-separated tokens of a header, lower-cased. */
function tokens(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value.join(',') : value)
    .toLowerCase()
    .split(',')
    .map((t) => t.trim());
}

export class H1ResponseParser {
  private state = State.Head;
  /** Head bytes (latin1) or a chunk-size / trailer line carried over from earlier chunks. */
  private carry = '';
  /** Body bytes still expected (sized body, or the current chunk). */
  private remaining = 0;
  /** Whether the response being read has a body at all (false for HEAD, 1xx, 204, 304). */
  private noBody = false;
  private keepAlive: KeepAlive = { reusable: false, timeoutMs: null };
  /** Whether any byte of the current response arrived. */
  private started = false;
  /** The header lines of the last head: names as written and lower-cased, and values (headersOf). */
  private readonly rawNames: string[] = [];
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  /** The last head's headers and how many lines it had, when its names came once each (headersOf). */
  private lastHeaders: IncomingHttpHeaders | null = null;
  private lastCount = 0;

  constructor(private readonly events: H1ResponseEvents) {}

  /** Before each request: whether its answer has no body whatever its headers say (HEAD). */
  expect(noBody: boolean): void {
    this.noBody = noBody;
  }

  /** Whether part of a response has arrived and it is not complete yet. */
  get midResponse(): boolean {
    return this.started;
  }

  /** Feeds bytes; throws H1Error on a defect. */
  execute(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      this.started = true;
      switch (this.state) {
        case State.Head:
          at = this.head(chunk, at);
          break;
        case State.Sized:
        case State.ChunkData:
          at = this.data(chunk, at);
          break;
        case State.ChunkSize:
        case State.Trailers:
        case State.ChunkEnd:
          at = this.line(chunk, at);
          break;
        case State.UntilClose:
          this.events.onBody(at === 0 ? chunk : chunk.subarray(at), false);
          at = chunk.length;
          break;
      }
    }
  }

  /**
   * The connection ended (the server's FIN). A body read until the close is complete; a response cut short, or bytes
   * of a head, is an error; nothing in between responses is an end.
   */
  finish(): void {
    if (this.state === State.UntilClose) {
      this.complete();
      return;
    }
    if (this.started) throw protocolError('H1_CLOSED', 'other side closed');
  }

  private head(chunk: Buffer, at: number): number {
    if (this.carry === '') {
      // The usual case: the whole head in one read. Only the head's bytes become a string, never the body's.
      const end = chunk.indexOf(HEAD_END_BYTES, at);
      if (end !== -1 && end - at <= MAX_HEAD_BYTES) {
        this.onHead(chunk.toString('latin1', at, end), end + 4 < chunk.length);
        return end + 4;
      }
    }
    // The blank line may straddle reads: search the carried bytes with the new ones (at most a head's worth).
    const upTo = Math.min(chunk.length, at + MAX_HEAD_BYTES + 4);
    const text = this.carry + chunk.toString('latin1', at, upTo);
    const end = text.indexOf(HEAD_END);
    if (end === -1 || end > MAX_HEAD_BYTES) {
      if (text.length > MAX_HEAD_BYTES) throw protocolError('UND_ERR_HEADERS_OVERFLOW', 'Headers Overflow Error');
      if (/(?:^|[^\r])\n/.test(text)) throw protocolError('HPE_LF_EXPECTED', 'Missing expected CR after header value');
      this.carry = text;
      return upTo;
    }
    const next = at + end + 4 - this.carry.length;
    this.carry = '';
    this.onHead(text.slice(0, end), next < chunk.length);
    return next;
  }

  private onHead(head: string, trailing: boolean): void {
    if (!HEAD.test(head)) throw protocolError('HPE_INVALID_CONSTANT', `Malformed response head: ${describeHead(head)}`);
    const status = (head.charCodeAt(9) - 48) * 100 + (head.charCodeAt(10) - 48) * 10 + (head.charCodeAt(11) - 48);
    const http10 = head.charCodeAt(7) === 48;
    const headers = this.headersOf(head);
    const reusable = keepsAlive(headers.connection, http10);
    const noBody = this.noBody || status < 200 || status === 204 || status === 304;
    this.state = noBody ? State.Head : this.bodyState(headers);
    const keeps = reusable && this.state !== State.UntilClose;
    const timeoutMs = keepAliveTimeout(headers['keep-alive']);
    this.keepAlive = timeoutMs !== null ? { reusable: keeps, timeoutMs } : keeps ? KEEPS_ALIVE : CLOSES;
    this.events.onHead(status, headers, this.keepAlive);
    if (noBody || (this.state === State.Sized && this.remaining === 0)) this.complete(trailing);
  }

  /**
   * The headers of a head HEAD accepted. Each line is `name:value`: values are cut from the head as they came,
   * trimmed of optional whitespace; no line is cut out whole. A server sends the same names in the same order,
   * response after response, so a name spelt as the previous head's on the same line is that head's string again
   * (no cut, no lower-casing: a property name the engine has seen), and a head whose names are all the previous
   * head's, none repeated, is that head's headers copied with the new values written over theirs: an object of a
   * shape already made, rather than one built a property at a time.
   */
  private headersOf(head: string): IncomingHttpHeaders {
    const raws = this.rawNames;
    const names = this.names;
    const values = this.values;
    let same = true;
    let n = 0;
    for (let from = head.indexOf('\r\n'); from !== -1; n++) {
      const next = head.indexOf('\r\n', from + 2);
      const colon = head.indexOf(':', from + 2);
      const raw = raws[n];
      if (raw === undefined || raw.length !== colon - from - 2 || !head.startsWith(raw, from + 2)) {
        same = false;
        const cut = head.slice(from + 2, colon);
        raws[n] = cut;
        names[n] = cut.toLowerCase();
      }
      let a = colon + 1;
      let b = next === -1 ? head.length : next;
      while (a < b && isOws(head.charCodeAt(a))) a++;
      while (b > a && isOws(head.charCodeAt(b - 1))) b--;
      values[n] = head.slice(a, b);
      from = next;
    }
    const last = this.lastHeaders;
    if (same && last !== null && n === this.lastCount) {
      const headers: IncomingHttpHeaders = { ...last };
      for (let i = 0; i < n; i++) headers[names[i]!] = values[i];
      return headers;
    }
    const headers: IncomingHttpHeaders = {};
    for (let i = 0; i < n; i++) addHeader(headers, names[i]!, values[i]!);
    // Names kept for the next head; its headers copied only when every name came once, as a plain property.
    raws.length = n;
    names.length = n;
    values.length = n;
    const plain = Object.keys(headers).length === n && !Object.hasOwn(headers, '__proto__');
    // A copy of its own: what the exchange's readers do with theirs never reaches the next head's.
    this.lastHeaders = plain && n <= MAX_NAMES_KEPT ? { ...headers } : null;
    this.lastCount = n;
    return headers;
  }

  private bodyState(headers: IncomingHttpHeaders): State {
    const length = headers['content-length'];
    const coding = tokens(headers['transfer-encoding']);
    if (coding.length > 0) {
      if (length !== undefined)
        throw protocolError(
          'HPE_UNEXPECTED_CONTENT_LENGTH',
          'Content-Length can not be present with Transfer-Encoding',
        );
      return coding[coding.length - 1] === 'chunked' ? State.ChunkSize : State.UntilClose;
    }
    if (length === undefined) return State.UntilClose;
    if (Array.isArray(length) || !CONTENT_LENGTH.test(length))
      throw protocolError('HPE_INVALID_CONTENT_LENGTH', 'Invalid Content-Length');
    this.remaining = Number(length);
    return State.Sized;
  }

  private data(chunk: Buffer, at: number): number {
    const n = Math.min(this.remaining, chunk.length - at);
    const last = this.state === State.Sized && n === this.remaining;
    this.events.onBody(at === 0 && n === chunk.length ? chunk : chunk.subarray(at, at + n), last);
    this.remaining -= n;
    if (this.remaining === 0) {
      if (this.state === State.Sized) this.complete(at + n < chunk.length);
      else this.state = State.ChunkEnd;
    }
    return at + n;
  }

  /** A chunk-size line, the CRLF after a chunk's data, or a trailer line, possibly over several chunks. */
  private line(chunk: Buffer, at: number): number {
    const lf = chunk.indexOf(10, at);
    const piece = chunk.toString('latin1', at, lf === -1 ? chunk.length : lf + 1);
    const text = this.carry + piece;
    if (lf === -1) {
      if (text.length > MAX_LINE_BYTES) throw protocolError('HPE_INVALID_CHUNK_SIZE', 'Chunk line too long');
      this.carry = text;
      return chunk.length;
    }
    this.carry = '';
    if (!text.endsWith('\r\n')) throw protocolError('HPE_LF_EXPECTED', 'Missing expected CR before LF');
    this.onLine(text.slice(0, -2), lf + 1 < chunk.length);
    return lf + 1;
  }

  private onLine(line: string, trailing: boolean): void {
    if (this.state === State.ChunkEnd) {
      if (line !== '') throw protocolError('HPE_STRICT', 'Expected CRLF after chunk');
      this.state = State.ChunkSize;
      return;
    }
    if (this.state === State.Trailers) {
      if (line === '') this.complete(trailing);
      return;
    }
    const m = CHUNK_SIZE.exec(line);
    if (m === null) throw protocolError('HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size');
    this.remaining = Number.parseInt(m[1]!, 16);
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
  }

  private complete(trailing = false): void {
    this.state = State.Head;
    this.started = false;
    this.noBody = false;
    this.events.onComplete(trailing);
  }
}

/** The first line of a head, quoted and cut to 60 characters, for an error message. */
function describeHead(head: string): string {
  const first = head.split('\r\n', 1)[0] ?? '';
  return JSON.stringify(first.length > 60 ? `${first.slice(0, 60)}…` : first);
}
