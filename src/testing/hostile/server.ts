/**
 * Test-only: hostile targets. A raw node:net server on 127.0.0.1 reads HTTP/1.1 requests itself (so that it
 * may answer in ways node:http never would) and hands each to a behaviour, which gets the honest answer from a
 * reference server behind it and then writes it, or a broken version of it, or nothing, to the socket.
 * Everything but the behaviour's one defect is therefore a compliant answer. Never imported by src.
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface RawRequest {
  /** 1-based, in arrival order over the whole server. */
  readonly seq: number;
  readonly method: string;
  /** The request target as sent, e.g. `/v1/pets?limit=1`. */
  readonly target: string;
  /** Lower-cased names. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
}

export interface Answer {
  status: number;
  /** Name/value pairs in order; a name may repeat. */
  headers: [string, string][];
  body: Buffer;
}

export interface Reply {
  readonly req: RawRequest;
  readonly socket: Socket;
  /** The reference server's answer to the same request. */
  honest(): Promise<Answer>;
}

/** What the server does with one request. It may write anything, nothing, or destroy the socket. */
export type Behaviour = (reply: Reply) => Promise<void>;

export interface HostileServer {
  /** Base URL ending in /v1, like a real target's. */
  readonly url: string;
  /** Requests read so far. */
  requests(): number;
  close(): Promise<void>;
}

const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  429: 'Too Many Requests',
};

export interface HeadOptions {
  version?: '1.0' | '1.1';
  /** End the connection after the answer (always so for HTTP/1.0). */
  close?: boolean;
  /** The Content-Length to declare; null: none (the body ends with the connection). Default: the body's length. */
  length?: number | null;
}

/** Write the status line and headers of `a` (its own framing headers replaced by the options'). */
export function writeHead(socket: Socket, a: Answer, o: HeadOptions = {}): void {
  const version = o.version ?? '1.1';
  const lines = [`HTTP/${version} ${a.status} ${REASONS[a.status] ?? 'Status'}`];
  for (const [name, value] of a.headers) {
    if (!/^(content-length|connection|keep-alive|transfer-encoding)$/i.test(name)) lines.push(`${name}: ${value}`);
  }
  const length = o.length === undefined ? a.body.length : o.length;
  if (length !== null) lines.push(`Content-Length: ${length}`);
  lines.push(`Connection: ${o.close === true || version === '1.0' ? 'close' : 'keep-alive'}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
}

/** Write a whole answer; HTTP/1.0 and `close` end the connection after it. */
export function writeAnswer(socket: Socket, a: Answer, o: HeadOptions = {}): void {
  writeHead(socket, a, o);
  socket.write(a.body);
  if (o.close === true || o.version === '1.0') socket.end();
}

/** Fetch the honest answer from the reference server behind (same path, method, headers and body). */
async function fromUpstream(upstreamOrigin: string, req: RawRequest): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const [k, v] of req.headers) if (k === 'authorization' || k === 'content-type' || k === 'accept') headers[k] = v;
  const res = await fetch(upstreamOrigin + req.target, {
    method: req.method,
    headers,
    ...(req.body.length > 0 ? { body: req.body } : {}),
  });
  const body = Buffer.from(await res.arrayBuffer());
  const out: [string, string][] = [];
  res.headers.forEach((value, name) => {
    out.push([name, value]);
  });
  return { status: res.status, headers: out, body };
}

const HEADER_END = Buffer.from('\r\n\r\n');
/** Requests bigger than this are not what the suite sends: drop the connection. */
const MAX_REQUEST_BYTES = 1024 * 1024;

/**
 * Start a hostile server in front of `upstream` (a reference server's base URL, ending in /v1). Requests are
 * read one at a time per connection (the suite never pipelines), so a behaviour that answers nothing leaves its
 * connection hanging, as a stalled server would.
 */
export async function startHostileServer(upstream: string, behaviour: Behaviour): Promise<HostileServer> {
  const upstreamOrigin = new URL(upstream).origin;
  let seq = 0;
  const sockets = new Set<Socket>();

  const handleConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // The client may reset or abandon a connection at any moment (body cap, timeout): never an error here.
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let busy = false;

    const next = () => {
      if (busy || socket.destroyed) return;
      const end = buf.indexOf(HEADER_END);
      if (end === -1) {
        if (buf.length > MAX_REQUEST_BYTES) socket.destroy();
        return;
      }
      const head = buf.subarray(0, end).toString('latin1').split('\r\n');
      const [method = '', target = ''] = head[0]!.split(' ');
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const length = Number(headers.get('content-length') ?? '0');
      if (!Number.isSafeInteger(length) || length < 0 || length > MAX_REQUEST_BYTES) {
        socket.destroy();
        return;
      }
      if (buf.length < end + 4 + length) return;
      const body = buf.subarray(end + 4, end + 4 + length);
      buf = buf.subarray(end + 4 + length);
      const req: RawRequest = { seq: ++seq, method, target, headers, body };
      busy = true;
      behaviour({ req, socket, honest: () => fromUpstream(upstreamOrigin, req) })
        .catch(() => socket.destroy())
        .finally(() => {
          busy = false;
          next();
        });
    };
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      next();
    });
  };

  const server: Server = createServer(handleConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => seq,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
