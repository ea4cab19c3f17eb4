/**
 * Corpus (g): one instance of a fleet. The test starts two or three of them behind Debian's nginx (upstream
 * round-robin, test/conformance/support/nginx-conf.ts), as replicas behind a balancer. The animals live in one
 * Redis (a fleet shares its database); the counter is what differs, from env STORE_COUNTER:
 *
 * - `local`: rate-limiter-flexible's RateLimiterMemory in each instance. Each keeps the plan's figure alone, as
 *   Kong's `local` policy or APISIX in local mode do: the fleet admits up to the figure times its instances.
 * - `shared`: rate-limiter-flexible's RateLimiterRedis on the one Redis: one atomic counter for the fleet.
 * - `unlocked`: a hand-written counter on the one Redis that reads the count, decides, then writes count + 1
 *   (keeping the key's expiry), without a lock or a transaction: exact for requests one after another, but
 *   requests that arrive together read the same count and slip through.
 *
 * One limiter per plan (points = the plan's per-minute figure) over STORE_WINDOW_S, keyed by API key; requests
 * without a valid key by the client address nginx passes (X-Real-IP). Headers as the other rate-limiter-flexible
 * stores: X-RateLimit-Limit / -Remaining / -Reset (Unix seconds, rounded up), Retry-After in seconds on 429.
 * Env: STORE_KEYS_FILE, STORE_WINDOW_S, STORE_COUNTER, REDIS_URL.
 */
import { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { flexibleServer } from '../support/flexible-server.js';
import { announce, windowSeconds } from '../support/http-glue.js';
import { loadStoreKeys, PetApi } from '../support/pet-api.js';
import { RedisPets } from '../support/redis-pets.js';

const COUNTERS = ['local', 'shared', 'unlocked'] as const;
const counter = process.env.STORE_COUNTER as (typeof COUNTERS)[number];
if (!COUNTERS.includes(counter)) throw new Error(`STORE_COUNTER must be one of ${COUNTERS.join(', ')}`);

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
const duration = windowSeconds();

/** Read, decide, write: the lost update of a hand-written limiter (no MULTI, no Lua, no lock). */
class UnlockedCounter {
  constructor(
    private readonly points: number,
    private readonly prefix: string,
  ) {}

  async consume(subject: string): Promise<RateLimiterRes> {
    const key = `${this.prefix}:${subject}`;
    const [count, ttl] = await Promise.all([redis.get(key), redis.pttl(key)]);
    const used = Number(count ?? 0);
    const msBeforeNext = ttl > 0 ? ttl : duration * 1000;
    if (used >= this.points) throw new RateLimiterRes(0, msBeforeNext, used, false);
    await redis.set(key, String(used + 1), 'PX', msBeforeNext);
    return new RateLimiterRes(this.points - used - 1, msBeforeNext, used + 1, used === 0);
  }
}

const limiters = new Map<string, RateLimiterAbstract>();
function limiterFor(plan: string, points: number): RateLimiterAbstract {
  const id = `${plan}:${points}`;
  let l = limiters.get(id);
  if (l === undefined) {
    l =
      counter === 'local'
        ? new RateLimiterMemory({ points, duration })
        : counter === 'shared'
          ? new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix: `rl:${id}` })
          : (new UnlockedCounter(points, `unlocked:${id}`) as unknown as RateLimiterAbstract);
    limiters.set(id, l);
  }
  return l;
}

const server = flexibleServer({
  keys: loadStoreKeys(),
  api: new PetApi(new RedisPets(redis)),
  limiterFor,
  clientOf: (req) => String(req.headers['x-real-ip'] ?? req.socket.remoteAddress),
  onRequest: () => void redis.incr(`served:${process.pid}`),
});
server.listen(0, '127.0.0.1', () => announce(server));
