/**
 * A store without a rate limiter of its own, for a gateway in front of it to limit (store (h), HAProxy): the shared
 * pet module behind bearer authentication, and no X-RateLimit-*, Retry-After or 429 of its own. Env: STORE_KEYS_FILE.
 */
import { createServer } from 'node:http';
import { announce, readBody, sendReply } from '../support/http-glue.js';
import { apiPath, authenticate, errorReply, loadStoreKeys, PetApi, unauthorized } from '../support/pet-api.js';

const keys = loadStoreKeys();
const api = new PetApi();
const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://store');
    const path = apiPath(url.pathname);
    const body = await readBody(req);
    if (path === null) return sendReply(res, errorReply(404, 'not_found', 'not under /v1'));
    if (!authenticate(keys, req.headers.authorization)) return sendReply(res, unauthorized());
    sendReply(res, await api.handle(req.method ?? 'GET', path, url.searchParams, body));
  } catch (e) {
    sendReply(res, errorReply(500, 'internal', String(e)));
  }
});
server.listen(0, '127.0.0.1', () => announce(server));
