/**
 * Store (a): rate-limiter-flexible's RateLimiterRedis on a real Redis, in TWO node:cluster worker processes
 * sharing one port (the primary hands connections out round-robin). The animals live in the same Redis, so
 * either process answers for any of them. One limiter per plan (points = the plan's per-minute figure) over a
 * short window (STORE_WINDOW_S), keyed by API key; requests without a valid key are limited per address.
 * Headers: X-RateLimit-Limit / -Remaining / -Reset (Unix seconds, rounded up), Retry-After in seconds on 429.
 * Env: STORE_KEYS_FILE, REDIS_URL, STORE_WINDOW_S. Each worker counts the requests it served in Redis
 * (`served:<worker id>`) so that the test can see both took traffic.
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { ANONYMOUS_LIMIT, readBody, sendReply, windowSeconds } from '../support/http-glue.js';
import { apiPath, authenticate, decodePet, encodePet, errorReply, loadStoreKeys, PetApi, tooManyRequests, unauthorized, type Pet, type PetStorage } from '../support/pet-api.js';

const WORKERS = 2;

if (cluster.isPrimary) {
  let listening = 0;
  for (let i = 0; i < WORKERS; i++) cluster.fork();
  cluster.on('listening', (_worker, address) => {
    if (++listening === WORKERS) process.stdout.write(`store listening http://127.0.0.1:${address.port}/v1\n`);
  });
  cluster.on('exit', (w, code, signal) => {
    process.stderr.write(`worker ${w.id} exited (${code ?? signal})\n`);
    process.exit(1);
  });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => {
    cluster.removeAllListeners('exit');
    for (const w of Object.values(cluster.workers ?? {})) w?.kill();
    process.exit(0);
  });
} else {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  const keys = loadStoreKeys();
  const duration = windowSeconds();
  const limiters = new Map<string, RateLimiterRedis>();
  const limiterFor = (plan: string, points: number) => {
    const id = `${plan}:${points}`;
    let l = limiters.get(id);
    if (!l) limiters.set(id, (l = new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix: `rl:${id}` })));
    return l;
  };

  class RedisPets implements PetStorage {
    async add(pet: Omit<Pet, 'id'>): Promise<Pet> {
      const p = { id: BigInt(await redis.incr('pets:next-id')), ...pet };
      await redis.multi().rpush('pets:all', encodePet(p)).hset('pets:by-id', p.id.toString(), encodePet(p)).exec();
      return p;
    }
    async all(): Promise<Pet[]> {
      return (await redis.lrange('pets:all', 0, -1)).map(decodePet);
    }
    async byId(id: bigint): Promise<Pet | undefined> {
      const text = await redis.hget('pets:by-id', id.toString());
      return text === null ? undefined : decodePet(text);
    }
  }
  const api = new PetApi(new RedisPets());

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
      void redis.incr(`served:${cluster.worker?.id}`);
      if (path === null) return sendReply(res, errorReply(404, 'not_found', 'not under /v1'));
      const key = authenticate(keys, req.headers.authorization);
      const limit = key ? key.perMinute : ANONYMOUS_LIMIT;
      const limiter = limiterFor(key ? key.plan : 'anonymous', limit);
      let headers: Record<string, string>;
      try {
        headers = headersOf(limit, await limiter.consume(key ? key.key : (req.socket.remoteAddress ?? '?')));
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
  server.listen(0, '127.0.0.1');
}
