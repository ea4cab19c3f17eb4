/**
 * The compliant store behind nginx in store (c): one process, rate-limiter-flexible's RateLimiterMemory, one
 * limiter per plan over a short window (STORE_WINDOW_S), the same headers as store (a): X-RateLimit-Limit,
 * -Remaining, -Reset (Unix seconds) on every answer, Retry-After and an Error body on 429.
 * Env: STORE_KEYS_FILE, STORE_WINDOW_S.
 */
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { flexibleServer } from '../support/flexible-server.js';
import { announce, windowSeconds } from '../support/http-glue.js';
import { loadStoreKeys, PetApi } from '../support/pet-api.js';

const duration = windowSeconds();
const limiters = new Map<string, RateLimiterMemory>();
const server = flexibleServer({
  keys: loadStoreKeys(),
  api: new PetApi(),
  limiterFor(plan, points) {
    const id = `${plan}:${points}`;
    let l = limiters.get(id);
    if (!l) limiters.set(id, (l = new RateLimiterMemory({ points, duration })));
    return l;
  },
  // Behind a proxy the client's address is in X-Real-IP.
  clientOf: (req) => String(req.headers['x-real-ip'] ?? req.socket.remoteAddress),
});
server.listen(0, '127.0.0.1', () => announce(server));
