/**
 * Store (e): Fastify 5 with @fastify/rate-limit registered globally, as its README shows: `max` per key from
 * the key's plan, a short `timeWindow` (STORE_WINDOW_S), keyed by API key (by address without a valid key),
 * the default header names. What the library sends, unchanged: X-RateLimit-Limit / -Remaining on every answer
 * and X-RateLimit-Reset as the SECONDS UNTIL the window resets (not a Unix timestamp), the same three plus
 * Retry-After on 429, and the plugin's own 429 body `{statusCode, error, message}` (no errorResponseBuilder).
 * Env: STORE_KEYS_FILE, STORE_WINDOW_S.
 */
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { ANONYMOUS_LIMIT, announce, windowSeconds } from '../support/http-glue.js';
import { authenticate, errorReply, loadStoreKeys, PetApi, unauthorized, type ApiReply } from '../support/pet-api.js';

const keys = loadStoreKeys();
const api = new PetApi();
const app = Fastify({ logger: false });
const keyOf = (req: FastifyRequest) => authenticate(keys, req.headers.authorization);
const send = (reply: FastifyReply, r: ApiReply) => reply.code(r.status).headers(r.headers).send(r.body);

// Bodies as text, parsed losslessly by the pet module (int64 ids), whatever the content type says.
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

await app.register(rateLimit, {
  global: true,
  max: (req) => keyOf(req)?.perMinute ?? ANONYMOUS_LIMIT,
  timeWindow: windowSeconds() * 1000,
  keyGenerator: (req) => keyOf(req)?.key ?? req.ip,
});

const answer = (path: (req: FastifyRequest) => string) => async (req: FastifyRequest, reply: FastifyReply) => {
  if (!keyOf(req)) return send(reply, unauthorized());
  const url = new URL(req.url, 'http://store');
  return send(
    reply,
    await api.handle(req.method, path(req), url.searchParams, typeof req.body === 'string' ? req.body : ''),
  );
};
app.get(
  '/v1/pets',
  answer(() => '/pets'),
);
app.post(
  '/v1/pets',
  answer(() => '/pets'),
);
app.get(
  '/v1/pets/:id',
  answer((req) => `/pets/${encodeURIComponent((req.params as { id: string }).id)}`),
);
app.setNotFoundHandler({ preHandler: app.rateLimit() }, (_req, reply) =>
  send(reply, errorReply(404, 'not_found', 'no such route')),
);

await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
