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
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { flexibleServer } from '../support/flexible-server.js';
import { windowSeconds } from '../support/http-glue.js';
import { loadStoreKeys, PetApi } from '../support/pet-api.js';
import { RedisPets } from '../support/redis-pets.js';

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
  for (const sig of ['SIGTERM', 'SIGINT'] as const)
    process.on(sig, () => {
      cluster.removeAllListeners('exit');
      for (const w of Object.values(cluster.workers ?? {})) w?.kill();
      process.exit(0);
    });
} else {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
  });
  const keys = loadStoreKeys();
  const duration = windowSeconds();
  const limiters = new Map<string, RateLimiterRedis>();
  const limiterFor = (plan: string, points: number) => {
    const id = `${plan}:${points}`;
    let l = limiters.get(id);
    if (!l)
      limiters.set(id, (l = new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix: `rl:${id}` })));
    return l;
  };

  const server = flexibleServer({
    keys,
    api: new PetApi(new RedisPets(redis)),
    limiterFor,
    clientOf: (req) => req.socket.remoteAddress ?? '?',
    onRequest: () => void redis.incr(`served:${cluster.worker?.id}`),
  });
  server.listen(0, '127.0.0.1');
}
