/**
 * The compliant store behind nginx in store (c): one process, rate-limiter-flexible's RateLimiterMemory, one
 * limiter per plan over a short window (STORE_WINDOW_S), the same headers as store (a): X-RateLimit-Limit,
 * -Remaining, -Reset (Unix seconds) on every answer, Retry-After and an Error body on 429.
 * Env: STORE_KEYS_FILE, STORE_WINDOW_S.
 */
import { createServer } from 'node:http';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { announce, ANONYMOUS_LIMIT, readBody, sendReply, windowSeconds } from '../support/http-glue.js';
import { apiPath, authenticate, errorReply, loadStoreKeys, PetApi, tooManyRequests, unauthorized } from '../support/pet-api.js';

const keys = loadStoreKeys();
const duration = windowSeconds();
const limiters = new Map<number, RateLimiterMemory>();
const limiterFor = (points: number) => {
  let l = limiters.get(points);
  if (!l) limiters.set(points, (l = new RateLimiterMemory({ points, duration })));
  return l;
};
const api = new PetApi();

const headersOf = (limit: number, r: RateLimiterRes): Record<string, string> => ({
  'X-RateLimit-Limit': String(limit),
  'X-RateLimit-Remaining': String(r.remainingPoints),
  'X-RateLimit-Reset': String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)),
});

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://store');
    const path = apiPath(url.pathname);
    const body = await readBody(req);
    if (path === null) return sendReply(res, errorReply(404, 'not_found', 'not under /v1'));
    const key = authenticate(keys, req.headers.authorization);
    const limit = key ? key.perMinute : ANONYMOUS_LIMIT;
    let headers: Record<string, string>;
    try {
      // Behind a proxy the client's address is in X-Real-IP.
      const who = key ? key.key : String(req.headers['x-real-ip'] ?? req.socket.remoteAddress);
      headers = headersOf(limit, await limiterFor(limit).consume(who));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      return sendReply(res, tooManyRequests(Math.max(1, Math.ceil(e.msBeforeNext / 1000))), headersOf(limit, e));
    }
    if (!key) return sendReply(res, unauthorized(), headers);
    sendReply(res, await api.handle(req.method ?? 'GET', path, url.searchParams, body), headers);
  } catch (e) {
    sendReply(res, errorReply(500, 'internal', String(e)));
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => announce(server));
