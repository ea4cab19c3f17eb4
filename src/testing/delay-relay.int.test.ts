import { createServer, connect, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startDelayRelay, type DelayRelay } from './delay-relay.js';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

/** An echo server on loopback. */
async function echo(): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((s) => s.pipe(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function relayTo(rttMs: number, jitterMs?: number): Promise<DelayRelay> {
  const e = await echo();
  open.push(e);
  const relay = await startDelayRelay({ port: e.port, rttMs, ...(jitterMs !== undefined ? { jitterMs } : {}) });
  open.push(relay);
  return relay;
}

/** Writes `chunks` one by one (a tick apart) through the relay and reads the echo until it has them all. */
function roundTrip(port: number, chunks: string[]): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const want = chunks.join('').length;
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const t0 = performance.now();
    socket.on('error', reject);
    socket.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.length >= want) {
        socket.destroy();
        resolve({ text, ms: performance.now() - t0 });
      }
    });
    socket.on('connect', async () => {
      for (const c of chunks) {
        socket.write(c);
        await new Promise((r) => setImmediate(r));
      }
    });
  });
}

describe('startDelayRelay', () => {
  it('adds at least its round trip to an exchange (and the connection set-up)', async () => {
    const relay = await relayTo(80, 0);
    const { text, ms } = await roundTrip(relay.port, ['ping']);
    expect(text).toBe('ping');
    // The first byte goes out once the relay has connected, and comes back a round trip later.
    expect(ms).toBeGreaterThanOrEqual(79);
    expect(relay.connections()).toBe(1);
  });

  it('keeps the bytes in order whatever the jitter', async () => {
    const relay = await relayTo(20, 30);
    const chunks = Array.from({ length: 300 }, (_, i) => `<${i}>`);
    const { text } = await roundTrip(relay.port, chunks);
    expect(text).toBe(chunks.join(''));
  });

  it('passes an end on after the bytes before it', async () => {
    const relay = await relayTo(30, 10);
    const got = await new Promise<string>((resolve) => {
      const socket = connect(relay.port, '127.0.0.1');
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('connect', () => socket.end('last words'));
    });
    expect(got).toBe('last words');
  });
});
