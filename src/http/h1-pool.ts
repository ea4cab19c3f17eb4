/**
 * The direct HTTP/1.1 transport: a pool of keep-alive connections to one plain-http origin, one request at a time on
 * each, for the client (./client.ts) when no proxy, TLS or HTTP/2 is in the way. It takes the same handler as
 * undici's dispatchers (its controller API: onRequestStart, onResponseStart, onResponseData, onResponseEnd,
 * onResponseError) and behaves as undici's Pool does towards it: requests wait for a free connection in the order
 * they came, a controller's abort() before the request is written keeps it off the wire, a failure of the
 * connection fails the request on it, nothing is retried or followed.
 *
 * Why not undici here: with every check on, the client's transport is most of what a checked request costs. On
 * the bench's nginx peer, the client over undici's Pool spent about 17 µs of CPU on a request and its answer, over
 * this transport about 10 (docs/benchmarks.md, "The direct HTTP/1.1 transport"). Its connections read into the
 * pool's one buffer (node's `onread`), not into a buffer node makes for every read and pushes through a stream:
 * on a machine where a bare loop of 10 connections cost 16.7 µs a request, that alone took it to 12.4
 * (docs/benchmarks.md, "Reading into one buffer"). TLS, proxies and HTTP/2 stay undici's.
 *
 * What it keeps of undici's manners: the request head undici writes (`host`, `connection: keep-alive`, then the
 * caller's headers, `content-length` for a body), its checks of the path, method and header values (a CR or LF in
 * a value is refused before anything is written), its keep-alive rule (an idle connection is reused for 4 s, or
 * for the server's `Keep-Alive: timeout` less 2 s; an idle socket does not hold the process), and its error codes
 * where the client reads them. Unlike undici, a request given up before it is written leaves its connection open,
 * and an informational answer it did not ask for (100 Continue) is read past as any 1xx is (RFC 9110, 15.2).
 */
import { AssertionError } from 'node:assert';
import type { IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { H1Error } from './h1-error.js';
import { H1ResponseParser, type H1ResponseEvents, type KeepAlive } from './h1-parser.js';
import { TOKEN, VALUE_BYTE } from './h1-scanner.js';
import { WaitQueue } from './h1-queue.js';

/**
 * What a handler may do with its request: give it up (undici's DispatchController, without pause and resume: a
 * response is read as it comes, never held back, so a handler has nothing to pause).
 */
export interface H1Controller {
  abort(reason: Error): void;
  readonly aborted: boolean;
  readonly reason: Error | null;
}

/**
 * undici's controller-API handler, as this transport calls it: every method is there to be called, and exactly one
 * of onResponseEnd and onResponseError ends each request, after which nothing more is called (asserted, as undici
 * asserts it). An error always has a method to go to.
 */
export interface H1Handler {
  /** The request has a connection and is about to be written: aborting it here keeps it off the wire. */
  onRequestStart(controller: H1Controller, context: unknown): void;
  /** The final response's status and headers (an informational 1xx answer is read and not passed on). */
  onResponseStart(controller: H1Controller, statusCode: number, headers: IncomingHttpHeaders, message: string): void;
  /**
   * A piece of the body, the handler's to keep; but the last piece of a body of known length is a view of the
   * connection's read buffer, valid until onResponseEnd (or onResponseError) has returned: a handler that keeps it
   * longer copies it. (undici hands over pieces it never reuses.)
   */
  onResponseData(controller: H1Controller, chunk: Buffer): void;
  onResponseEnd(controller: H1Controller, trailers: IncomingHttpHeaders): void;
  onResponseError(controller: H1Controller, error: Error): void;
}

export interface H1DispatchOptions {
  readonly path: string;
  readonly method: string;
  /** Flat list: name, value, name, value... */
  readonly headers: readonly string[];
  readonly body?: string | null;
}

export interface H1PoolOptions {
  /** An `http:` origin. */
  readonly origin: URL;
  /** The most connections open at once. */
  readonly connections: number;
  /** How long a connection may take to open (ms). */
  readonly connectTimeoutMs: number;
  /** Called as each new connection opens. */
  readonly onConnection?: () => void;
}

/**
 * Throws when the pool's own state is not what it must be: a bug of the pool, as undici's asserts are of its own (a
 * function of its own: node's `assert()` gathers its arguments into an array on every call, on the hot path).
 */
function invariant(holds: boolean, what: string): void {
  if (!holds) throw new AssertionError({ message: what });
}

/** How long an idle connection is reused without a hint from the server, and how much of its hint is kept (undici's). */
const KEEP_ALIVE_MS = 4000;
const KEEP_ALIVE_THRESHOLD_MS = 2000;
const KEEP_ALIVE_MAX_MS = 600_000;
/** Bytes one read takes at most (node's own size for a socket's reads). */
const READ_BUFFER_BYTES = 64 * 1024;
/** How often idle connections are looked at for their keep-alive (H1Pool.sweep). */
const SWEEP_MS = 250;

const IS_TOKEN = new RegExp(`^${TOKEN}$`);
const VALUE = new RegExp(`^${VALUE_BYTE}*$`);
const INVALID_PATH = /[^\u0021-\u00ff]/;

const NO_TRAILERS: IncomingHttpHeaders = Object.freeze({});

function invalid(message: string): H1Error {
  return new H1Error('UND_ERR_INVALID_ARG', message);
}

/**
 * A whole request head as this transport writes it: a token method, a path of visible characters, then header lines
 * of a token name and a value without control characters (HT aside), each ended by CRLF, and the blank line. A CR
 * or LF inside a value could still draw a line that looks right: requestHead looks for those apart.
 */
const REQUEST_HEAD = new RegExp(
  `^${TOKEN} \\/[\\x21-\\xff]* HTTP\\/1\\.1\\r\\n(?:${TOKEN}: ${VALUE_BYTE}*\\r\\n)*\\r\\n$`,
);

/** Why a request may not be sent, as undici says it (checked in undici's order), or null. */
function invalidPart(o: H1DispatchOptions): H1Error | null {
  if (!IS_TOKEN.test(o.method)) return invalid('invalid request method');
  if (o.path[0] !== '/' || INVALID_PATH.test(o.path)) return invalid('invalid request path');
  for (let i = 0; i + 1 < o.headers.length; i += 2) {
    const name = o.headers[i]!;
    if (!IS_TOKEN.test(name)) return invalid('invalid header key');
    if (!VALUE.test(o.headers[i + 1]!)) return invalid(`invalid ${name} header`);
  }
  return null;
}

/**
 * The request's head as undici writes it, or the reason it may not be sent: undici's checks of the method, the path
 * and every header, made by one regular expression over the whole head (and a look for line breaks in each value),
 * the parts looked at one by one only to name what is wrong.
 */
function requestHead(host: string, o: H1DispatchOptions, bodyBytes: number | null): string | H1Error {
  let head = `${o.method} ${o.path} HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n`;
  let breaks = false;
  const h = o.headers;
  for (let i = 0; i + 1 < h.length; i += 2) {
    const value = h[i + 1]!;
    if (value.indexOf('\n') !== -1 || value.indexOf('\r') !== -1) breaks = true;
    head += `${h[i]}: ${value}\r\n`;
  }
  if (bodyBytes !== null) head += `content-length: ${bodyBytes}\r\n`;
  head += '\r\n';
  if (!breaks && REQUEST_HEAD.test(head)) return head;
  return invalidPart(o) ?? invalid('invalid request');
}

/** Heads the pool remembers at most, and per path: requests without a body repeat a few header lists per path. */
const HEADS_MAX = 4096;
const HEADS_PER_PATH = 8;

interface MadeHead {
  readonly method: string;
  readonly headers: readonly string[];
  /** The caller's list itself when it was frozen: found again by identity, without comparing its entries. */
  readonly frozen: readonly string[] | null;
  readonly head: string;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

class H1Request implements H1Controller {
  aborted = false;
  reason: Error | null = null;
  /** The connection it is on, once it has one. */
  conn: H1Connection | null = null;
  /** Settled: its end or its error was handed to the handler. */
  done = false;
  /** Written to its connection. */
  written = false;

  constructor(
    readonly pool: H1Pool,
    readonly handler: H1Handler,
    readonly head: string,
    readonly body: Buffer | null,
    readonly noBody: boolean,
  ) {}

  abort(reason: Error): void {
    if (this.aborted || this.done) return;
    this.aborted = true;
    this.reason = reason;
    // On the wire, the connection goes with it; given up in onRequestStart, it is never written and the connection
    // takes the next request (run()); still queued, it leaves the queue.
    if (this.conn !== null && this.written) this.conn.destroy(reason);
    else if (this.conn !== null) {
      this.conn.forget(this);
      this.fail(reason);
    } else this.pool.dequeue(this, reason);
  }

  /** Ends the request with an error; it must not have ended already. */
  fail(error: Error): void {
    invariant(!this.done, 'a request failed after it ended');
    this.done = true;
    this.conn = null;
    this.handler.onResponseError(this, error);
  }
}

class H1Connection implements H1ResponseEvents {
  private readonly socket: Socket;
  private readonly parser = new H1ResponseParser(this);
  private connectTimer: NodeJS.Timeout | null;
  private connected = false;
  private dead = false;
  /** The request on the connection (written, or waiting for the connection to open). */
  private current: H1Request | null = null;
  /** Reading an informational (1xx) response, which the handler never sees. */
  private informational = false;
  private keepAlive: KeepAlive = { reusable: true, timeoutMs: null };
  /** The pool's sweep count when it became idle, and for how long it may stay so (ms). */
  idleEpoch = 0;
  idleForMs = KEEP_ALIVE_MS;
  /** Idle long enough that its socket no longer keeps the process alive (H1Pool.sweep), as undici's idle ones. */
  private unrefd = false;

  constructor(
    private readonly pool: H1Pool,
    first: H1Request,
  ) {
    this.current = first;
    first.conn = this;
    const { origin } = pool.options;
    // Read into the pool's buffer (node's `onread`), not into a buffer made for each read and pushed through a
    // stream: the parser takes the bytes as they are read, and what must outlive the read is copied (onBody).
    this.socket = connect({
      host: origin.hostname.replace(/^\[|\]$/g, ''),
      port: Number(origin.port || 80),
      onread: {
        buffer: pool.readBuffer,
        callback: (n: number) => {
          this.onData(pool.readBuffer.subarray(0, n));
          return true;
        },
      },
    });
    this.socket.setNoDelay(true);
    this.connectTimer = setTimeout(() => this.onConnectTimeout(), pool.options.connectTimeoutMs);
    this.socket.once('connect', () => this.onConnect());
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', (e: Error) => this.destroy(e));
    this.socket.on('close', () => this.destroy(new H1Error('H1_CLOSED', 'other side closed')));
  }

  private onConnect(): void {
    this.connected = true;
    this.clearConnectTimer();
    this.pool.options.onConnection?.();
    const first = this.current;
    this.current = null;
    // The request it was opened for may have been given up meanwhile: the connection then waits for the next.
    if (first === null || !this.run(first)) this.pool.release(this);
  }

  private onConnectTimeout(): void {
    this.connectTimer = null;
    this.destroy(new H1Error('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'));
  }

  private clearConnectTimer(): void {
    if (this.connectTimer !== null) clearTimeout(this.connectTimer);
    this.connectTimer = null;
  }

  /** Whether it can take a request now (open and idle). */
  get free(): boolean {
    return this.connected && !this.dead && this.current === null;
  }

  /**
   * Puts a request on the connection (it is free or was opened for it): the handler may abort it in
   * onRequestStart, which keeps it off the wire. False when it was not written.
   */
  run(req: H1Request): boolean {
    if (this.unrefd) {
      this.socket.ref();
      this.unrefd = false;
    }
    invariant(!req.done, 'a request started after it ended');
    this.current = req;
    req.conn = this;
    req.handler.onRequestStart(req, {});
    if (req.aborted || this.dead) {
      if (this.current === req) this.current = null;
      req.conn = null;
      return false;
    }
    this.parser.expect(req.noBody);
    req.written = true;
    if (req.body === null) this.socket.write(req.head, 'latin1');
    else this.socket.write(Buffer.concat([Buffer.from(req.head, 'latin1'), req.body]));
    return true;
  }

  private onData(chunk: Buffer): void {
    try {
      this.parser.execute(chunk);
    } catch (e) {
      this.destroy(e as Error);
    }
  }

  private onEnd(): void {
    try {
      this.parser.finish();
    } catch (e) {
      this.destroy(e as Error);
      return;
    }
    this.destroy(new H1Error('H1_CLOSED', 'other side closed'));
  }

  onHead(status: number, headers: IncomingHttpHeaders, keepAlive: KeepAlive): void {
    const req = this.current;
    if (req === null || this.dead) throw new H1Error('UND_ERR_SOCKET', 'bad response: a response to no request');
    invariant(!req.done, 'a response started after its request ended');
    // A switch of protocols no request asked for is refused as undici refuses it (the parser would stop after it).
    if (status === 101) throw new H1Error('UND_ERR_SOCKET', 'bad upgrade: a switch of protocols no request asked for');
    // An informational answer (1xx) comes before the request's own (RFC 9110: a client parses them, even unasked).
    if (status < 200) {
      this.informational = true;
      return;
    }
    this.keepAlive = keepAlive;
    req.handler.onResponseStart(req, status, headers, '');
  }

  /**
   * The read buffer is read into again at the next read: a piece the handler may keep past this read is a copy. The
   * last piece of a body of known length is handed over as it is, since its end follows at once (see H1Handler).
   */
  onBody(chunk: Buffer, last: boolean): void {
    const req = this.current;
    if (req !== null && !this.dead && !this.informational)
      req.handler.onResponseData(req, last ? chunk : Buffer.from(chunk));
  }

  /** `trailing`: bytes other than line ends follow the response's end in the same read: no request asked for them. */
  onComplete(trailing: boolean): void {
    if (this.informational) {
      this.informational = false;
      return;
    }
    const req = this.current;
    if (req === null || this.dead) return;
    invariant(!req.done, 'a response ended after its request ended');
    this.current = null;
    req.done = true;
    req.conn = null;
    const { reusable, timeoutMs } = this.keepAlive;
    this.idleForMs =
      timeoutMs === null ? KEEP_ALIVE_MS : Math.min(timeoutMs - KEEP_ALIVE_THRESHOLD_MS, KEEP_ALIVE_MAX_MS);
    if (!reusable || trailing || this.idleForMs <= 0) this.destroy(null);
    req.handler.onResponseEnd(req, NO_TRAILERS);
    if (!this.dead) this.pool.release(this);
  }

  /** Closes the connection; the request on it, if any, fails with `error` (none: it has settled). */
  destroy(error: Error | null): void {
    const req = this.current;
    this.current = null;
    if (!this.dead) {
      this.dead = true;
      this.clearConnectTimer();
      this.socket.destroy();
      this.pool.remove(this);
    }
    if (req !== null && error !== null) req.fail(req.aborted && req.reason !== null ? req.reason : error);
  }

  /** The request it holds was given up before it was written: the connection waits for the next one. */
  forget(req: H1Request): void {
    if (this.current === req) this.current = null;
  }

  /** Lets the process exit while the connection is idle (a request on it holds the process again). */
  unref(): void {
    if (this.unrefd || this.dead) return;
    this.socket.unref();
    this.unrefd = true;
  }

  /** Ends an idle connection politely (FIN). */
  end(): void {
    if (this.dead) return;
    this.dead = true;
    this.socket.end();
    this.pool.remove(this);
  }
}

/** A pool of direct HTTP/1.1 connections to one origin (see the module's comment). */
export class H1Pool {
  /**
   * What every connection of the pool reads into: reads are one at a time on this thread, each parsed as it
   * lands (H1Connection.onData), so the pool's connections share one buffer.
   */
  readonly readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  private readonly idle: H1Connection[] = [];
  private readonly open = new Set<H1Connection>();
  /** Requests waiting for a connection, in the order they came. */
  private readonly queue = new WaitQueue<H1Request>();
  private closing = false;
  private closed: (() => void) | null = null;
  /** Heads made, by path (headOf), and how many. */
  private readonly heads = new Map<string, MadeHead[]>();
  private headCount = 0;
  /** Sweeps of idle connections so far, and their timer while any connection is idle. */
  private epoch = 0;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(readonly options: H1PoolOptions) {}

  dispatch(o: H1DispatchOptions, handler: H1Handler): boolean {
    const body = o.body === undefined || o.body === null ? null : Buffer.from(o.body, 'utf8');
    const head = body === null ? this.headOf(o) : requestHead(this.options.origin.host, o, body.length);
    const req = new H1Request(this, handler, typeof head === 'string' ? head : '', body, o.method === 'HEAD');
    if (typeof head !== 'string') {
      req.fail(head);
      return false;
    }
    if (this.closing) {
      req.fail(new H1Error('UND_ERR_CLOSED', 'The client is closed'));
      return false;
    }
    this.queue.push(req);
    this.pump();
    return true;
  }

  /**
   * The head of a request without a body: made and checked once for each method, path and header list, then found
   * again (a load sends the same few paths with the same headers, the key aside, request after request).
   */
  private headOf(o: H1DispatchOptions): string | H1Error {
    const made = this.heads.get(o.path);
    if (made !== undefined)
      for (const m of made)
        if (m.method === o.method && (m.frozen === o.headers || sameList(m.headers, o.headers))) return m.head;
    const head = requestHead(this.options.origin.host, o, null);
    if (typeof head === 'string' && this.headCount < HEADS_MAX && (made?.length ?? 0) < HEADS_PER_PATH) {
      const frozen = Object.isFrozen(o.headers) ? o.headers : null;
      const entry = { method: o.method, headers: frozen ?? [...o.headers], frozen, head };
      if (made === undefined) this.heads.set(o.path, [entry]);
      else made.push(entry);
      this.headCount++;
    }
    return head;
  }

  /** Hands queued requests to free connections, opening new ones up to the limit. */
  private pump(): void {
    for (let req = this.queue.first(); req !== undefined; req = this.queue.first()) {
      const conn = this.freeConnection();
      if (conn === null && this.open.size >= this.options.connections) break;
      this.queue.take();
      if (conn === null) this.open.add(new H1Connection(this, req));
      else if (!conn.run(req)) this.idle.push(conn);
    }
    this.checkClosed();
  }

  /** The most recently used idle connection that has not outstayed its keep-alive, or null. */
  private freeConnection(): H1Connection | null {
    for (let conn = this.idle.pop(); conn !== undefined; conn = this.idle.pop()) if (conn.free) return conn;
    return null;
  }

  /**
   * Every SWEEP_MS, ends the idle connections that may have outstayed their keep-alive: one idle since the sweep
   * count `e` has been idle for more than (count - e - 1) sweeps and at most (count - e), so it ends once
   * (count - e) sweeps reach its keep-alive, never reused past it. No clock is read per request.
   */
  private sweep(): void {
    this.epoch++;
    // An idle connection no longer holds the process (undici unrefs its idle sockets too), and ends at its keep-alive.
    for (const conn of [...this.idle]) {
      if ((this.epoch - conn.idleEpoch) * SWEEP_MS >= conn.idleForMs) conn.end();
      else conn.unref();
    }
    if (this.idle.length === 0 && this.sweeper !== null) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  /** A request left the queue before it got a connection. */
  dequeue(req: H1Request, reason: Error): void {
    req.fail(reason);
    this.checkClosed();
  }

  /** A connection finished its request and may take another. */
  release(conn: H1Connection): void {
    conn.idleEpoch = this.epoch;
    if (this.sweeper === null) {
      this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
      this.sweeper.unref();
    }
    this.idle.push(conn);
    this.pump();
  }

  remove(conn: H1Connection): void {
    this.open.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i !== -1) this.idle.splice(i, 1);
    // A connection gone makes room for a queued request.
    if (!this.closing || !this.queue.isEmpty) queueMicrotask(() => this.pump());
    else this.checkClosed();
  }

  private pending(): number {
    return this.queue.waiting() + this.open.size - this.idle.length;
  }

  private checkClosed(): void {
    const done = this.closed;
    if (done === null || this.pending() > 0) return;
    // Taken first: ending a connection removes it from the pool, which looks here again.
    this.closed = null;
    for (const conn of [...this.open]) conn.end();
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
    done();
  }

  /** Lets what was sent or queued finish, then ends every connection; later dispatches fail. */
  close(): Promise<void> {
    this.closing = true;
    return new Promise((resolve) => {
      this.closed = resolve;
      this.checkClosed();
    });
  }

  /** Fails what is queued, drops every connection (their requests fail) and resolves once done. */
  destroy(): Promise<void> {
    this.closing = true;
    const error = new H1Error('UND_ERR_DESTROYED', 'The client is destroyed');
    for (const req of this.queue.drain()) req.fail(error);
    for (const conn of [...this.open]) conn.destroy(error);
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
    this.checkClosed();
    return Promise.resolve();
  }
}
