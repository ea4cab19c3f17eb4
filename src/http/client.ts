/**
 * The suite's HTTP client: the project's only undici import. One pool per target, one request per connection at a
 * time, no retries and no redirects: every retry is a decision of the backoff policy, never of the client. A plain
 * `http:` target reached directly goes through petload's own HTTP/1.1 transport (./h1-pool.ts), whose requests
 * cost less than undici's Pool's (docs/benchmarks.md: the HTTP client alone); TLS, HTTP/2 (when offered and chosen,
 * ./network.ts) and forward proxies (undici's ProxyAgent) go through undici.
 *
 * Each request is driven by one handler object of undici's controller API given to the dispatcher (no response
 * stream, no per-request closures beyond the promise executor): it measures the exchange on the run clock, reads
 * at most `maxBodyBytes`, and settles with an Exchange whatever the target does.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createSecureContext, rootCertificates, type SecureContext, type TLSSocket } from 'node:tls';
import { buildConnector, errors, Pool, ProxyAgent, type Dispatcher } from 'undici';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import { decodeBody, excerpt } from './body.js';
import type {
  AuthKind,
  Exchange,
  HeaderMap,
  HttpClient,
  ParsedBody,
  RequestSpec,
  TransportError,
  TransportErrorKind,
} from './exchange.js';
import { type NetworkOptions, type Protocol, protocolOfAlpn } from './network.js';
import { H1Pool } from './h1-pool.js';
import { parseTargetUrl } from './target-url.js';
import { DateCache, ResponseMemo } from './parsed.js';
import { REQUEST_TIMEOUT_MS } from '../core/defaults.js';

export interface HttpClientOptions {
  /** Target base URL, e.g. `http://127.0.0.1:8080/v1`; its path is the prefix of every request path. */
  baseUrl: string;
  /** The run clock: exchanges are timed on it. */
  clock: Clock;
  /** Pool size: the most requests in flight at once (default 16). */
  connections?: number;
  /** Deadline of a whole exchange (queueing, connect, headers and body) in real milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Body bytes read before giving up on the rest (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Asked when a request on a key is about to be written to a socket: true cancels it unsent. A request queued
   * before a 429 on its key arrived must not reach the wire while that 429's Retry-After runs. Never asked for a
   * request whose intent is `knock`: a probe's deliberate knock goes out whatever the key waits for.
   */
  holdBack?: (keyLabel: string) => boolean;
  /**
   * Called with every exchange as it settles, in completion order, before the promise of its send resolves. A
   * throw rejects that promise with the error instead.
   */
  onSettled?: (spec: RequestSpec, exchange: Exchange) => void;
  /** How the target is reached: proxy, CA, client certificate, HTTP/2, extra headers (./network.ts). */
  network?: NetworkOptions;
  /**
   * What carries a plain-http target reached directly: petload's HTTP/1.1 transport (`direct`, the default) or
   * undici's Pool, as every other target. Both pass the client's tests.
   */
  transport?: 'direct' | 'undici';
}

const DEFAULT_CONNECTIONS = 16;
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** How long close() lets requests in flight finish before it destroys the connections. */
const CLOSE_GRACE_MS = 1000;

const NO_BODY: ParsedBody = Object.freeze({ kind: 'none' });
const NO_HEADERS: HeaderMap = Object.freeze({}) as HeaderMap;

/** What the decoded-body memo keeps at most: paths, and bytes of bodies (their decoded values take a few times more). */
const MEMO_PATHS = 8192;
const MEMO_BYTES = 4 * 1024 * 1024;

/**
 * The last body decoded for each request path, to skip decoding a byte-identical one again: under load a
 * target answers the same query with the same bytes most of the time, and decoding (UTF-8, then JSON) is the
 * costliest step of an exchange. Decoding is a pure function of the bytes and the Content-Type, so a hit is
 * exact; the decoded value is shared between exchanges, and nothing changes a decoded body. Bounded: once full,
 * the paths it holds are kept up to date and others are decoded every time.
 */
class DecodedBodies {
  private readonly byPath = new Map<string, { bytes: Buffer; contentType: string | undefined; body: ParsedBody }>();
  private bytes = 0;

  decode(path: string, raw: Buffer, contentType: string | undefined): ParsedBody {
    const last = this.byPath.get(path);
    if (last !== undefined && last.contentType === contentType && last.bytes.equals(raw)) return last.body;
    const body = decodeBody(raw.toString('utf8'), contentType);
    const bytes = this.bytes - (last?.bytes.length ?? 0) + raw.length;
    if (bytes <= MEMO_BYTES && (last !== undefined || this.byPath.size < MEMO_PATHS)) {
      // A copy: undici may reuse the memory of the chunks it handed over.
      this.byPath.set(path, { bytes: Buffer.from(raw), contentType, body });
      this.bytes = bytes;
    }
    return body;
  }
}

/**
 * The requests in flight, oldest first, as a list threaded through the handlers, and their deadlines.
 *
 * - Not a Set: adding and deleting an entry per request makes V8 rebuild a Set's table every few requests, and a
 *   discarded table keeps a pointer to its successor, so that once one table is in the old generation every later
 *   table, and the requests it holds, survive the young-generation collections (measured on the bench: scavenges
 *   5x longer, throughput -15 %). A handler taken off the list lets go of its neighbours.
 * - One timer for all of them: every request of a client has the same deadline after its start, so the oldest
 *   one's comes first. The timer is armed for it, times out whatever is due when it fires and is armed again for
 *   the next; none runs while nothing is in flight. A timer per request cost an allocation and two list updates
 *   of node's timers for each request.
 */
class LiveRequests {
  private head: ExchangeHandler | null = null;
  private tail: ExchangeHandler | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Who waits for nothing to be in flight (idle()). */
  private idleWaiters: (() => void)[] = [];
  size = 0;

  constructor(private readonly timeoutMs: number) {}

  /** Adds a request that starts now: it times out `timeoutMs` real milliseconds from now. */
  add(h: ExchangeHandler): void {
    h.deadline = performance.now() + this.timeoutMs;
    h.prevLive = this.tail;
    if (this.tail !== null) this.tail.nextLive = h;
    else this.head = h;
    this.tail = h;
    this.size++;
    this.timer ??= setTimeout(expireDue, this.timeoutMs, this);
  }

  delete(h: ExchangeHandler): void {
    if (h.prevLive !== null) h.prevLive.nextLive = h.nextLive;
    else if (this.head === h) this.head = h.nextLive;
    else return;
    if (h.nextLive !== null) h.nextLive.prevLive = h.prevLive;
    else this.tail = h.prevLive;
    h.prevLive = null;
    h.nextLive = null;
    if (--this.size === 0) {
      if (this.timer !== null) clearTimeout(this.timer);
      this.timer = null;
      if (this.idleWaiters.length > 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Resolves once no request is in flight (at once when none is). */
  idle(): Promise<void> {
    return this.size === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The timer fired: time out every request that is due, then wait for the next one. */
  expire(): void {
    this.timer = null;
    const now = performance.now();
    for (let h = this.head; h !== null && h.deadline <= now; h = this.head) {
      h.timedOut();
      // Timing out settles it, which takes it off the list; never loop on one that stayed.
      if (this.head === h) this.delete(h);
    }
    if (this.head !== null) this.timer = setTimeout(expireDue, Math.max(1, this.head.deadline - now), this);
  }

  all(): ExchangeHandler[] {
    const out: ExchangeHandler[] = [];
    for (let h = this.head; h !== null; h = h.nextLive) out.push(h);
    return out;
  }
}

function expireDue(live: LiveRequests): void {
  live.expire();
}

/** Requests on one key label that have overlapped in time. It is reset once none of them is in flight. */
interface OverlapGroup {
  inFlight: number;
  overlapped: boolean;
}

/** What carries the requests: undici's dispatcher, or the direct HTTP/1.1 pool (same handler API). */
interface Transport {
  dispatch(
    options: {
      origin: string;
      path: string;
      method: Dispatcher.HttpMethod;
      headers: readonly string[];
      body: string | null;
    },
    handler: ExchangeHandler,
  ): boolean;
  close(): Promise<void>;
  destroy(): Promise<void>;
}

interface ClientState {
  readonly transport: Transport;
  /** The request's origin (a proxy agent dispatches by it; a pool has its own). */
  readonly origin: string;
  /** Accept, then the run's extra headers (name, value, ...): each request's list starts as a copy. */
  readonly headers: readonly string[];
  readonly clock: Clock;
  readonly basePath: string;
  /** The header list of each key's requests without a body (keyHeaders()). */
  readonly keyHeaders: WeakMap<ApiKey, readonly string[]>;
  /** Each request path with the base path before it, made once (fullPath()). */
  readonly paths: Map<string, string>;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly overlap: Map<string, OverlapGroup>;
  readonly holdBack: ((keyLabel: string) => boolean) | null;
  readonly onSettled: ((spec: RequestSpec, exchange: Exchange) => void) | null;
  readonly bodies: DecodedBodies;
  /** The last Date read on this client's responses (parsed.ts): the responses of one second share it. */
  readonly dates: DateCache;
  /** Requests sent and not settled yet (queued in the pool or on a connection). */
  readonly live: LiveRequests;
  /** The signals of requests the client listens to, and its listener on each (watch()). */
  readonly signals: Map<AbortSignal, () => void>;
  seq: number;
}

/** undici error codes, and the socket errors it passes through, by the kind of failure they mean. */
const KIND_BY_CODE: Record<string, TransportErrorKind> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'truncated',
};

function classify(err: unknown, headersReceived: boolean): TransportError {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const raw = typeof e?.message === 'string' && e.message !== '' ? e.message : String(err);
  const message = code === '' || raw.includes(code) ? raw : `${raw} (${code})`;
  let kind = KIND_BY_CODE[code];
  if (kind === undefined) {
    // H1_CLOSED and HPE_*: the direct transport's early close and malformed bytes (./h1-error.ts).
    if (code === 'UND_ERR_SOCKET' || code === 'H1_CLOSED') {
      // The other side closed the connection: before the response it is a reset, during the body a premature close.
      kind = headersReceived ? 'truncated' : 'reset';
    } else if (err instanceof errors.HTTPParserError || code.startsWith('HPE_')) {
      // llhttp rejected the bytes: in a status line or headers that is malformed HTTP, in a body it is broken chunking.
      kind = headersReceived ? 'truncated' : 'protocol';
    } else {
      kind = 'other';
    }
  }
  return { kind, message };
}

/** The reason given to undici when the client drops a request it has already settled (never reported). */
const ABANDONED = new Error('exchange already settled');

class ExchangeHandler implements Dispatcher.DispatchHandler {
  resolve!: (exchange: Exchange) => void;
  reject!: (error: unknown) => void;
  /** Neighbours in the client's list of requests in flight, and when this one times out (LiveRequests). */
  prevLive: ExchangeHandler | null = null;
  nextLive: ExchangeHandler | null = null;
  deadline = 0;
  private readonly state: ClientState;
  private readonly spec: RequestSpec;
  private readonly seq: number;
  private readonly auth: AuthKind;
  private readonly keyLabel: string | null;
  private readonly group: OverlapGroup | null;
  private readonly intended: number;
  private sent: number;
  /** Within start(): a connection handed over now is handed over at the request's making (`sent` stays). */
  private starting = true;
  private headersAt: number | null = null;
  /** Given by undici once the request is on a connection; null while it is queued. */
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;
  private status: number | null = null;
  private headers: HeaderMap = NO_HEADERS;
  private contentType: string | undefined = undefined;
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(state: ClientState, spec: RequestSpec, seq: number, now: number) {
    this.state = state;
    this.spec = spec;
    this.seq = seq;
    this.intended = spec.intended ?? now;
    this.sent = now;
    const auth = spec.auth;
    if (auth.kind === 'key') {
      this.auth = 'valid';
      this.keyLabel = auth.key.label;
    } else if (auth.kind === 'raw') {
      this.auth = 'invalid';
      this.keyLabel = auth.label;
    } else {
      this.auth = 'none';
      this.keyLabel = null;
    }
    this.group = this.keyLabel === null ? null : joinOverlap(state.overlap, this.keyLabel);
  }

  /** Dispatch the request; everything after this arrives through the handler methods. */
  start(): void {
    const spec = this.spec;
    if (spec.signal?.aborted) {
      this.settle({ kind: 'aborted', message: 'aborted before sending', unsent: 'cancelled' }, NO_BODY);
      return;
    }
    if (spec.signal !== undefined) watch(this.state, spec.signal);
    this.state.live.add(this);
    const auth = spec.auth;
    let headers: readonly string[];
    if (auth.kind === 'key' && spec.body === undefined) headers = keyHeaders(this.state, auth.key);
    else {
      const list = this.state.headers.slice();
      if (auth.kind === 'key') list.push('authorization', bearerOf(auth.key));
      else if (auth.kind === 'raw') list.push('authorization', auth.header);
      if (spec.body !== undefined) list.push('content-type', spec.contentType ?? 'application/json');
      headers = list;
    }
    this.state.transport.dispatch(
      {
        origin: this.state.origin,
        path: fullPath(this.state, spec.path),
        method: spec.method,
        headers,
        body: spec.body ?? null,
      },
      this,
    );
    this.starting = false;
  }

  /** Whether the request goes with this signal. */
  hasSignal(signal: AbortSignal): boolean {
    return this.spec.signal === signal;
  }

  /** The spec's signal aborted (watch()), or the caller abandoned every request (abortAll). */
  abandon(): void {
    // Still queued (no connection yet), it was never written.
    this.abort(
      this.controller === null
        ? { kind: 'aborted', message: 'aborted by the caller before sending', unsent: 'cancelled' }
        : { kind: 'aborted', message: 'aborted by the caller' },
    );
  }

  timedOut(): void {
    const stage = this.headersAt === null ? 'no response' : 'no complete body';
    this.abort({ kind: 'timeout', message: `${stage} within ${this.state.timeoutMs} ms` });
  }

  private abort(error: TransportError): void {
    if (this.settled) return;
    this.settle(error, NO_BODY);
    // A request still queued in the pool cannot be aborted yet: onRequestStart aborts it when it gets a connection.
    this.controller?.abort(ABANDONED);
  }

  // undici's controller API (onRequestStart ... onResponseError): its dispatcher wraps this handler in one small
  // adapter per request, which parses the response's headers once (as this handler did itself before) and hands
  // over a controller to abort the request with.

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.settled) {
      controller.abort(ABANDONED);
      return;
    }
    if (this.auth === 'valid' && this.spec.intent !== 'knock' && this.state.holdBack?.(this.keyLabel!) === true) {
      this.settle(
        { kind: 'aborted', message: 'held back unsent: the key is waiting out a Retry-After', unsent: 'held-back' },
        NO_BODY,
      );
      controller.abort(ABANDONED);
      return;
    }
    this.controller = controller;
    // Given a connection at once (within start()), it is sent at the time it was made; else it waited in a queue.
    if (!this.starting) this.sent = this.state.clock.monotonic();
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // 1xx informational responses precede the real one.
    if (this.settled || statusCode < 200) return;
    this.headersAt = this.state.clock.monotonic();
    this.status = statusCode;
    this.headers = headers as HeaderMap;
    const ct = headers['content-type'];
    this.contentType = Array.isArray(ct) ? ct[0] : ct;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const room = this.state.maxBodyBytes - this.bytes;
    if (chunk.length <= room) {
      this.chunks.push(chunk);
      this.bytes += chunk.length;
      return;
    }
    // Over the cap: keep what fits, stop reading and drop the connection (the rest of the body is still coming).
    if (room > 0) this.chunks.push(chunk.subarray(0, room));
    const text = Buffer.concat(this.chunks).toString('utf8');
    this.settle(null, { kind: 'too-large', bytesRead: this.bytes + chunk.length, excerpt: excerpt(text) });
    controller.abort(ABANDONED);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    if (this.bytes === 0) {
      this.settle(null, NO_BODY);
      return;
    }
    // The body is done now: decoding it is the suite's work, not the target's, and stays out of the latency.
    const done = this.state.clock.monotonic();
    const chunks = this.chunks;
    const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.bytes);
    this.settle(null, this.state.bodies.decode(this.spec.path, raw, this.contentType), done);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    this.settle(classify(err, this.headersAt !== null), NO_BODY);
  }

  private settle(error: TransportError | null, body: ParsedBody, done = this.state.clock.monotonic()): void {
    this.settled = true;
    const state = this.state;
    state.live.delete(this);
    let overlapped = false;
    const group = this.group;
    if (group !== null) {
      overlapped = group.overlapped;
      group.inFlight--;
    }
    const spec = this.spec;
    const auth = spec.auth;
    const exchange: Exchange = {
      seq: this.seq,
      operation: spec.operation,
      method: spec.method,
      path: spec.path,
      auth: this.auth,
      keyLabel: this.keyLabel,
      plan: auth.kind === 'key' ? auth.key.plan : null,
      requestBody: spec.body === undefined ? null : excerpt(spec.body),
      status: this.status,
      headers: this.headers,
      body,
      error,
      timing: { intended: this.intended, sent: this.sent, headers: this.headersAt, done },
      localTime: state.clock.now(),
      overlapped,
      tag: spec.tag,
      intent: spec.intent,
      traffic: spec.traffic,
      parsed: new ResponseMemo(state.dates),
    };
    if (state.onSettled !== null) {
      try {
        state.onSettled(spec, exchange);
      } catch (thrown) {
        this.reject(thrown);
        return;
      }
    }
    this.resolve(exchange);
  }
}

/**
 * Listens once to a signal the client's requests go with: when it aborts, every request in flight with it is
 * abandoned. Not a listener per request: adding and removing one costs a checked request a quarter of a µs, and
 * the requests of a run share a handful of signals.
 */
function watch(state: ClientState, signal: AbortSignal): void {
  if (state.signals.has(signal)) return;
  const onAbort = () => {
    for (const h of state.live.all()) if (h.hasSignal(signal)) h.abandon();
  };
  state.signals.set(signal, onAbort);
  signal.addEventListener('abort', onAbort, { once: true });
}

/** Stops listening to the signals of the client's requests (close()). */
function unwatchAll(state: ClientState): void {
  for (const [signal, onAbort] of state.signals) signal.removeEventListener('abort', onAbort);
  state.signals.clear();
}

/**
 * The path a request goes to: the target's base path, then the request's. Made once for each request path (up to
 * MEMO_PATHS of them), so that the transport gets the same string again, whose hash is known.
 */
function fullPath(state: ClientState, path: string): string {
  let full = state.paths.get(path);
  if (full === undefined) {
    full = state.basePath + path;
    if (state.paths.size < MEMO_PATHS) state.paths.set(path, full);
  }
  return full;
}

/** Each key's Authorization value, made once: the same string on every request keeps its hash (h1-pool.ts). */
const BEARERS = new WeakMap<ApiKey, string>();

function bearerOf(key: ApiKey): string {
  let value = BEARERS.get(key);
  if (value === undefined) {
    value = `Bearer ${key.secret}`;
    BEARERS.set(key, value);
  }
  return value;
}

/**
 * The header list of a request on a key without a body, made once per key and client and frozen: the transport
 * finds the head it made for the same list by identity (h1-pool.ts), with no list built or compared per request.
 */
function keyHeaders(state: ClientState, key: ApiKey): readonly string[] {
  let list = state.keyHeaders.get(key);
  if (list === undefined) {
    list = Object.freeze([...state.headers, 'authorization', bearerOf(key)]);
    state.keyHeaders.set(key, list);
  }
  return list;
}

/** Enter the key's overlap group; starting while another request on the key is in flight marks the whole group. */
function joinOverlap(groups: Map<string, OverlapGroup>, label: string): OverlapGroup {
  let group = groups.get(label);
  if (group === undefined) {
    group = { inFlight: 0, overlapped: false };
    groups.set(label, group);
  } else if (group.inFlight === 0) {
    group.overlapped = false;
  } else {
    group.overlapped = true;
  }
  group.inFlight++;
  return group;
}

function destroyTransport(transport: Transport): void {
  transport.destroy().catch(() => undefined);
}

/** Accept (unless the run sets its own), then the run's extra headers, as undici's flat list. */
function requestHeaders(extra: readonly (readonly [string, string])[]): string[] {
  const own = extra.some(([name]) => name === 'accept') ? [] : ['accept', 'application/json'];
  return [...own, ...extra.flat()];
}

/** A connector that notes the protocol each new connection speaks (its ALPN protocol; none: HTTP/1.1). */
function observed(connect: buildConnector.connector, seen: Set<Protocol>): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...result) => {
      if (result[0] === null) seen.add(protocolOfAlpn((result[1] as TLSSocket).alpnProtocol));
      callback(...result);
    });
}

/** node's bundled CAs and the given ones, and a client certificate: one TLS context for every connection. */
function secureContextOf(network: NetworkOptions, withCert: boolean): SecureContext | undefined {
  const cert = withCert ? network.clientCert : undefined;
  if (network.ca === undefined && cert === undefined) return undefined;
  return createSecureContext({
    ...(network.ca !== undefined ? { ca: [...rootCertificates, network.ca] } : {}),
    ...(cert !== undefined ? { cert: cert.cert, key: cert.key } : {}),
  });
}

/**
 * The transport of one client: the direct HTTP/1.1 pool for a plain-http target reached directly (unless
 * `transport: 'undici'`), else undici's Pool on the target's origin, or its ProxyAgent through `network.proxy`
 * (CONNECT for an https target, absolute URLs for an http one, as curl does). Every connection notes its protocol.
 */
function createTransport(origin: string, o: HttpClientOptions, seen: Set<Protocol>): Transport {
  const network = o.network ?? {};
  if (network.proxy === undefined && origin.startsWith('http:') && o.transport !== 'undici') {
    return new H1Pool({
      origin: new URL(origin),
      connections: o.connections ?? DEFAULT_CONNECTIONS,
      connectTimeoutMs: o.timeoutMs ?? REQUEST_TIMEOUT_MS,
      onConnection: () => seen.add('HTTP/1.1'),
    });
  }
  const connectTimeout = o.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const allowH2 = network.http2 === true;
  const poolOptions = {
    connections: o.connections ?? DEFAULT_CONNECTIONS,
    pipelining: 1,
    // The per-exchange deadline covers headers and body; undici's own timers would only duplicate it.
    headersTimeout: 0,
    bodyTimeout: 0,
    allowH2,
  };
  const secureContext = secureContextOf(network, true);
  const targetTls = { timeout: connectTimeout, allowH2, ...(secureContext ? { secureContext } : {}) };
  if (network.proxy === undefined) {
    return undiciTransport(new Pool(origin, { ...poolOptions, connect: observed(buildConnector(targetTls), seen) }));
  }
  const proxyContext = secureContextOf(network, false);
  return undiciTransport(
    new ProxyAgent({
      uri: network.proxy,
      proxyTunnel: new URL(origin).protocol === 'https:',
      requestTls: targetTls,
      proxyTls: { timeout: connectTimeout, ...(proxyContext ? { secureContext: proxyContext } : {}) },
      ...poolOptions,
      factory: (at, options) => {
        const { connect } = options as { connect: buildConnector.connector };
        return new Pool(at, { ...poolOptions, ...options, connect: observed(connect, seen) });
      },
    }),
  );
}

/** undici's dispatcher as the client's transport: it takes a header list of its own (a key's list is shared). */
function undiciTransport(d: Pool | ProxyAgent): Transport {
  return {
    dispatch: (o, handler) => d.dispatch({ ...o, headers: [...o.headers] }, handler),
    close: () => d.close(),
    destroy: () => d.destroy(),
  };
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const url = parseTargetUrl(options.baseUrl);
  const protocols = new Set<Protocol>();
  const transport = createTransport(url.origin, options, protocols);
  const state: ClientState = {
    transport,
    origin: url.origin,
    headers: requestHeaders(options.network?.headers ?? []),
    clock: options.clock,
    basePath: url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname,
    paths: new Map(),
    keyHeaders: new WeakMap(),
    timeoutMs: options.timeoutMs ?? REQUEST_TIMEOUT_MS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    overlap: new Map(),
    holdBack: options.holdBack ?? null,
    onSettled: options.onSettled ?? null,
    bodies: new DecodedBodies(),
    dates: new DateCache(),
    live: new LiveRequests(options.timeoutMs ?? REQUEST_TIMEOUT_MS),
    signals: new Map(),
    seq: 0,
  };
  let closing: Promise<void> | null = null;

  return {
    send(spec: RequestSpec): Promise<Exchange> {
      const handler = new ExchangeHandler(state, spec, ++state.seq, state.clock.monotonic());
      const done = new Promise<Exchange>((resolve, reject) => {
        handler.resolve = resolve;
        handler.reject = reject;
      });
      handler.start();
      return done;
    },
    inFlight: () => state.live.size,
    idle: () => state.live.idle(),
    protocols: () => [...protocols],
    abortAll(): void {
      for (const handler of state.live.all()) handler.abandon();
    },
    close(): Promise<void> {
      closing ??= (async () => {
        const timer = setTimeout(destroyTransport, CLOSE_GRACE_MS, transport);
        try {
          await transport.close();
        } finally {
          clearTimeout(timer);
          unwatchAll(state);
        }
      })();
      return closing;
    },
  };
}
