/** node:http plumbing for the corpus's stores: read a body, send an ApiReply, tell the test where we listen. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ApiReply } from './pet-api.js';

/** At most 1 MiB: the interface's bodies are small. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1 << 20) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendReply(res: ServerResponse, reply: ApiReply, headers: Record<string, string> = {}): void {
  res.writeHead(reply.status, { ...headers, ...reply.headers, 'Content-Length': Buffer.byteLength(reply.body) });
  res.end(reply.body);
}

/** The line the test harness waits for on stdout. */
export function announce(server: Server, name = 'store'): void {
  const a = server.address();
  if (a === null || typeof a === 'string') throw new Error('not listening on TCP');
  process.stdout.write(`${name} listening http://127.0.0.1:${a.port}/v1\n`);
}

/** Window length of the stores' short windows, from env STORE_WINDOW_S (whole seconds). */
export const windowSeconds = (): number => Number(process.env.STORE_WINDOW_S ?? 3);

/** Limit of requests without a valid key, per client address and window: high enough never to refuse a probe. */
export const ANONYMOUS_LIMIT = 1000;
