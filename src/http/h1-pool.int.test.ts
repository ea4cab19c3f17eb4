import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { H1Error } from './h1-error.js';
import { type H1Controller, type H1Handler, H1Pool } from './h1-pool.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A loopback server that answers every request head with `answer(n)` (n counts the requests, from 0). */
async function server(answer: (socket: Socket, n: number) => void): Promise<URL> {
  let n = 0;
  const sockets = new Set<Socket>();
  const s = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (let end = buf.indexOf('\r\n\r\n'); end !== -1; end = buf.indexOf('\r\n\r\n')) {
        buf = buf.slice(end + 4);
        answer(socket, n++);
      }
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const x of sockets) x.destroy();
        s.close(() => resolve());
      }),
  );
  return new URL(`http://127.0.0.1:${(s.address() as { port: number }).port}`);
}

/**
 * A handler that writes down every call, and checks the transport's contract as it goes: onRequestStart first,
 * then exactly one of onResponseEnd and onResponseError, and nothing after it.
 */
class Recorder implements H1Handler {
  readonly calls: string[] = [];
  readonly ended: Promise<void>;
  private end!: () => void;
  constructor(private readonly misbehave: { abortOnData?: boolean; throwOnStart?: boolean } = {}) {
    this.ended = new Promise((resolve) => {
      this.end = resolve;
    });
  }
  private note(call: string): void {
    const last = this.calls.at(-1) ?? '';
    if (last.startsWith('end') || last.startsWith('error')) throw new Error(`${call} after ${last}`);
    this.calls.push(call);
  }
  onRequestStart(): void {
    this.note('start');
  }
  onResponseStart(_c: H1Controller, status: number): void {
    this.note(`head ${status}`);
    if (this.misbehave.throwOnStart) throw new Error('handler failed');
  }
  onResponseData(c: H1Controller, chunk: Buffer): void {
    this.note(`data ${chunk.toString('latin1')}`);
    if (this.misbehave.abortOnData) c.abort(new Error('enough'));
  }
  onResponseEnd(): void {
    this.note('end');
    this.end();
  }
  onResponseError(_c: H1Controller, error: Error): void {
    this.note(`error ${(error as H1Error).code ?? error.message}`);
    this.end();
  }
}

function pool(origin: URL, connections = 1): H1Pool {
  const p = new H1Pool({ origin, connections, connectTimeoutMs: 2000 });
  cleanups.push(() => p.destroy());
  return p;
}

const GET = { path: '/', method: 'GET', headers: [] } as const;
const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

/** Dispatches a request per handler, in order, and waits for each to end. */
async function run(p: H1Pool, handlers: readonly Recorder[]): Promise<string[][]> {
  for (const h of handlers) p.dispatch(GET, h);
  await Promise.all(handlers.map((h) => h.ended));
  // A callback late by a read or a tick would land here.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return handlers.map((h) => h.calls);
}

describe('H1Pool: each request ends once, and its handler hears nothing after', () => {
  it('over keep-alive, and when bytes no request asked for follow an answer (the connection goes)', async () => {
    const origin = await server((socket, n) => socket.write(n === 1 ? `${OK}HTTP/1.1 200 OK\r\n\r\n` : OK));
    const calls = await run(pool(origin), [new Recorder(), new Recorder(), new Recorder()]);
    expect(calls).toEqual([0, 1, 2].map(() => ['start', 'head 200', 'data ok', 'end']));
  });

  it('when bytes follow an answer that closes the connection', async () => {
    const origin = await server((socket) =>
      socket.write(`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nokHTTP`),
    );
    expect(await run(pool(origin), [new Recorder()])).toEqual([['start', 'head 200', 'data ok', 'end']]);
  });

  it('when the connection resets in the middle of a body', async () => {
    const origin = await server((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', () => socket.resetAndDestroy());
    });
    const [calls] = await run(pool(origin), [new Recorder()]);
    expect(calls!.slice(0, 3)).toEqual(['start', 'head 200', 'data abc']);
    expect(calls![3]).toMatch(/^error (ECONNRESET|H1_CLOSED)$/);
    expect(calls).toHaveLength(4);
  });

  it('when its handler gives the request up in the middle of a body, as more of it arrives', async () => {
    const origin = await server((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nabc');
      setTimeout(() => socket.write('def'), 5);
    });
    const calls = await run(pool(origin), [new Recorder({ abortOnData: true })]);
    expect(calls).toEqual([['start', 'head 200', 'data abc', 'error enough']]);
  });

  it('when its handler throws', async () => {
    const origin = await server((socket) => socket.write(OK));
    const calls = await run(pool(origin), [new Recorder({ throwOnStart: true }), new Recorder()]);
    expect(calls).toEqual([
      ['start', 'head 200', 'error handler failed'],
      ['start', 'head 200', 'data ok', 'end'],
    ]);
  });

  it('when a switch of protocols no request asked for comes, refused as undici refuses it', async () => {
    const origin = await server((socket) =>
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: upgrade\r\n\r\n'),
    );
    expect(await run(pool(origin), [new Recorder()])).toEqual([['start', 'error UND_ERR_SOCKET']]);
  });

  it('when the pool is destroyed with requests on a connection and in the queue', async () => {
    const origin = await server(() => undefined);
    const p = pool(origin);
    const handlers = [new Recorder(), new Recorder(), new Recorder()];
    for (const h of handlers) p.dispatch(GET, h);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await p.destroy();
    await Promise.all(handlers.map((h) => h.ended));
    expect(handlers.map((h) => h.calls)).toEqual([
      ['start', 'error UND_ERR_DESTROYED'],
      ['error UND_ERR_DESTROYED'],
      ['error UND_ERR_DESTROYED'],
    ]);
  });
});
