/**
 * Test-only: a TCP relay on loopback that holds every chunk for a fixed delay and a little jitter in each direction,
 * as a long link between petload and a store would, keeping each connection's bytes in order (a chunk never
 * overtakes the one before it in its direction). Never imported by src.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface DelayRelayOptions {
  /** Where it relays to (a loopback port). */
  readonly port: number;
  readonly host?: string;
  /** The round trip it adds, real ms: half of it each way. */
  readonly rttMs: number;
  /** Up to this many ms more each way, at random (uniform); default 2 % of the round trip. */
  readonly jitterMs?: number;
}

export interface DelayRelay {
  /** The port petload connects to. */
  readonly port: number;
  readonly url: (path?: string) => string;
  /** Connections relayed so far. */
  connections(): number;
  close(): Promise<void>;
}

/** One direction of one connection: chunks delivered in order, each at least `oneWayMs` (plus jitter) after it came. */
function pipeDelayed(from: Socket, to: Socket, oneWayMs: number, jitterMs: number): void {
  const queue: { at: number; chunk: Buffer | null }[] = [];
  let last = 0;
  /** Whether a delivery is due (one timer at a time). */
  let armed = false;
  const flush = () => {
    armed = false;
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.at <= now) {
      const { chunk } = queue.shift()!;
      if (to.destroyed) return;
      if (chunk === null) to.end();
      else to.write(chunk);
    }
    if (queue.length > 0) arm(now);
  };
  const arm = (now: number) => {
    armed = true;
    setTimeout(flush, Math.max(0, queue[0]!.at - now));
  };
  const push = (chunk: Buffer | null) => {
    // In order: never before the chunk ahead of it.
    last = Math.max(last, performance.now() + oneWayMs + Math.random() * jitterMs);
    queue.push({ at: last, chunk });
    if (!armed) arm(performance.now());
  };
  from.on('data', (chunk: Buffer) => push(chunk));
  from.on('end', () => push(null));
  from.on('close', () => {
    // A reset (not an end) is passed on once what came before it is delivered.
    if (!from.readableEnded) setTimeout(() => to.destroy(), Math.max(0, last - performance.now()));
  });
}

/** Starts a relay on 127.0.0.1, port 0, to `port` on loopback. */
export async function startDelayRelay(o: DelayRelayOptions): Promise<DelayRelay> {
  const oneWay = o.rttMs / 2;
  const jitter = o.jitterMs ?? o.rttMs * 0.02;
  const sockets = new Set<Socket>();
  let count = 0;
  // Half-open: an end is passed on in its turn, after the bytes before it, not at once.
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    count++;
    const upstream = connect({ port: o.port, host: o.host ?? '127.0.0.1', allowHalfOpen: true });
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
      s.on('finish', () => {
        if (s.readableEnded) s.destroy();
      });
      s.on('end', () => {
        if (s.writableFinished) s.destroy();
      });
    }
    pipeDelayed(client, upstream, oneWay, jitter);
    pipeDelayed(upstream, client, oneWay, jitter);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    url: (path = '') => `http://127.0.0.1:${port}${path}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
