/**
 * A strict parser of HTTP/1.1 responses (RFC 9112) for the direct HTTP/1.1 transport (./h1-pool.ts): one parser
 * per connection, fed the socket's bytes, calling back with each response's status and headers, its body chunks
 * and its end. It reads what llhttp 9.4 (undici's parser) reads in strict mode, frames a body as llhttp frames it,
 * and refuses what llhttp refuses with llhttp's error code (./h1-error.ts), so that the client classifies both
 * transports' failures alike; the cases of llhttp's own response corpus hold it (h1-llhttp-corpus.test.ts).
 *
 * The head is read as one latin1 string (a byte per character, as undici reads it) and checked by one regular
 * expression before it is split: a response's head costs a few native scans, not a step per byte in JavaScript.
 * A head the expression refuses, or one arriving in pieces, is read again a byte at a time (./h1-scanner.ts) to
 * name its defect, or to refuse it before its end as llhttp does. Line ends (CR, LF) before a response are skipped,
 * as llhttp skips them. Informational (1xx) responses are passed on like any other, 100, 102 and 103 without a body;
 * a 101 ends HTTP on the connection (HPE_PAUSED_UPGRADE); 204, 304 and the answer to HEAD have no body. A body with
 * neither length nor chunking, or whose last transfer coding is not chunked, lasts until the connection closes
 * (finish()). After a response that closes the connection, only line ends may follow.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { H1Error } from './h1-error.js';
import { ChunkScanner, HeadScanner, TOKEN, VALUE_BYTE } from './h1-scanner.js';

export interface H1ResponseEvents {
  /** A response's status line and headers (names in lower case, repeated ones as arrays, as undici gives them). */
  onHead(status: number, headers: IncomingHttpHeaders, keepAlive: KeepAlive): void;
  /**
   * A piece of the body: a view of the bytes being parsed, valid while execute() runs. `last`: the piece ends a body
   * of known length, whose onComplete follows within the same execute().
   */
  onBody(chunk: Buffer, last: boolean): void;
  /** `trailing`: more bytes than line ends follow the response's end in the bytes being parsed. */
  onComplete(trailing: boolean): void;
}

/** Whether the connection may carry another request after this response, and for how long the server keeps it (ms). */
export interface KeepAlive {
  readonly reusable: boolean;
  /** The server's `Keep-Alive: timeout=N`, in ms; null when it gave none. */
  readonly timeoutMs: number | null;
}

/** The most bytes a response head may take (node's and undici's default maxHeaderSize). */
export const MAX_HEAD_BYTES = 16 * 1024;
/** Header lines of a head whose headers a parser copies for the next one, at most (headersOf). */
const MAX_NAMES_KEPT = 64;

/**
 * A whole head as llhttp reads it: the status line (`HTTP`, `RTSP` or `ICE`, versions 0.9, 1.0, 1.1 and 2.0, three
 * digits, a reason of anything but CR and LF), then header lines, each ended by CRLF (the blank line is not part of
 * it). A header name is a token; a value holds no control character but HT (obs-text, 0x80-0xff, is allowed); no
 * line folding. What it accepts, HeadScanner accepts; what it refuses, HeadScanner refuses and names.
 */
const HEAD = new RegExp(
  `^(?:HTTP|RTSP|ICE)\\/(?:1\\.[01]|0\\.9|2\\.0) [0-9]{3}(?: [^\\r\\n]*)?(?:\\r\\n${TOKEN}:${VALUE_BYTE}*)*$`,
);
/** A Content-Length a JavaScript number holds exactly (longer ones, leading zeros or not, go through lengthOf). */
const SHORT_LENGTH = /^[0-9]{1,15}$/;
/** Every raw Transfer-Encoding value of a head, its trailing whitespace kept (lastCoding). */
const CODING_LINE = /\r\ntransfer-encoding:[ \t]*([^\r]*)/gi;
/** llhttp's chunked: the last coding is `chunked`, then spaces only (a tab makes it another coding). */
const CHUNKED_LAST = /^[ \t]*chunked *$/i;

enum State {
  Head,
  Sized,
  ChunkSize,
  ChunkData,
  /** The CR, then the LF, after a chunk's data. */
  ChunkCr,
  ChunkLf,
  Trailers,
  UntilClose,
  /** After a response that closes the connection: line ends are skipped, anything else is refused. */
  Closed,
}

/** The two answers of a response without a `Keep-Alive: timeout`, made once. */
const KEEPS_ALIVE: KeepAlive = Object.freeze({ reusable: true, timeoutMs: null });
const CLOSES: KeepAlive = Object.freeze({ reusable: false, timeoutMs: null });

const protocolError = (code: H1Error['code'], message: string) => new H1Error(code, message);

const HEAD_END = '\r\n\r\n';
const HEAD_END_BYTES = Buffer.from(HEAD_END, 'latin1');

/** Optional whitespace: space and tab, nothing else (latin1 0xa0 is a character of a value). */
function isOws(c: number): boolean {
  return c === 32 || c === 9;
}

/** The index of the first byte from `at` that is not a line end (CR or LF). */
function skipLineEnds(chunk: Buffer, at: number): number {
  while (at < chunk.length && (chunk[at] === 13 || chunk[at] === 10)) at++;
  return at;
}

/**
 * The defect llhttp finds in a head (`head` without its blank line), by reading it a byte at a time. A head the
 * regular expression or a check of the fast path refused but the scanner accepts means they disagree: HPE_INTERNAL.
 */
function defectOf(head: string): H1Error {
  try {
    new HeadScanner().scan(`${head}${HEAD_END}`, 0);
  } catch (e) {
    if (e instanceof H1Error) return e;
    throw e;
  }
  return protocolError('HPE_INTERNAL', `Parser disagreement on the head ${describeHead(head)}`);
}

/** A Content-Length value (trimmed), or -1 when llhttp refuses it: digits only, leading zeros allowed, a uint64. */
function lengthOf(value: string): number {
  if (SHORT_LENGTH.test(value)) return Number(value);
  if (!/^[0-9]+$/.test(value)) return -1;
  const digits = value.replace(/^0+/, '');
  return digits.length <= 20 && BigInt(digits || '0') <= 0xffff_ffff_ffff_ffffn ? Number(digits || '0') : -1;
}

/** The last Transfer-Encoding value that is not empty, as written (llhttp reads `chunked<HTAB>` as another coding). */
function lastCoding(head: string): string | null {
  let last: string | null = null;
  CODING_LINE.lastIndex = 0;
  for (let m = CODING_LINE.exec(head); m !== null; m = CODING_LINE.exec(head)) if (m[1] !== '') last = m[1]!;
  return last;
}

/** Whether the value names chunked as its last coding, as llhttp decides it. */
function isChunked(coding: string): boolean {
  return CHUNKED_LAST.test(coding.slice(coding.lastIndexOf(',') + 1));
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

/**
 * Whether the connection stays open after the response (llhttp_should_keep_alive, before the body's framing has its
 * say): by Connection and Proxy-Connection, and the version (before 1.1, only with keep-alive).
 */
function keepsAlive(headers: IncomingHttpHeaders, old: boolean): boolean {
  const connection = headers.connection;
  const proxy = headers['proxy-connection'];
  if (proxy === undefined) {
    if (connection === undefined) return !old;
    if (connection === 'keep-alive') return true;
    if (connection === 'close') return false;
  }
  const list = [...tokens(connection), ...tokens(proxy)];
  return old ? list.includes('keep-alive') : !list.includes('close');
}

/** The comma-separated tokens of a header, lower-cased. */
function tokens(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value.join(',') : value)
    .toLowerCase()
    .split(',')
    .map((t) => t.trim());
}

/** Statuses whose answer never has a body, whatever its headers say (llhttp: 100, 102, 103, 204, 304). */
function bodiless(status: number): boolean {
  return status === 204 || status === 304 || status === 100 || status === 102 || status === 103;
}

export class H1ResponseParser {
  private state = State.Head;
  /** Head bytes (latin1) carried over from earlier chunks, read so far by `scanner`. */
  private carry = '';
  private scanner: HeadScanner | null = null;
  /** The chunk header being read, and the trailers. */
  private readonly chunkHeader = new ChunkScanner();
  private trailers: HeadScanner | null = null;
  /** Body bytes still expected (sized body, or the current chunk). */
  private remaining = 0;
  /** Whether the request answered has no body whatever the headers say (HEAD). */
  private noBody = false;
  private keepAlive: KeepAlive = CLOSES;
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
      switch (this.state) {
        case State.Head:
          at = this.head(chunk, at);
          break;
        case State.Sized:
        case State.ChunkData:
          at = this.data(chunk, at);
          break;
        case State.ChunkSize:
          at = this.chunkSize(chunk, at);
          break;
        case State.ChunkCr:
        case State.ChunkLf:
          at = this.chunkEnd(chunk, at);
          break;
        case State.Trailers:
          at = this.trailer(chunk, at);
          break;
        case State.UntilClose:
          this.events.onBody(at === 0 ? chunk : chunk.subarray(at), false);
          at = chunk.length;
          break;
        case State.Closed:
          at = skipLineEnds(chunk, at);
          if (at < chunk.length) throw protocolError('HPE_CLOSED_CONNECTION', 'Data after `Connection: close`');
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
      this.complete(null, 0);
      return;
    }
    if (this.started) throw protocolError('H1_CLOSED', 'other side closed');
  }

  private head(chunk: Buffer, at: number): number {
    if (this.carry === '') {
      // Line ends before a response are skipped (llhttp's `start`): a stray CRLF is nothing, in any read.
      at = skipLineEnds(chunk, at);
      if (at === chunk.length) return at;
      this.started = true;
      // The usual case: the whole head in one read. Only the head's bytes become a string, never the body's.
      const end = chunk.indexOf(HEAD_END_BYTES, at);
      if (end !== -1 && end - at <= MAX_HEAD_BYTES) {
        this.onHead(chunk.toString('latin1', at, end), chunk, end + 4);
        return end + 4;
      }
    }
    // The head straddles reads: its bytes are read by the scanner as they come, which refuses a defect at once and
    // finds the blank line (at most a head's worth is looked at).
    const upTo = Math.min(chunk.length, at + MAX_HEAD_BYTES + 4);
    const text = this.carry + chunk.toString('latin1', at, upTo);
    this.scanner ??= new HeadScanner();
    const end = this.scanner.scan(text, this.carry.length);
    if (end === -1 || end > MAX_HEAD_BYTES + 4) {
      if (text.length > MAX_HEAD_BYTES) throw protocolError('UND_ERR_HEADERS_OVERFLOW', 'Headers Overflow Error');
      this.carry = text;
      return upTo;
    }
    const next = at + end - this.carry.length;
    this.carry = '';
    this.scanner = null;
    this.onHead(text.slice(0, end - 4), chunk, next);
    return next;
  }

  /** A whole head (without its blank line); `chunk` from `next` holds what follows it. */
  private onHead(head: string, chunk: Buffer, next: number): void {
    if (!HEAD.test(head)) throw defectOf(head);
    // `ICE/` is a byte shorter than `HTTP/` and `RTSP/`.
    const v = head.charCodeAt(0) === 73 ? 4 : 5;
    const old = head.charCodeAt(v) === 48 || head.charCodeAt(v + 2) === 48;
    const status =
      (head.charCodeAt(v + 4) - 48) * 100 + (head.charCodeAt(v + 5) - 48) * 10 + (head.charCodeAt(v + 6) - 48);
    const headers = this.headersOf(head);
    this.state = this.bodyState(head, headers, status);
    const keeps = keepsAlive(headers, old) && this.state !== State.UntilClose;
    const timeoutMs = keepAliveTimeout(headers['keep-alive']);
    this.keepAlive = timeoutMs !== null ? { reusable: keeps, timeoutMs } : keeps ? KEEPS_ALIVE : CLOSES;
    this.events.onHead(status, headers, this.keepAlive);
    if (status === 101) {
      this.complete(null, 0);
      throw protocolError('HPE_PAUSED_UPGRADE', 'Pause on CONNECT/Upgrade: a switch of protocols no request asked for');
    }
    if (this.state === State.Head || (this.state === State.Sized && this.remaining === 0)) this.complete(chunk, next);
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

  /**
   * How the body of a response is framed, as llhttp frames it: none (State.Head) for HEAD, 1xx, 204 and 304;
   * chunked when the last coding is; until the close for another coding; else by Content-Length, or until the close.
   * Content-Length and Transfer-Encoding are checked whether a body follows or not.
   */
  private bodyState(head: string, headers: IncomingHttpHeaders, status: number): State {
    const length = headers['content-length'];
    const coding = headers['transfer-encoding'] === undefined ? null : lastCoding(head);
    let size = -1;
    if (length !== undefined) {
      if (typeof length !== 'string' || coding !== null) throw defectOf(head);
      size = lengthOf(length);
      if (size === -1) throw defectOf(head);
    }
    if (this.noBody || bodiless(status)) return State.Head;
    if (coding !== null) return isChunked(coding) ? State.ChunkSize : State.UntilClose;
    if (size > 0) {
      this.remaining = size;
      return State.Sized;
    }
    // No length: a 1xx has no body (llhttp_message_needs_eof), any other answer lasts until the close.
    return size === 0 || status < 200 ? State.Head : State.UntilClose;
  }

  private data(chunk: Buffer, at: number): number {
    const n = Math.min(this.remaining, chunk.length - at);
    const last = this.state === State.Sized && n === this.remaining;
    this.events.onBody(at === 0 && n === chunk.length ? chunk : chunk.subarray(at, at + n), last);
    this.remaining -= n;
    if (this.remaining === 0) {
      if (this.state === State.Sized) this.complete(chunk, at + n);
      else this.state = State.ChunkCr;
    }
    return at + n;
  }

  /** A chunk's header: its size, then its data or, for the last one, the trailers. */
  private chunkSize(chunk: Buffer, at: number): number {
    const next = this.chunkHeader.scan(chunk, at);
    if (next === -1) return chunk.length;
    this.remaining = this.chunkHeader.size;
    if (this.remaining === 0) {
      this.state = State.Trailers;
      this.trailers = new HeadScanner(true);
    } else {
      this.state = State.ChunkData;
    }
    return next;
  }

  /** The CRLF after a chunk's data. */
  private chunkEnd(chunk: Buffer, at: number): number {
    const c = chunk[at];
    if (this.state === State.ChunkCr && c === 13) this.state = State.ChunkLf;
    else if (this.state === State.ChunkLf && c === 10) this.state = State.ChunkSize;
    else if (this.state === State.ChunkCr && c === 10)
      throw protocolError('HPE_CR_EXPECTED', 'Missing expected CR after chunk data');
    else throw protocolError('HPE_STRICT', 'Expected LF after chunk data');
    return at + 1;
  }

  /** The trailer lines after the last chunk, read and checked as header lines, then dropped (as undici drops them). */
  private trailer(chunk: Buffer, at: number): number {
    const end = this.trailers!.scan(chunk.toString('latin1', at), 0);
    if (end === -1) return chunk.length;
    this.trailers = null;
    this.complete(chunk, at + end);
    return at + end;
  }

  /**
   * The response ended; `chunk` from `next` holds the bytes after it. Next comes another response, or, when the
   * connection does not stay open, nothing but line ends (State.Closed).
   */
  private complete(chunk: Buffer | null, next: number): void {
    this.state = this.keepAlive.reusable ? State.Head : State.Closed;
    this.started = false;
    this.noBody = false;
    const trailing = chunk !== null && skipLineEnds(chunk, next) < chunk.length;
    this.events.onComplete(trailing);
  }
}

/** The first line of a head, quoted and cut to 60 characters, for an error message. */
function describeHead(head: string): string {
  const first = head.split('\r\n', 1)[0] ?? '';
  return JSON.stringify(first.length > 60 ? `${first.slice(0, 60)}…` : first);
}
