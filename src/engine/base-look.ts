/**
 * After a wrong base (a keyed 404 to GET or POST /pets, target-sanity.ts): what answers at the base with `/v1`
 * added. One GET /pets there, with the key that got the 404, no retry; it answers like the API when it is a 200 with
 * a JSON array, or a 429 or 401 with a JSON body and a rate-limit header (the API's refusal of the key). It goes
 * through a client of its own, so that no check judges it: it is not a request to the target the run was given.
 */
import type { ApiKey } from '../core/api-key.js';
import { realClock } from '../core/clock.js';
import { createHttpClient } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import type { NetworkOptions } from '../http/network.js';
import { hasRateLimitHeader } from './target-sanity.js';

/** The base with `/v1` added, or null when it already ends in /v1 (adding it again would not be the API's base). */
export function withV1(target: string): string | null {
  const url = new URL(target);
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/v1$/i.test(path)) return null;
  url.pathname = `${path}/v1`;
  url.search = '';
  return url.toString();
}

/** How an answer to GET /pets with a key looks like the API's (`200 with a JSON list`), or null when it does not. */
export function apiLike(ex: Exchange): string | null {
  if (ex.status === 200 && ex.body.kind === 'json' && Array.isArray(ex.body.value)) {
    const rl = hasRateLimitHeader(ex) ? ' and rate-limit headers' : '';
    return `200 with a JSON list${rl}`;
  }
  if ((ex.status === 429 || ex.status === 401) && ex.body.kind === 'json' && hasRateLimitHeader(ex))
    return `${ex.status} with a JSON body and rate-limit headers`;
  return null;
}

/**
 * One look at `<target>/v1/pets` with `key`: the sentence saying what answers there, or null when the base already
 * ends in /v1, nothing answers there, or it does not answer like the API.
 */
export async function lookWithV1(
  target: string,
  key: ApiKey,
  options: { timeoutMs: number; signal?: AbortSignal; network?: NetworkOptions },
): Promise<string | null> {
  const base = withV1(target);
  if (base === null) return null;
  const client = createHttpClient({
    baseUrl: base,
    clock: realClock,
    connections: 1,
    timeoutMs: options.timeoutMs,
    ...(options.network ? { network: options.network } : {}),
  });
  try {
    const ex = await client.send({
      operation: 'listPets',
      method: 'GET',
      path: '/pets',
      auth: { kind: 'key', key },
      tag: 'target-sanity',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const like = apiLike(ex);
    return like === null ? null : `At ${base}, GET /pets with the same key answers ${like}: use --target ${base}.`;
  } finally {
    await client.close();
  }
}
