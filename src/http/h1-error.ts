/**
 * The failures of the direct HTTP/1.1 transport (./h1-pool.ts, ./h1-parser.ts), each named as undici or its parser
 * llhttp names it, so that the client (./client.ts) classifies both transports' failures alike.
 */

/** A defect of the response's bytes: llhttp's name for it (llhttp 9, `src/llhttp/constants.ts`). */
export type H1ParseCode =
  | 'HPE_INVALID_CONSTANT'
  | 'HPE_INVALID_VERSION'
  | 'HPE_INVALID_STATUS'
  | 'HPE_UNEXPECTED_SPACE'
  | 'HPE_INVALID_HEADER_TOKEN'
  | 'HPE_STRICT'
  | 'HPE_CR_EXPECTED'
  | 'HPE_LF_EXPECTED'
  | 'HPE_INVALID_CONTENT_LENGTH'
  | 'HPE_UNEXPECTED_CONTENT_LENGTH'
  | 'HPE_INVALID_TRANSFER_ENCODING'
  | 'HPE_INVALID_CHUNK_SIZE'
  /** Bytes after a response that closes the connection (`Connection: close`, HTTP/1.0 without keep-alive). */
  | 'HPE_CLOSED_CONNECTION'
  /** A 101 answer: what follows is another protocol, which no request of this transport asks for. */
  | 'HPE_PAUSED_UPGRADE'
  /** The parser's fast reading and its byte-by-byte one disagree about a head: a bug of the parser. */
  | 'HPE_INTERNAL';

/** Everything the transport fails a request with, but the socket's own errors (ECONNRESET...), passed on as they are. */
export type H1Code =
  | H1ParseCode
  /** The connection ended before the response did (undici: UND_ERR_SOCKET, "other side closed"). */
  | 'H1_CLOSED'
  /** The response's head is over MAX_HEAD_BYTES (undici's own check). */
  | 'UND_ERR_HEADERS_OVERFLOW'
  /** A response no request asked for: bytes of a head on an idle connection (undici: "bad response"). */
  | 'UND_ERR_SOCKET'
  /** A method, path or header value undici would not send. */
  | 'UND_ERR_INVALID_ARG'
  | 'UND_ERR_CONNECT_TIMEOUT'
  /** Dispatched after close() or destroy(), or failed by destroy(). */
  | 'UND_ERR_CLOSED'
  | 'UND_ERR_DESTROYED';

export class H1Error extends Error {
  constructor(
    readonly code: H1Code,
    message: string,
  ) {
    super(message);
    this.name = 'H1Error';
  }
}
