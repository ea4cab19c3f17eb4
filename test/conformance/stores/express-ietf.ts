/**
 * Store (d): Express 5 with express-rate-limit, configured the way its README recommends for new APIs:
 * `standardHeaders: 'draft-8'`, `legacyHeaders: false`. It sends the IETF draft fields
 * `RateLimit: "<name>"; r=<remaining>; t=<seconds to reset>` and `RateLimit-Policy: "<name>"; q=<limit>; w=<window>`
 * instead of X-RateLimit-*, and Retry-After on 429. The limit is the key's plan figure per short window
 * (STORE_WINDOW_S), keyed by API key (by address without a valid key); the 429 body is an Error.
 * Env: STORE_KEYS_FILE, STORE_WINDOW_S, STORE_SKIP_FAILED (`1`: skipFailedRequests, answers of 400 and over given
 * back to the quota), STORE_HEADERS:
 * - `draft` (default): the draft fields only;
 * - `legacy`: X-RateLimit-* instead of the draft fields;
 * - `both`: X-RateLimit-* and the draft fields of the same limiter (they agree);
 * - `split`: two limiters, as behind a gateway: an outer one per key at twice the plan's figure that sends only the
 *   draft fields, then the plan's own that sends only X-RateLimit-* (the two families describe different limits).
 */
import express from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { ANONYMOUS_LIMIT, announce, windowSeconds } from '../support/http-glue.js';
import {
  apiPath,
  authenticate,
  errorReply,
  loadStoreKeys,
  PetApi,
  unauthorized,
  type ApiReply,
} from '../support/pet-api.js';

const keys = loadStoreKeys();
const api = new PetApi();
const app = express();
const keyOf = (req: express.Request) => authenticate(keys, req.headers.authorization);
const send = (res: express.Response, reply: ApiReply) => res.status(reply.status).set(reply.headers).send(reply.body);

const headers = process.env.STORE_HEADERS ?? 'draft';
const limiter = (figure: (perMinute: number) => number, standardHeaders: false | 'draft-8', legacyHeaders: boolean) =>
  rateLimit({
    windowMs: windowSeconds() * 1000,
    limit: (req) => figure(keyOf(req)?.perMinute ?? ANONYMOUS_LIMIT),
    keyGenerator: (req) => keyOf(req)?.key ?? ipKeyGenerator(req.ip ?? '?'),
    identifier: (req) => keyOf(req)?.plan ?? 'anonymous',
    standardHeaders,
    // The library's X-RateLimit-* fields (Reset in Unix seconds).
    legacyHeaders,
    skipFailedRequests: process.env.STORE_SKIP_FAILED === '1',
    handler: (_req, res, _next, options) => {
      const reply = errorReply(429, 'rate_limited', 'rate limit exceeded');
      res.status(options.statusCode).set(reply.headers).send(reply.body);
    },
  });

app.use(express.text({ type: () => true, limit: '1mb' }));
if (headers === 'split') {
  app.use(limiter((n) => 2 * n, 'draft-8', false));
  app.use(limiter((n) => n, false, true));
} else {
  app.use(limiter((n) => n, headers === 'legacy' ? false : 'draft-8', headers === 'legacy' || headers === 'both'));
}
app.use(async (req, res) => {
  const url = new URL(req.originalUrl, 'http://store');
  const path = apiPath(url.pathname);
  if (path === null) return send(res, errorReply(404, 'not_found', 'not under /v1'));
  if (!keyOf(req)) return send(res, unauthorized());
  send(res, await api.handle(req.method, path, url.searchParams, typeof req.body === 'string' ? req.body : ''));
});

const server = app.listen(0, '127.0.0.1', () => announce(server));
