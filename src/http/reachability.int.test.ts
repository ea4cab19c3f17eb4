import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PetloadError } from '../core/errors.js';
import { assertReachable } from './reachability.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function listen(server: Server, sockets: Set<Socket>): Promise<number> {
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

async function unreachable(baseUrl: string, timeoutMs?: number): Promise<PetloadError> {
  const err = await assertReachable(baseUrl, timeoutMs).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof PetloadError)) throw new Error(`expected a PetloadError, got ${String(err)}`);
  return err;
}

describe('assertReachable', () => {
  it.each([404, 401, 500])('counts any HTTP response (%i) as reachable, and sends no key', async (status) => {
    const seen: Array<{ url: string | undefined; headers: IncomingHttpHeaders }> = [];
    const server = createHttpServer((req, res) => {
      seen.push({ url: req.url, headers: req.headers });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
    const port = await listen(server, new Set());
    await expect(assertReachable(`http://127.0.0.1:${port}/v1`)).resolves.toEqual(['HTTP/1.1']);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe('/v1/');
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it('names ECONNREFUSED and the address when nothing listens', async () => {
    const probe = createNetServer();
    const port = await listen(probe, new Set());
    await cleanups.pop()?.();
    const err = await unreachable(`http://127.0.0.1:${port}/v1`);
    expect(err.code).toBe('E_TARGET_UNREACHABLE');
    expect(err.exitCode).toBe(3);
    expect(err.message).toBe(
      `target http://127.0.0.1:${port}/v1 is unreachable: ECONNREFUSED (nothing listens on 127.0.0.1:${port})`,
    );
  });

  it('gives up after the timeout when a listener never answers', async () => {
    const port = await listen(createNetServer(), new Set());
    const err = await unreachable(`http://127.0.0.1:${port}/v1`, 200);
    expect(err.code).toBe('E_TARGET_UNREACHABLE');
    expect(err.message).toBe(
      `target http://127.0.0.1:${port}/v1 is unreachable: no HTTP response within 200 ms from 127.0.0.1:${port}`,
    );
  });

  it('reports a listener that closes the connection without answering', async () => {
    const server = createNetServer((s) => s.destroy());
    const port = await listen(server, new Set());
    const err = await unreachable(`http://127.0.0.1:${port}/v1`);
    expect(err.message).toMatch(
      new RegExp(
        `^target http://127\\.0\\.0\\.1:${port}/v1 is unreachable: the connection to 127\\.0\\.0\\.1:${port} was closed`,
      ),
    );
  });

  it('reports a host name that does not resolve', async () => {
    const err = await unreachable('http://petload-no-such-host.invalid:8080/v1', 2000);
    expect(err.code).toBe('E_TARGET_UNREACHABLE');
    expect(err.message).toMatch(
      /^target http:\/\/petload-no-such-host\.invalid:8080\/v1 is unreachable: .*(ENOTFOUND|EAI_AGAIN)/,
    );
  });
});
