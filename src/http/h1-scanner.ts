/**
 * llhttp's grammar of a response head and of a chunk header, read a byte at a time, as llhttp 9.4 reads it in strict
 * mode (`src/llhttp/http.ts`): each defect is refused at the byte where llhttp refuses it, with llhttp's error code.
 *
 * The parser (./h1-parser.ts) reads a head whole with one regular expression, which says whether it is right but not
 * what is wrong, nor whether a head that has not ended yet is already wrong. The scanners say that, off the usual
 * path: HeadScanner names the defect of a head the expression refused, checks a head arriving in pieces as they come
 * (a bad status line is refused before the blank line, as llhttp refuses it) and reads trailers; ChunkScanner reads a
 * chunk's size and its extensions, a few bytes a chunk.
 */
import { H1Error, type H1ParseCode } from './h1-error.js';

/** A token (RFC 9110: a method, a header name), as a regular-expression source; both heads' expressions use it. */
export const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";

/** A byte of a field value (RFC 9110: HTAB, SP, VCHAR, obs-text), as a regular-expression class. */
export const VALUE_BYTE = '[\\t\\x20-\\x7e\\x80-\\xff]';

/** The two classes above as tables of the 256 bytes. */
const IS_TOKEN = byteTable(new RegExp(`^${TOKEN}$`));
const IS_VALUE = byteTable(new RegExp(`^${VALUE_BYTE}$`));

function byteTable(re: RegExp): Uint8Array {
  const table = new Uint8Array(256);
  for (let c = 0; c < 256; c++) table[c] = re.test(String.fromCharCode(c)) ? 1 : 0;
  return table;
}

const CR = 13;
const LF = 10;
const SP = 32;
const HT = 9;

/** The most a Content-Length or a chunk size may be (llhttp keeps both in a uint64). */
const MAX_UINT64 = '18446744073709551615';

function fail(code: H1ParseCode, message: string): never {
  throw new H1Error(code, message);
}

enum Head {
  Protocol,
  Major,
  Dot,
  Minor,
  AfterVersion,
  Status,
  AfterStatus,
  Reason,
  StatusLf,
  HeadersStart,
  FieldStart,
  Field,
  ValueWs,
  ValueWsLf,
  EmptyValueEnd,
  Value,
  Length,
  LengthWs,
  ValueLf,
  ValueEnd,
  EndLf,
  Done,
}

const PROTOCOLS = ['HTTP/', 'RTSP/', 'ICE/'];

/** The decimal digits of a number without its leading zeros fit in a uint64. */
function fitsUint64(digits: string): boolean {
  return digits.length < MAX_UINT64.length || (digits.length === MAX_UINT64.length && digits <= MAX_UINT64);
}

/**
 * A response head, or the trailers of a chunked body, read as llhttp reads them. Fed latin1 text in pieces (scan),
 * it throws an H1Error at the first byte llhttp refuses, and says where the blank line that ends it is.
 */
export class HeadScanner {
  private state: Head;
  private protocol = '';
  private major = 0;
  private digits = 0;
  /** The header line's name, lower-cased, while it is read; then what it is to llhttp. */
  private name = '';
  private special: 'length' | 'coding' | null = null;
  /** Content-Length seen (llhttp's F_CONTENT_LENGTH), and Transfer-Encoding with a value (F_TRANSFER_ENCODING). */
  private sawLength = false;
  private sawCoding: boolean;
  /** The Content-Length's digits, leading zeros left out. */
  private length = '';

  /** `trailers`: reads the trailer lines after a chunked body's last chunk (its Transfer-Encoding already seen). */
  constructor(trailers = false) {
    this.state = trailers ? Head.FieldStart : Head.Protocol;
    this.sawCoding = trailers;
  }

  /** Reads `text` from `from`: the index after the blank line once the head ended, else -1 (more to come). */
  scan(text: string, from: number): number {
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.state < Head.HeadersStart) this.statusLine(c);
      else if (this.state < Head.ValueWs) this.field(c);
      else this.value(c);
      if (this.state === Head.Done) return i + 1;
    }
    return -1;
  }

  private statusLine(c: number): void {
    switch (this.state) {
      case Head.Protocol: {
        this.protocol += String.fromCharCode(c);
        const p = this.protocol;
        if (PROTOCOLS.includes(p)) this.state = Head.Major;
        else if (!PROTOCOLS.some((q) => q.startsWith(p))) fail('HPE_INVALID_CONSTANT', 'Expected HTTP/, RTSP/ or ICE/');
        return;
      }
      case Head.Major:
        if (c < 48 || c > 57) fail('HPE_INVALID_VERSION', 'Invalid major version');
        this.major = c - 48;
        this.state = Head.Dot;
        return;
      case Head.Dot:
        if (c !== 46) fail('HPE_INVALID_VERSION', 'Expected dot');
        this.state = Head.Minor;
        return;
      case Head.Minor: {
        if (c < 48 || c > 57) fail('HPE_INVALID_VERSION', 'Invalid minor version');
        const v = this.major * 10 + c - 48;
        if (v !== 9 && v !== 10 && v !== 11 && v !== 20) fail('HPE_INVALID_VERSION', 'Invalid HTTP version');
        this.state = Head.AfterVersion;
        return;
      }
      case Head.AfterVersion:
        if (c !== SP) fail('HPE_INVALID_VERSION', 'Expected space after version');
        this.state = Head.Status;
        return;
      case Head.Status:
        if (c < 48 || c > 57) fail('HPE_INVALID_STATUS', 'Invalid status code');
        if (++this.digits === 3) this.state = Head.AfterStatus;
        return;
      case Head.AfterStatus:
        if (c === SP) this.state = Head.Reason;
        else if (c === CR) this.state = Head.StatusLf;
        else fail('HPE_INVALID_STATUS', 'Invalid response status');
        return;
      case Head.Reason:
        if (c === CR) this.state = Head.StatusLf;
        else if (c === LF) fail('HPE_CR_EXPECTED', 'Missing expected CR after response line');
        return;
      default:
        if (c !== LF) fail('HPE_STRICT', 'Expected LF after CR');
        this.state = Head.HeadersStart;
    }
  }

  private field(c: number): void {
    if (this.state === Head.HeadersStart) {
      if (c === SP) fail('HPE_UNEXPECTED_SPACE', 'Unexpected space after start line');
      this.state = Head.FieldStart;
    }
    if (this.state === Head.FieldStart) {
      if (c === CR) this.state = Head.EndLf;
      else if (c === LF) fail('HPE_INVALID_HEADER_TOKEN', 'Invalid header field char');
      else if (c === 58) fail('HPE_INVALID_HEADER_TOKEN', 'Invalid header token');
      else {
        this.name = '';
        this.state = Head.Field;
      }
    }
    if (this.state === Head.Field) {
      if (c === 58) this.fieldEnd();
      else if (IS_TOKEN[c] === 1) this.name += String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c);
      else fail('HPE_INVALID_HEADER_TOKEN', c === SP ? 'Invalid header field char' : 'Invalid header token');
    }
  }

  /** The name is read: Content-Length and Transfer-Encoding may not stand together (llhttp 9 refuses both orders). */
  private fieldEnd(): void {
    this.special = this.name === 'content-length' ? 'length' : this.name === 'transfer-encoding' ? 'coding' : null;
    if (this.special === 'coding' && this.sawLength)
      fail('HPE_INVALID_TRANSFER_ENCODING', "Transfer-Encoding can't be present with Content-Length");
    if (this.special === 'length' && this.sawCoding)
      fail('HPE_INVALID_CONTENT_LENGTH', "Content-Length can't be present with Transfer-Encoding");
    this.state = Head.ValueWs;
  }

  private value(c: number): void {
    switch (this.state) {
      case Head.ValueWs:
        if (c === SP || c === HT) return;
        if (c === CR) this.state = Head.ValueWsLf;
        else if (c === LF) fail('HPE_INVALID_HEADER_TOKEN', 'Invalid header value char');
        else this.valueStart(c);
        return;
      case Head.ValueWsLf:
        if (c !== LF) fail('HPE_STRICT', 'Expected LF after CR');
        this.state = Head.EmptyValueEnd;
        return;
      case Head.EmptyValueEnd:
        if (c === SP || c === HT) fail('HPE_INVALID_HEADER_TOKEN', 'Invalid header value char');
        if (this.special === 'length') fail('HPE_INVALID_CONTENT_LENGTH', 'Empty Content-Length');
        this.nextLine(c);
        return;
      case Head.Length:
      case Head.LengthWs:
        this.lengthByte(c);
        return;
      case Head.Value:
        this.valueByte(c);
        return;
      case Head.ValueLf:
        if (c !== LF) fail('HPE_LF_EXPECTED', 'Missing expected LF after header value');
        this.state = Head.ValueEnd;
        return;
      case Head.ValueEnd:
        if (c === SP || c === HT) fail('HPE_INVALID_HEADER_TOKEN', 'Unexpected whitespace after header value');
        this.nextLine(c);
        return;
      default:
        if (c !== LF) fail('HPE_STRICT', 'Expected LF after headers');
        this.state = Head.Done;
    }
  }

  /** The first byte of a value that is not empty. */
  private valueStart(c: number): void {
    if (this.special === 'length') {
      if (this.sawLength) fail('HPE_UNEXPECTED_CONTENT_LENGTH', 'Duplicate Content-Length');
      this.length = '';
      this.state = Head.Length;
      this.lengthByte(c);
      return;
    }
    if (this.special === 'coding') this.sawCoding = true;
    this.state = Head.Value;
    this.valueByte(c);
  }

  private valueByte(c: number): void {
    if (c === CR) this.state = Head.ValueLf;
    else if (c === LF) fail('HPE_CR_EXPECTED', 'Missing expected CR after header value');
    else if (IS_VALUE[c] !== 1) fail('HPE_INVALID_HEADER_TOKEN', 'Invalid header value char');
  }

  /** A Content-Length: digits, then spaces or tabs, then the line's end. */
  private lengthByte(c: number): void {
    if (this.state === Head.Length && c >= 48 && c <= 57) {
      if (this.length !== '' || c !== 48) this.length += String.fromCharCode(c);
      if (!fitsUint64(this.length)) fail('HPE_INVALID_CONTENT_LENGTH', 'Content-Length overflow');
    } else if (c === SP || c === HT) {
      this.state = Head.LengthWs;
    } else if (c === CR || c === LF) {
      this.sawLength = true;
      this.valueByte(c);
    } else {
      fail('HPE_INVALID_CONTENT_LENGTH', 'Invalid character in Content-Length');
    }
  }

  /** The first byte after a header line: the next line's, or the CR of the blank line. */
  private nextLine(c: number): void {
    this.state = Head.FieldStart;
    this.field(c);
  }
}

enum Chunk {
  SizeStart,
  Size,
  Extensions,
  ExtensionName,
  ExtensionValue,
  Quoted,
  QuotedPair,
  QuotedEnd,
  Lf,
}

/** Bytes of a quoted string (RFC 9110 qdtext): HTAB, SP, VCHAR but `"` and `\`, obs-text. */
const IS_QDTEXT = IS_VALUE.slice();
IS_QDTEXT[34] = IS_QDTEXT[92] = 0;

/**
 * A chunk's header, `size *(";" name ["=" value]) CRLF`, read as llhttp reads it: the size in hex, leading zeros
 * allowed, at most a uint64 (beyond 2^53 a JavaScript number holds it roughly: no body that long is ever read); no
 * space after the size; an extension's value a token or a quoted string.
 */
export class ChunkScanner {
  private state = Chunk.SizeStart;
  /** The size read so far, and its hex digits without the leading zeros. */
  size = 0;
  private digits = 0;

  /** Reads `bytes` from `from`: the index after the header's LF once it ended (then `size` is the chunk's), or -1. */
  scan(bytes: Buffer, from: number): number {
    for (let i = from; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (this.state <= Chunk.Size) this.sizeByte(c);
      else if (this.state === Chunk.Lf) {
        if (c !== LF) fail('HPE_STRICT', 'Expected LF after chunk size');
        this.state = Chunk.SizeStart;
        return i + 1;
      } else this.extensionByte(c);
    }
    return -1;
  }

  private sizeByte(c: number): void {
    const d = c >= 48 && c <= 57 ? c - 48 : (c | 32) >= 97 && (c | 32) <= 102 ? (c | 32) - 87 : -1;
    if (d >= 0) {
      if (this.state === Chunk.SizeStart) {
        this.size = 0;
        this.digits = 0;
        this.state = Chunk.Size;
      }
      if (this.digits > 0 || d > 0) this.digits++;
      if (this.digits > 16) fail('HPE_INVALID_CHUNK_SIZE', 'Chunk size overflow');
      this.size = this.size * 16 + d;
    } else if (this.state === Chunk.SizeStart) {
      fail('HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size');
    } else if (c === 59) {
      this.state = Chunk.Extensions;
    } else {
      this.lineEnd(c, 'HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size');
    }
  }

  private extensionByte(c: number): void {
    switch (this.state) {
      case Chunk.Extensions:
        if (c === SP || c === CR) fail('HPE_STRICT', 'Invalid character in chunk extensions');
        this.state = Chunk.ExtensionName;
        this.extensionByte(c);
        return;
      case Chunk.ExtensionName:
        if (c === 61) this.state = Chunk.ExtensionValue;
        else if (c === 59) this.state = Chunk.Extensions;
        else if (IS_TOKEN[c] !== 1) this.lineEnd(c, 'HPE_STRICT', 'Invalid character in chunk extensions name');
        return;
      case Chunk.ExtensionValue:
        if (c === 34) this.state = Chunk.Quoted;
        else if (c === 59) this.state = Chunk.Extensions;
        else if (IS_TOKEN[c] !== 1) this.lineEnd(c, 'HPE_STRICT', 'Invalid character in chunk extensions value');
        return;
      case Chunk.Quoted:
        if (c === 34) this.state = Chunk.QuotedEnd;
        else if (c === 92) this.state = Chunk.QuotedPair;
        else if (IS_QDTEXT[c] !== 1) fail('HPE_STRICT', 'Invalid character in chunk extensions quoted value');
        return;
      case Chunk.QuotedPair:
        if (IS_VALUE[c] !== 1) fail('HPE_STRICT', 'Invalid quoted-pair in chunk extensions quoted value');
        this.state = Chunk.Quoted;
        return;
      default:
        if (c === 59) this.state = Chunk.Extensions;
        else this.lineEnd(c, 'HPE_STRICT', 'Invalid character in chunk extensions quote value');
    }
  }

  /** CR ends the header (LF must follow); a bare LF or anything else is a defect. */
  private lineEnd(c: number, code: H1ParseCode, message: string): void {
    if (c === CR) this.state = Chunk.Lf;
    else if (c === LF) fail('HPE_CR_EXPECTED', 'Missing expected CR after chunk size');
    else fail(code, message);
  }
}
