/**
 * The request handling the two rate-limiter-flexible stores share (store (a) on Redis, the compliant store behind
 * nginx in memory): one limiter per plan, keyed by API key (requests without a valid key by client address), and
 * the interface's headers: X-RateLimit-Limit / -Remaining / -Reset (Unix seconds, rounded up) on every answer,
 * Retry-After in seconds and an Error body on 429. The stores differ only in their limiter and pet storage.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ANONYMOUS_LIMIT, readBody, sendReply } from './http-glue.js';
import {
  apiPath,
  authenticate,
  errorReply,
  tooManyRequests,
  unauthorized,
  type PetApi,
  type StoreKey,
} from './pet-api.js';

export interface FlexibleStore {
  readonly keys: ReadonlyMap<string, StoreKey>;
  readonly api: PetApi;
  /** The limiter of a plan ('anonymous' for requests without a valid key) allowing `points` per window. */
  limiterFor(plan: string, points: number): RateLimiterAbstract;
  /** Who a request without a valid key is counted as. */
  clientOf(req: IncomingMessage): string;
  /** Called with every request (store (a) counts what each worker served). */
  onRequest?(): void;
}

const headersOf = (limit: number, r: RateLimiterRes): Record<string, string> => ({
  'X-RateLimit-Limit': String(limit),
  'X-RateLimit-Remaining': String(r.remainingPoints),
  'X-RateLimit-Reset': String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)),
});

export function flexibleServer(s: FlexibleStore): Server {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://store');
      const path = apiPath(url.pathname);
      const body = await readBody(req);
      s.onRequest?.();
      if (path === null) return sendReply(res, errorReply(404, 'not_found', 'not under /v1'));
      const key = authenticate(s.keys, req.headers.authorization);
      const limit = key ? key.perMinute : ANONYMOUS_LIMIT;
      const limiter = s.limiterFor(key ? key.plan : 'anonymous', limit);
      let headers: Record<string, string>;
      try {
        headers = headersOf(limit, await limiter.consume(key ? key.key : s.clientOf(req)));
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        return sendReply(res, tooManyRequests(Math.max(1, Math.ceil(e.msBeforeNext / 1000))), headersOf(limit, e));
      }
      if (!key) return sendReply(res, unauthorized(), headers);
      sendReply(res, await s.api.handle(req.method ?? 'GET', path, url.searchParams, body), headers);
    } catch (e) {
      sendReply(res, errorReply(500, 'internal', String(e)));
    }
  });
  server.keepAliveTimeout = 30_000;
  return server;
}
