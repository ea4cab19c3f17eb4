/**
 * Corpus (e): stores whose limiter is not a fixed window, each on a library teams deploy, with the interface's
 * headers told truthfully for that algorithm. One process, memory only. Env: STORE_KEYS_FILE, STORE_WINDOW_S (the
 * window the per-minute figure is sold over), STORE_ALGORITHM:
 *
 * - `token-bucket`: limiter's TokenBucket per key, burst = the plan's per-minute figure, refilled at that figure per
 *   window, continuously. Remaining = whole tokens left; Reset = when the bucket is full again; Retry-After = until
 *   the next whole token. It admits the burst and the refill within one window: more than the figure.
 * - `gcra`: redis-gcra (the Generic Cell Rate Algorithm as a Lua script on Debian's redis-server, STORE_REDIS_URL),
 *   burst = the figure, one request's emission interval = the window over the figure. Remaining = the tokens the
 *   library reports; Reset = when the pool is full again (its resetIn); Retry-After = its retryIn. It admits as a
 *   token bucket does: the burst, then one request per emission interval.
 * - `sliding-window`: rolling-rate-limiter's InMemoryRateLimiter per plan (a log of each key's accepted requests over
 *   the trailing window; a refused request is not logged). Remaining = the figure less the log; Reset = when the log
 *   will have drained (the newest request plus a window); Retry-After = until the oldest slides out. It never admits
 *   more than the figure in any window.
 * - `moving-window`: a sliding log as Python's `limits` library keeps one (its MovingWindowRateLimiter, behind
 *   flask-limiter and slowapi), written out here: each key's accepted hits (ms); a hit is accepted while fewer than the
 *   figure were accepted in the trailing window, and a refused one is not logged. Remaining = the figure less the hits
 *   of the trailing window; Reset = when the oldest of them leaves it, in whole seconds (int(oldest) + window, as the
 *   library's window stats); Retry-After = until then. Once a key's requests of one minute slide out during the next,
 *   Remaining stays level or rises where a fixed window's would fall.
 */
import { createServer } from 'node:http';
import { TokenBucket } from 'limiter';
import { InMemoryRateLimiter } from 'rolling-rate-limiter';
import { announce, ANONYMOUS_LIMIT, readBody, sendReply, windowSeconds } from '../support/http-glue.js';
import {
  apiPath,
  authenticate,
  errorReply,
  loadStoreKeys,
  PetApi,
  tooManyRequests,
  unauthorized,
} from '../support/pet-api.js';

/** What one request did to a subject's limiter, as the headers tell it. */
interface Take {
  accepted: boolean;
  remaining: number;
  /** Epoch ms the Reset header announces (rounded up to whole seconds): most limiters, when the figure is whole again. */
  fullAtMs: number;
  /** On a refusal: ms until a request would be accepted. */
  waitMs: number;
}

type Limiter = (subject: string, figure: number) => Promise<Take>;

const windowMs = windowSeconds() * 1000;

function tokenBucket(): Limiter {
  const buckets = new Map<string, TokenBucket>();
  return async (subject, figure) => {
    let b = buckets.get(subject);
    if (b === undefined) {
      buckets.set(
        subject,
        (b = new TokenBucket({ bucketSize: figure, tokensPerInterval: figure, interval: windowMs })),
      );
      // The library's bucket starts empty; a key's bucket starts full (its burst), as gateways start theirs.
      b.content = figure;
    }
    const accepted = b.tryRemoveTokens(1);
    const perMs = figure / windowMs;
    const now = Date.now();
    return {
      accepted,
      remaining: Math.floor(b.content),
      fullAtMs: now + (figure - b.content) / perMs,
      waitMs: accepted ? 0 : (1 - b.content) / perMs,
    };
  };
}

function slidingWindow(): Limiter {
  const logs = new Map<number, InMemoryRateLimiter>();
  const newest = new Map<string, number>();
  return async (subject, figure) => {
    let l = logs.get(figure);
    if (l === undefined) logs.set(figure, (l = new InMemoryRateLimiter({ interval: windowMs, maxInInterval: figure })));
    const now = Date.now();
    // Asked first, so that a refused request is not logged (the library logs every attempt it is given).
    const would = await l.wouldLimitWithInfo(subject);
    if (would.blocked)
      return {
        accepted: false,
        remaining: 0,
        fullAtMs: (newest.get(subject) ?? now) + windowMs,
        waitMs: would.millisecondsUntilAllowed,
      };
    const info = await l.limitWithInfo(subject);
    newest.set(subject, now);
    // Whole seconds, not rounded up: the log drains a window after its newest request, and no later.
    return {
      accepted: true,
      remaining: info.actionsRemaining,
      fullAtMs: Math.floor((now + windowMs) / 1000) * 1000,
      waitMs: 0,
    };
  };
}

function movingWindowLog(): Limiter {
  const logs = new Map<string, number[]>();
  return async (subject, figure) => {
    const now = Date.now();
    let log = logs.get(subject);
    if (log === undefined) logs.set(subject, (log = []));
    // The library counts a hit while its time is at least now less the window.
    while (log.length > 0 && log[0]! < now - windowMs) log.shift();
    const accepted = log.length < figure;
    if (accepted) log.push(now);
    const oldest = log[0] ?? now;
    return {
      accepted,
      remaining: figure - log.length,
      fullAtMs: Math.floor(oldest / 1000) * 1000 + windowMs,
      waitMs: accepted ? 0 : oldest + windowMs - now,
    };
  };
}

async function gcra(): Promise<Limiter> {
  const [{ Redis }, { default: RedisGCRA }] = await Promise.all([import('ioredis'), import('redis-gcra')]);
  const url = process.env.STORE_REDIS_URL;
  if (url === undefined) throw new Error('STORE_ALGORITHM=gcra needs STORE_REDIS_URL');
  const limiter = RedisGCRA({ redis: new Redis(url), keyPrefix: 'petload-corpus:' });
  return async (subject, figure) => {
    const r = await limiter.limit({ key: subject, burst: figure, rate: figure, period: windowMs, cost: 1 });
    return { accepted: !r.limited, remaining: r.remaining, fullAtMs: Date.now() + r.resetIn, waitMs: r.retryIn };
  };
}

const ALGORITHMS: Record<string, () => Limiter | Promise<Limiter>> = {
  'token-bucket': tokenBucket,
  'sliding-window': slidingWindow,
  'moving-window': movingWindowLog,
  gcra,
};
const make = ALGORITHMS[process.env.STORE_ALGORITHM ?? ''];
if (make === undefined) throw new Error(`STORE_ALGORITHM must be one of ${Object.keys(ALGORITHMS).join(', ')}`);
const limiter = await make();
const keys = loadStoreKeys();
const api = new PetApi();

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://store');
    const path = apiPath(url.pathname);
    const body = await readBody(req);
    if (path === null) return sendReply(res, errorReply(404, 'not_found', 'not under /v1'));
    const key = authenticate(keys, req.headers.authorization);
    const figure = key ? key.perMinute : ANONYMOUS_LIMIT;
    const t = await limiter(key ? `key:${key.key}` : `addr:${req.socket.remoteAddress}`, figure);
    const headers = {
      'X-RateLimit-Limit': String(figure),
      'X-RateLimit-Remaining': String(t.remaining),
      'X-RateLimit-Reset': String(Math.ceil(t.fullAtMs / 1000)),
    };
    if (!t.accepted) return sendReply(res, tooManyRequests(Math.max(1, Math.ceil(t.waitMs / 1000))), headers);
    if (!key) return sendReply(res, unauthorized(), headers);
    sendReply(res, await api.handle(req.method ?? 'GET', path, url.searchParams, body), headers);
  } catch (e) {
    sendReply(res, errorReply(500, 'internal', String(e)));
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => announce(server));
