/**
 * Test-only: the strict response cases of llhttp's own test corpus, `test/response/*.md` of nodejs/llhttp at
 * v9.4.2 (https://github.com/nodejs/llhttp/tree/v9.4.2/test/response), as data: for each case, the file and the
 * case's heading, the bytes its harness feeds (test/md-test.ts: the block's lines ended by CRLF, its escapes read,
 * text in UTF-8, here one latin1 character per byte), and what llhttp's log says of them: each response's status,
 * its body, whether it completed, and the error llhttp stops at (its code's name). The 77 cases are every block of
 * type `response` (the pausing ones read the same bytes, paused and resumed at a callback) and `response-finish`
 * (fed, then llhttp_finish: a body read until the close completes); the lenient types are not held.
 */

export interface CorpusResponse {
  readonly status: number;
  /** Its body, latin1. */
  readonly body: string;
  /** llhttp logged its `message complete`. */
  readonly complete: boolean;
}

export interface CorpusCase {
  /** `test/response/<file>.md`. */
  readonly file: string;
  /** The case's heading in that file. */
  readonly name: string;
  /** The bytes fed, one latin1 character per byte. */
  readonly bytes: string;
  /** The connection's end follows the bytes (`response-finish`). */
  readonly finish?: true;
  /** Every response is the answer to a HEAD (`skipBody`: llhttp's on_headers_complete returns 1). */
  readonly noBody?: true;
  readonly responses: readonly CorpusResponse[];
  /** The error llhttp stops at, after the responses above. */
  readonly error?: string;
}

export const LLHTTP_RESPONSE_CORPUS: readonly CorpusCase[] = [
  {
    file: 'sample',
    name: 'Simple response',
    bytes: 'HTTP/1.1 200 OK\r\nHeader1: Value1\r\nHeader2:\t Value2\r\nContent-Length: 0\r\n\r\n',
    responses: [{ status: 200, body: '', complete: true }],
  },
  {
    file: 'sample',
    name: 'RTSP response',
    bytes: 'RTSP/1.1 200 OK\r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
  },
  {
    file: 'sample',
    name: 'ICE response',
    bytes: 'ICE/1.1 200 OK\r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
  },
  {
    file: 'sample',
    name: 'Error on invalid response start',
    bytes: 'HTTPER/1.1 200 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_CONSTANT',
  },
  {
    file: 'sample',
    name: 'Empty body should not trigger spurious span callbacks',
    bytes: 'HTTP/1.1 200 OK\r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
  },
  {
    file: 'sample',
    name: 'Google 301',
    bytes:
      'HTTP/1.1 301 Moved Permanently\r\nLocation: http://www.google.com/\r\nContent-Type: text/html; charset=UTF-8\r\nDate: Sun, 26 Apr 2009 11:11:49 GMT\r\nExpires: Tue, 26 May 2009 11:11:49 GMT\r\nX-$PrototypeBI-Version: 1.6.0.3\r\nCache-Control: public, max-age=2592000\r\nServer: gws\r\nContent-Length:  219  \r\n\r\n<HTML><HEAD><meta http-equiv=content-type content=text/html;charset=utf-8>\n<TITLE>301 Moved</TITLE></HEAD><BODY>\n<H1>301 Moved</H1>\nThe document has moved\n<A HREF="http://www.google.com/">here</A>.\r\n</BODY></HTML>',
    responses: [
      {
        status: 301,
        body: '<HTML><HEAD><meta http-equiv=content-type content=text/html;charset=utf-8>\n<TITLE>301 Moved</TITLE></HEAD><BODY>\n<H1>301 Moved</H1>\nThe document has moved\n<A HREF="http://www.google.com/">here</A>.\r\n</BODY></HTML>',
        complete: false,
      },
    ],
  },
  {
    file: 'sample',
    name: 'amazon.com',
    bytes:
      'HTTP/1.1 301 MovedPermanently\r\nDate: Wed, 15 May 2013 17:06:33 GMT\r\nServer: Server\r\nx-amz-id-1: 0GPHKXSJQ826RK7GZEB2\r\np3p: policyref="http://www.amazon.com/w3c/p3p.xml",CP="CAO DSP LAW CUR ADM IVAo IVDo CONo OTPo OUR DELi PUBi OTRi BUS PHY ONL UNI PUR FIN COM NAV INT DEM CNT STA HEA PRE LOC GOV OTC "\r\nx-amz-id-2: STN69VZxIFSz9YJLbz1GDbxpbjG6Qjmmq5E3DxRhOUw+Et0p4hr7c/Q8qNcx4oAD\r\nLocation: http://www.amazon.com/Dan-Brown/e/B000AP9DSU/ref=s9_pop_gw_al1?_encoding=UTF8&refinementId=618073011&pf_rd_m=ATVPDKIKX0DER&pf_rd_s=center-2&pf_rd_r=0SHYY5BZXN3KR20BNFAY&pf_rd_t=101&pf_rd_p=1263340922&pf_rd_i=507846\r\nVary: Accept-Encoding,User-Agent\r\nContent-Type: text/html; charset=ISO-8859-1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n\n\r\n0\r\n\r\n',
    responses: [{ status: 301, body: '\n', complete: true }],
  },
  {
    file: 'sample',
    name: 'No headers and no body',
    bytes: 'HTTP/1.1 404 Not Found\r\n\r\n',
    responses: [{ status: 404, body: '', complete: false }],
  },
  {
    file: 'sample',
    name: 'No reason phrase',
    bytes: 'HTTP/1.1 301\r\n\r\n',
    responses: [{ status: 301, body: '', complete: false }],
  },
  {
    file: 'sample',
    name: 'Empty reason phrase after space',
    bytes: 'HTTP/1.1 200 \r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
  },
  {
    file: 'sample',
    name: 'No carriage ret',
    bytes:
      'HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\nConnection: close\n\nthese headers are from http://news.ycombinator.com/',
    responses: [],
    error: 'HPE_CR_EXPECTED',
  },
  {
    file: 'sample',
    name: 'Underscore in header key',
    bytes:
      'HTTP/1.1 200 OK\r\nServer: DCLK-AdSvr\r\nContent-Type: text/xml\r\nContent-Length: 0\r\nDCLK_imp: v7;x;114750856;0-0;0;17820020;0/0;21603567/21621457/1;;~okv=;dcmt=text/xml;;~cs=o\r\n\r\n',
    responses: [{ status: 200, body: '', complete: true }],
  },
  {
    file: 'sample',
    name: 'bonjourmadame.fr',
    bytes:
      'HTTP/1.0 301 Moved Permanently\r\nDate: Thu, 03 Jun 2010 09:56:32 GMT\r\nServer: Apache/2.2.3 (Red Hat)\r\nCache-Control: public\r\nPragma: \r\nLocation: http://www.bonjourmadame.fr/\r\nVary: Accept-Encoding\r\nContent-Length: 0\r\nContent-Type: text/html; charset=UTF-8\r\nConnection: keep-alive\r\n\r\n',
    responses: [{ status: 301, body: '', complete: true }],
  },
  {
    file: 'sample',
    name: 'Spaces in header value',
    bytes:
      'HTTP/1.1 200 OK\r\nDate: Tue, 28 Sep 2010 01:14:13 GMT\r\nServer: Apache\r\nCache-Control: no-cache, must-revalidate\r\nExpires: Mon, 26 Jul 1997 05:00:00 GMT\r\n.et-Cookie: PlaxoCS=1274804622353690521; path=/; domain=.plaxo.com\r\nVary: Accept-Encoding\r\n_eep-Alive: timeout=45\r\n_onnection: Keep-Alive\r\nTransfer-Encoding: chunked\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n0\r\n\r\n',
    responses: [{ status: 200, body: '', complete: true }],
  },
  {
    file: 'sample',
    name: 'Spaces in header name',
    bytes:
      'HTTP/1.1 200 OK\r\nServer: Microsoft-IIS/6.0\r\nX-Powered-By: ASP.NET\r\nen-US Content-Type: text/xml\r\nContent-Type: text/xml\r\nContent-Length: 16\r\nDate: Fri, 23 Jul 2010 18:45:38 GMT\r\nConnection: keep-alive\r\n\r\n<xml>hello</xml>',
    responses: [],
    error: 'HPE_INVALID_HEADER_TOKEN',
  },
  {
    file: 'sample',
    name: 'Non ASCII in status line',
    bytes:
      'HTTP/1.1 500 Ori\xc3\xabntatieprobleem\r\nDate: Fri, 5 Nov 2010 23:07:12 GMT+2\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    responses: [{ status: 500, body: '', complete: true }],
  },
  {
    file: 'sample',
    name: 'HTTP version 0.9',
    bytes: 'HTTP/0.9 200 OK\r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
  },
  {
    file: 'sample',
    name: 'No Content-Length, no Transfer-Encoding',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello world',
    responses: [{ status: 200, body: 'hello world', complete: false }],
  },
  {
    file: 'sample',
    name: 'Response starting with CRLF',
    bytes: '\r\nHTTP/1.1 200 OK\r\nHeader1: Value1\r\nHeader2:\t Value2\r\nContent-Length: 0\r\n\r\n',
    responses: [{ status: 200, body: '', complete: true }],
  },
  {
    file: 'connection',
    name: 'Proxy-Connection',
    bytes:
      'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Length: 11\r\nProxy-Connection: close\r\nDate: Thu, 31 Dec 2009 20:55:48 +0000\r\n\r\nhello world',
    responses: [{ status: 200, body: 'hello world', complete: true }],
  },
  {
    file: 'connection',
    name: 'HTTP/1.0 with keep-alive and EOF-terminated 200 status',
    bytes: 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nHTTP/1.0 200 OK',
    responses: [{ status: 200, body: 'HTTP/1.0 200 OK', complete: false }],
  },
  {
    file: 'connection',
    name: 'HTTP/1.0 with keep-alive and 204 status',
    bytes: 'HTTP/1.0 204 No content\r\nConnection: keep-alive\r\n\r\nHTTP/1.0 200 OK',
    responses: [{ status: 204, body: '', complete: true }],
  },
  {
    file: 'connection',
    name: 'HTTP/1.1 with EOF-terminated 200 status',
    bytes: 'HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 200 OK',
    responses: [{ status: 200, body: 'HTTP/1.1 200 OK', complete: false }],
  },
  {
    file: 'connection',
    name: 'HTTP/1.1 with 204 status',
    bytes: 'HTTP/1.1 204 No content\r\n\r\nHTTP/1.1 200 OK',
    responses: [{ status: 204, body: '', complete: true }],
  },
  {
    file: 'connection',
    name: 'HTTP/1.1 with keep-alive disabled and 204 status',
    bytes: 'HTTP/1.1 204 No content\r\nConnection: close\r\n\r\nHTTP/1.1 200 OK',
    responses: [{ status: 204, body: '', complete: true }],
    error: 'HPE_CLOSED_CONNECTION',
  },
  {
    file: 'connection',
    name: 'HTTP/1.1 with keep-alive disabled, content-length',
    bytes:
      'HTTP/1.1 200 No content\r\nContent-Length: 5\r\nConnection: close\r\n\r\n2ad731e3-4dcd-4f70-b871-0ad284b29ffc',
    responses: [{ status: 200, body: '2ad73', complete: true }],
    error: 'HPE_CLOSED_CONNECTION',
  },
  {
    file: 'connection',
    name: 'HTTP 101 response with Upgrade and Content-Length header',
    bytes:
      'HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: h2c\r\nContent-Length: 4\r\n\r\nbodyproto',
    responses: [{ status: 101, body: '', complete: true }],
    error: 'HPE_PAUSED_UPGRADE',
  },
  {
    file: 'connection',
    name: 'HTTP 101 response with Upgrade and Transfer-Encoding header',
    bytes:
      'HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: h2c\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nbo\r\n2\r\ndy\r\n0\r\n\r\nproto',
    responses: [{ status: 101, body: '', complete: true }],
    error: 'HPE_PAUSED_UPGRADE',
  },
  {
    file: 'connection',
    name: 'HTTP 200 response with Upgrade header',
    bytes: 'HTTP/1.1 200 OK\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\nbody',
    responses: [{ status: 200, body: 'body', complete: false }],
  },
  {
    file: 'connection',
    name: 'HTTP 200 response with Upgrade header and Content-Length',
    bytes: 'HTTP/1.1 200 OK\r\nConnection: upgrade\r\nUpgrade: h2c\r\nContent-Length: 4\r\n\r\nbody',
    responses: [{ status: 200, body: 'body', complete: true }],
  },
  {
    file: 'connection',
    name: 'HTTP 200 response with Upgrade header and Transfer-Encoding',
    bytes:
      'HTTP/1.1 200 OK\r\nConnection: upgrade\r\nUpgrade: h2c\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nbo\r\n2\r\ndy\r\n0\r\n\r\n',
    responses: [{ status: 200, body: 'body', complete: true }],
  },
  {
    file: 'connection',
    name: 'HTTP 304 with Content-Length',
    bytes:
      'HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello',
    responses: [
      { status: 304, body: '', complete: true },
      { status: 200, body: 'hello', complete: true },
    ],
  },
  {
    file: 'connection',
    name: 'HTTP 304 with Transfer-Encoding',
    bytes:
      'HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n',
    responses: [
      { status: 304, body: '', complete: true },
      { status: 200, body: 'hello', complete: false },
    ],
  },
  {
    file: 'connection',
    name: 'HTTP 100 first, then 400',
    bytes:
      'HTTP/1.1 100 Continue\r\n\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 14\r\nDate: Fri, 15 Sep 2023 19:47:23 GMT\r\nServer: Python/3.10 aiohttp/4.0.0a2.dev0\r\n\r\n404: Not Found',
    responses: [
      { status: 100, body: '', complete: true },
      { status: 404, body: '404: Not Found', complete: true },
    ],
  },
  {
    file: 'connection',
    name: 'HTTP 103 first, then 200',
    bytes:
      'HTTP/1.1 103 Early Hints\r\nLink: </styles.css>; rel=preload; as=style\r\n\r\nHTTP/1.1 200 OK\r\nDate: Wed, 13 Sep 2023 11:09:41 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 17\r\n\r\nresponse content',
    responses: [
      { status: 103, body: '', complete: true },
      { status: 200, body: 'response content', complete: false },
    ],
  },
  {
    file: 'content-length',
    name: 'Response without `Content-Length`, but with body',
    bytes:
      'HTTP/1.1 200 OK\r\nDate: Tue, 04 Aug 2009 07:59:32 GMT\r\nServer: Apache\r\nX-Powered-By: Servlet/2.5 JSP/2.1\r\nContent-Type: text/xml; charset=utf-8\r\nConnection: close\r\n\r\n<?xml version=\\"1.0\\" encoding=\\"UTF-8\\"?>\n<SOAP-ENV:Envelope xmlns:SOAP-ENV=\\"http://schemas.xmlsoap.org/soap/envelope/\\">\n  <SOAP-ENV:Body>\n    <SOAP-ENV:Fault>\n       <faultcode>SOAP-ENV:Client</faultcode>\n       <faultstring>Client Error</faultstring>\n    </SOAP-ENV:Fault>\n  </SOAP-ENV:Body>\n</SOAP-ENV:Envelope>',
    responses: [
      {
        status: 200,
        body: '<?xml version=\\"1.0\\" encoding=\\"UTF-8\\"?>\n<SOAP-ENV:Envelope xmlns:SOAP-ENV=\\"http://schemas.xmlsoap.org/soap/envelope/\\">\n  <SOAP-ENV:Body>\n    <SOAP-ENV:Fault>\n       <faultcode>SOAP-ENV:Client</faultcode>\n       <faultstring>Client Error</faultstring>\n    </SOAP-ENV:Fault>\n  </SOAP-ENV:Body>\n</SOAP-ENV:Envelope>',
        complete: false,
      },
    ],
  },
  {
    file: 'content-length',
    name: 'Content-Length-X',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length-X: 0\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nOK\r\n0\r\n\r\n',
    responses: [{ status: 200, body: 'OK', complete: true }],
  },
  {
    file: 'content-length',
    name: 'Content-Length reset when no body is received',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 123\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 456\r\n\r\n',
    noBody: true,
    responses: [
      { status: 200, body: '', complete: true },
      { status: 200, body: '', complete: true },
    ],
  },
  {
    file: 'content-length',
    name: 'Tabs in `Content-Length` (surrounding)',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length:\t42\t\r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
  },
  {
    file: 'transfer-encoding',
    name: 'Trailing space on chunked body',
    bytes:
      'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n25  \r\nThis is the data in the first chunk\r\n\r\n1C\r\nand this is the second one\r\n\r\n0  \r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
    error: 'HPE_INVALID_CHUNK_SIZE',
  },
  {
    file: 'transfer-encoding',
    name: '`chunked` before other transfer-encoding',
    bytes: 'HTTP/1.1 200 OK\r\nAccept: */*\r\nTransfer-Encoding: chunked, deflate\r\n\r\nWorld',
    responses: [{ status: 200, body: 'World', complete: false }],
  },
  {
    file: 'transfer-encoding',
    name: 'multiple transfer-encoding where chunked is not the last one',
    bytes: 'HTTP/1.1 200 OK\r\nAccept: */*\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\nWorld',
    responses: [{ status: 200, body: 'World', complete: false }],
  },
  {
    file: 'transfer-encoding',
    name: '`chunkedchunked` transfer-encoding does not enable chunked enconding',
    bytes: 'HTTP/1.1 200 OK\r\nAccept: */*\r\nTransfer-Encoding: chunkedchunked\r\n\r\n2\r\nOK\r\n0\r\n\r\n',
    responses: [{ status: 200, body: '2\r\nOK\r\n0\r\n\r\n', complete: false }],
  },
  {
    file: 'transfer-encoding',
    name: 'Chunk extensions',
    bytes:
      'HTTP/1.1 200 OK\r\nHost: localhost\r\nTransfer-encoding: chunked\r\n\r\n5;ilovew3;somuchlove=aretheseparametersfor\r\nhello\r\n6;blahblah;blah\r\n world\r\n0\r\n\r\n',
    responses: [{ status: 200, body: 'hello world', complete: true }],
  },
  {
    file: 'transfer-encoding',
    name: 'No semicolon before chunk extensions',
    bytes:
      'HTTP/1.1 200 OK\r\nHost: localhost\r\nTransfer-encoding: chunked\r\n\r\n2 erfrferferf\r\naa\r\n0 rrrr\r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
    error: 'HPE_INVALID_CHUNK_SIZE',
  },
  {
    file: 'transfer-encoding',
    name: 'No extension after semicolon',
    bytes: 'HTTP/1.1 200 OK\r\nHost: localhost\r\nTransfer-encoding: chunked\r\n\r\n2;\r\naa\r\n0\r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
    error: 'HPE_STRICT',
  },
  {
    file: 'transfer-encoding',
    name: 'Chunk extensions quoting',
    bytes:
      'HTTP/1.1 200 OK\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5;ilovew3="I love; extensions";somuchlove="aretheseparametersfor";blah;foo=bar\r\nhello\r\n6;blahblah;blah\r\n world\r\n0\r\n',
    responses: [{ status: 200, body: 'hello world', complete: false }],
  },
  {
    file: 'transfer-encoding',
    name: 'Unbalanced chunk extensions quoting',
    bytes:
      'HTTP/1.1 200 OK\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5;ilovew3="abc";somuchlove="def; ghi\r\nhello\r\n6;blahblah;blah\r\n world\r\n0\r\n',
    responses: [{ status: 200, body: '', complete: false }],
    error: 'HPE_STRICT',
  },
  {
    file: 'invalid',
    name: 'Incomplete HTTP protocol',
    bytes: 'HTP/1.1 200 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_CONSTANT',
  },
  {
    file: 'invalid',
    name: 'Extra digit in HTTP major version',
    bytes: 'HTTP/01.1 200 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_VERSION',
  },
  {
    file: 'invalid',
    name: 'Extra digit in HTTP major version #2',
    bytes: 'HTTP/11.1 200 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_VERSION',
  },
  {
    file: 'invalid',
    name: 'Extra digit in HTTP minor version',
    bytes: 'HTTP/1.01 200 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_VERSION',
  },
  {
    file: 'invalid',
    name: 'Tab after HTTP version',
    bytes: 'HTTP/1.1\t200 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_VERSION',
  },
  {
    file: 'invalid',
    name: 'CR before response and tab after HTTP version',
    bytes: '\rHTTP/1.1\t200 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_VERSION',
  },
  {
    file: 'invalid',
    name: 'Headers separated by CR',
    bytes: 'HTTP/1.1 200 OK\r\nFoo: 1\rBar: 2\r\n\r\n',
    responses: [],
    error: 'HPE_LF_EXPECTED',
  },
  {
    file: 'invalid',
    name: 'Bare CR after response line',
    bytes: 'HTTP/1.1 200 OK\rContent-Length: 0\r\n\r\n',
    responses: [],
    error: 'HPE_STRICT',
  },
  {
    file: 'invalid',
    name: 'Bare CR followed by CR after response line',
    bytes: 'HTTP/1.1 200 OK\r\rContent-Length: 4\r\n\r\nEvil',
    responses: [],
    error: 'HPE_STRICT',
  },
  {
    file: 'invalid',
    name: 'Invalid HTTP version',
    bytes: 'HTTP/5.6 200 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_VERSION',
  },
  {
    file: 'invalid',
    name: 'Invalid space after start line',
    bytes: 'HTTP/1.1 200 OK\r\n Host: foo',
    responses: [],
    error: 'HPE_UNEXPECTED_SPACE',
  },
  {
    file: 'invalid',
    name: 'Extra space between HTTP version and status code',
    bytes: 'HTTP/1.1  200 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_STATUS',
  },
  {
    file: 'invalid',
    name: 'Extra space between status code and reason',
    bytes: 'HTTP/1.1 200  OK\r\n\r\n',
    responses: [{ status: 200, body: '', complete: false }],
  },
  {
    file: 'invalid',
    name: 'One-digit status code',
    bytes: 'HTTP/1.1 2 OK\r\n\r\n',
    responses: [],
    error: 'HPE_INVALID_STATUS',
  },
  {
    file: 'invalid',
    name: 'Only LFs present and no body',
    bytes: 'HTTP/1.1 200 OK\nContent-Length: 0\n\n',
    responses: [],
    error: 'HPE_CR_EXPECTED',
  },
  {
    file: 'invalid',
    name: 'Only LFs present',
    bytes: 'HTTP/1.1 200 OK\nFoo: abc\nBar: def\n\nBODY\n\\',
    responses: [],
    error: 'HPE_CR_EXPECTED',
  },
  {
    file: 'finish',
    name: 'It should be safe to finish with cb after empty response',
    bytes: 'HTTP/1.1 200 OK\r\n\r\n',
    finish: true,
    responses: [{ status: 200, body: '', complete: true }],
  },
  {
    file: 'pipelining',
    name: 'Should parse multiple events',
    bytes:
      'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nAAA\r\nHTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\nBBBB\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 5\r\n\r\nCCCC',
    responses: [
      { status: 200, body: 'AAA', complete: true },
      { status: 201, body: 'BBBB', complete: true },
      { status: 202, body: 'CCCC', complete: false },
    ],
  },
  {
    file: 'pausing',
    name: 'on_message_begin',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc',
    responses: [{ status: 200, body: 'abc', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_message_complete',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc',
    responses: [{ status: 200, body: 'abc', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_version_complete',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc',
    responses: [{ status: 200, body: 'abc', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_status_complete',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc',
    responses: [{ status: 200, body: 'abc', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_header_field_complete',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc',
    responses: [{ status: 200, body: 'abc', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_header_value_complete',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc',
    responses: [{ status: 200, body: 'abc', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_headers_complete',
    bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc',
    responses: [{ status: 200, body: 'abc', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_chunk_header',
    bytes: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\n',
    responses: [{ status: 200, body: '0123456789', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_chunk_extension_name',
    bytes: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na;foo=bar\r\n0123456789\r\n0\r\n\r\n',
    responses: [{ status: 200, body: '0123456789', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_chunk_extension_value',
    bytes: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na;foo=bar\r\n0123456789\r\n0\r\n\r\n',
    responses: [{ status: 200, body: '0123456789', complete: true }],
  },
  {
    file: 'pausing',
    name: 'on_chunk_complete',
    bytes: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\n',
    responses: [{ status: 200, body: '0123456789', complete: true }],
  },
];
