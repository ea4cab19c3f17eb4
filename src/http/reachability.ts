/**
 * Before a run: is anything answering HTTP at the target? One unauthenticated request to the base path, no
 * retry. Any HTTP response counts (a 404 or 401 is a live server); no response is a tool error, not a verdict.
 */
import { realClock } from '../core/clock.js';
import { PetloadError } from '../core/errors.js';
import { createHttpClient } from './client.js';
import type { TransportError } from './exchange.js';

function why(error: TransportError, url: URL, timeoutMs: number): string {
  const hostPort = `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  switch (error.kind) {
    case 'refused':
      return `ECONNREFUSED (nothing listens on ${hostPort})`;
    case 'timeout':
      return `no HTTP response within ${timeoutMs} ms from ${hostPort}`;
    case 'reset':
      return `the connection to ${hostPort} was closed without an HTTP response (${error.message})`;
    default:
      return error.message;
  }
}

/** `signal` cancels the check (an interrupt): it then returns without a conclusion, and the caller stops anyway. */
export async function assertReachable(baseUrl: string, timeoutMs = 5000, signal?: AbortSignal): Promise<void> {
  const client = createHttpClient({ baseUrl, clock: realClock, connections: 1, timeoutMs });
  try {
    const ex = await client.send({
      operation: null,
      method: 'GET',
      path: '/',
      auth: { kind: 'none' },
      tag: 'reachability',
      ...(signal ? { signal } : {}),
    });
    if (ex.status !== null || ex.error === null || ex.error.kind === 'aborted') return;
    const url = new URL(baseUrl);
    throw new PetloadError(
      'E_TARGET_UNREACHABLE',
      `target ${url.origin}${url.pathname} is unreachable: ${why(ex.error, url, timeoutMs)}`,
    );
  } finally {
    await client.close();
  }
}
