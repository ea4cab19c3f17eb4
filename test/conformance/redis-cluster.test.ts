/**
 * Corpus (a): rate-limiter-flexible on a real Redis (Debian's redis-server), two node:cluster worker processes
 * sharing one port and the one Redis. A compliant store: petload must find nothing wrong with it but the short
 * window the test gives it (3 s where the plan's Limit names a minute), and on real one-minute windows nothing
 * at all.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { corpusFixtures } from './support/fixtures.js';
import { startRedis, startStore, type KeysFiles, type Started } from './support/processes.js';
import {
  explainDifferences,
  NO_WAIT,
  runPetload,
  statusesOf,
  statusesOfTable,
  type VerdictTable,
} from './support/verdict.js';

/** The verdict on 3 s windows (the `compliance` scenario, every probe). */
export const REDIS_CLUSTER_TABLE: VerdictTable = {
  exitCode: 1, // enforced is critical: the short window is the one thing wrong.
  checks: {
    'contract.transport': ['pass', 'both workers answer every request whole'],
    'contract.no-server-errors': ['pass', 'no 5xx: refusals are 429, Redis never fails'],
    'contract.documented-status': ['pass', 'only 200/201/400/401/404/429, each where the interface lists it'],
    'contract.json-content-type': ['pass', 'every body is sent as application/json'],
    'contract.error-shape': ['pass', 'every error, 429 included, is {code, message, status}'],
    'contract.every-endpoint': [
      'fail',
      'no GET /store/orders: 404 to a valid key (advisory: a warning, exit unchanged)',
    ],
    'list.schema': ['pass', 'a bare array of Pet, ids and categoryId as JSON integers (int64 kept exact)'],
    'list.limit-respected': ['pass', 'at most limit animals, 20 by default'],
    'list.limit-out-of-range': ['pass', '400 Error for 0, 101, -1, abc, 1.5'],
    'list.status-filter': ['pass', 'filters on status'],
    'list.invalid-status': ['pass', '400 Error for foo and AVAILABLE'],
    'create.returns-pet': ['pass', '201 with the Pet and an id from Redis INCR, distinct across both workers'],
    'create.rejects-invalid': ['pass', 'every invalid body 400, nothing stored'],
    'get.returns-pet': ['pass', 'the animals live in Redis: whichever worker created one, the other finds it'],
    'get.unknown-404': ['pass', '404 for an id never created and for int64 max'],
    'deprecation.behaviour-unchanged': [
      'pass',
      'GET /pets/{id} answers as documented, with headers, on the same limiter',
    ],
    'deprecation.announced': ['pass', 'Deprecation @<seconds> and Sunset 5 Dec 2030'],
    'auth.missing-key': ['pass', '401 without Authorization'],
    'auth.invalid-key': ['pass', '401 for an unknown key, an empty Bearer and Basic'],
    'auth.challenge': ['pass', 'WWW-Authenticate: Bearer on every 401'],
    'auth.no-quota-drain': ['pass', 'requests without a valid key are limited per address, never against a key'],
    'ratelimit.headers-present': [
      'pass',
      'the three X-RateLimit-* on every 2xx and on 429 (the refusal carries the limiter state)',
    ],
    'ratelimit.headers-on-errors': ['pass', '400/404 carry the key limiter, 401 the per-address one'],
    'ratelimit.headers-syntax': ['pass', 'plain integers, 0 <= Remaining <= Limit (remainingPoints is floored at 0)'],
    'ratelimit.limit-matches-plan': ['pass', 'points = the plan figure (60, 300)'],
    'ratelimit.reset-is-timestamp': ['pass', 'Reset = ceil((now + msBeforeNext) / 1000), Unix seconds'],
    'ratelimit.remaining-decrements': ['pass', 'Redis counts atomically: one per request, Limit-1 first'],
    'ratelimit.window-consistency': [
      'pass',
      'each triple describes its window; the Resets 3 s apart are the short window, skipped naming ratelimit.enforced (one defect)',
    ],
    'ratelimit.enforced': [
      'fail',
      "TRUE for this setting: a 3 s window admits the plan's figure every 3 s, more than the figure within a minute of the first request (counted against the time, whatever Reset says)",
    ],
    'ratelimit.quota-restored': ['pass', 'the Redis key expires with the window: accepted again'],
    'ratelimit.no-over-admission': [
      'pass',
      'the increment is one atomic Redis command, so two processes cannot both admit the last slot',
    ],
    'ratelimit.key-isolation': ['pass', 'one Redis key per API key'],
    'ratelimit.what-counts': ['pass', 'info: every authenticated request counts, 400/404 included'],
    'ratelimit-fields.syntax': ['skip', 'the store sends no IETF fields'],
    'ratelimit-fields.consistent': ['skip', 'the store sends no IETF fields'],
    'ratelimit.algorithm': ['pass', 'info: a fixed window'],
    'retry-after.present': ['pass', 'one Retry-After on every 429'],
    'retry-after.syntax': ['pass', 'delay-seconds'],
    'retry-after.plausible': ['pass', 'ceil(msBeforeNext / 1000): never beyond Reset'],
    'retry-after.honest': ['pass', 'after it the window has expired in Redis'],
    'retry-after.error-body': ['pass', 'the 429 body is an Error with status 429'],
    'backoff.respects-retry-after': ['pass', 'petload itself never sends inside a Retry-After'],
    'backoff.no-ban': ['skip', 'the compliance scenario has no load through the backoff'],
    'ban.probe': ['skip', 'opt-in, needs a sacrificial key'],
    'ratelimit.day-enforced': ['skip', 'opt-in'],
    'load.capacity': ['skip', 'no saturate phase'],
  },
};

/** On one-minute windows, the probes that need no wait: the same store passes. */
export const REDIS_CLUSTER_MINUTE_TABLE: VerdictTable = {
  exitCode: 0,
  checks: {
    ...REDIS_CLUSTER_TABLE.checks,
    'ratelimit.window-consistency': [
      'pass',
      'a real minute window: Resets are a minute apart (and no key outlives one here)',
    ],
    'ratelimit.enforced': [
      'pass',
      'exactly the plan figure accepted, then 429, across both workers; the 429 asks for the rest of the minute',
    ],
    'ratelimit.quota-restored': ['skip', 'the restore probe is not in this scenario (it would wait a minute)'],
    'retry-after.honest': ['skip', 'the retry-after-honest probe is not in this scenario (it would wait a minute)'],
    'ratelimit.key-isolation': ['skip', 'the key-isolation probe is not in this scenario'],
    'auth.no-quota-drain': ['skip', 'the quota-drain probe is not in this scenario'],
  },
};

describe.concurrent('corpus (a): rate-limiter-flexible on Redis, two cluster workers', () => {
  let redis: Started & { url: string };

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  // After hooks run last registered first: the stores stop before their Redis.
  const corpus = corpusFixtures('redis');

  /** A store on a Redis database of its own (`db`), so that the two tests run side by side on one server. */
  async function store(window: number, keys: KeysFiles, db: number) {
    const url = `${redis.url}/${db}`;
    const counters = new Redis(url);
    await counters.flushdb();
    const s = await corpus.started(
      startStore('redis-cluster.ts', { STORE_KEYS_FILE: keys.store, REDIS_URL: url, STORE_WINDOW_S: String(window) }),
    );
    return { ...s, counters };
  }

  it('3 s windows, every probe: only the window length is wrong (named by enforced), and both workers took traffic', {
    timeout: 120_000,
  }, async ({ expect }) => {
    const keys = corpus.keysFiles(['free', 'pro'], 8);
    const s = await store(3, keys, 1);
    const run = await runPetload(s.url, keys.petload);
    expect(statusesOf(run.report), explainDifferences(run.report, REDIS_CLUSTER_TABLE)).toEqual(
      statusesOfTable(REDIS_CLUSTER_TABLE),
    );
    expect(run.code).toBe(REDIS_CLUSTER_TABLE.exitCode);
    const served = (await s.counters.mget('served:1', 'served:2')).map(Number);
    s.counters.disconnect();
    // Round-robin over petload's connections: each process served a real share of the run.
    expect(Math.min(...served)).toBeGreaterThan(run.report.totals.requests / 5);
  });

  it('one-minute windows, the probes that need no wait: compliant, exit 0', { timeout: 120_000 }, async ({
    expect,
  }) => {
    const keys = corpus.keysFiles(['free', 'pro'], 12);
    const s = await store(60, keys, 2);
    const run = await runPetload(s.url, keys.petload, NO_WAIT);
    expect(statusesOf(run.report), explainDifferences(run.report, REDIS_CLUSTER_MINUTE_TABLE)).toEqual(
      statusesOfTable(REDIS_CLUSTER_MINUTE_TABLE),
    );
    expect(run.code).toBe(0);
  });
});
