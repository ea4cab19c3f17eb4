/**
 * Corpus (f): limiters that are not fixed windows, on real one-minute windows (the no-wait probes and 20 s of paced
 * traffic, a dozen keys per plan, so every rate-limit probe gets a fresh key): a token bucket (limiter's TokenBucket),
 * GCRA (redis-gcra on Debian's redis-server) and a sliding window (rolling-rate-limiter), each telling its state
 * truthfully in X-RateLimit-* (test/conformance/stores/algorithm.ts). The plan promises no more than its figure
 * within a minute from a fresh start: the bucket and GCRA break that promise by their refill (one defect each:
 * ratelimit.enforced), the sliding window keeps it. Their headers' movement (Remaining rising, Reset moving forward)
 * is the algorithm's, named by ratelimit.algorithm, and fails nothing.
 */
import { describe, it } from 'vitest';
import { corpusFixtures } from './support/fixtures.js';
import { startRedis, startStore } from './support/processes.js';
import type { CheckId } from '../../src/checks/catalogue.js';
import { join } from 'node:path';
import { expectVerdict, runPetload, type Expected, type VerdictTable } from './support/verdict.js';

/** The no-wait probes, then 20 s of paced traffic: long enough for a limiter's shape to show in one key's headers. */
const NO_WAIT_PACED = join(import.meta.dirname, 'scenarios', 'no-wait-paced.yaml');

const NOT_IN_SCENARIO = (probe: string) => `the ${probe} probe is not in the scenario (it waits for a window to end)`;

/** What both stores do alike: the shared pet module, and what the no-wait scenario leaves out. */
const COMMON: Record<Exclude<CheckId, 'ratelimit.enforced' | 'ratelimit.algorithm'>, Expected> = {
  'contract.transport': ['pass', 'every answer whole'],
  'contract.no-server-errors': ['pass', 'refusals are 429'],
  'contract.documented-status': ['pass', 'documented statuses only'],
  'contract.json-content-type': ['pass', 'shared pet module; the 429 is an Error'],
  'contract.error-shape': ['pass', 'shared pet module'],
  'contract.every-endpoint': ['fail', 'no GET /store/orders: 404 to a valid key (advisory: a warning, exit unchanged)'],
  'list.schema': ['pass', 'shared pet module'],
  'list.limit-respected': ['pass', 'shared pet module'],
  'list.limit-out-of-range': ['pass', '400 Error'],
  'list.status-filter': ['pass', 'shared pet module'],
  'list.invalid-status': ['pass', '400 Error'],
  'create.returns-pet': ['pass', 'shared pet module'],
  'create.rejects-invalid': ['pass', 'shared pet module'],
  'get.returns-pet': ['pass', 'one process, one memory'],
  'get.unknown-404': ['pass', 'shared pet module'],
  'deprecation.behaviour-unchanged': [
    'pass',
    'the get carries the headers and counts like the list (on a bucket, a rise between is refill, not a refund)',
  ],
  'deprecation.announced': ['pass', 'neither Deprecation nor Sunset is sent'],
  'auth.missing-key': ['pass', '401'],
  'auth.invalid-key': ['pass', '401'],
  'auth.challenge': ['pass', 'WWW-Authenticate: Bearer'],
  'auth.no-quota-drain': ['skip', NOT_IN_SCENARIO('quota-drain')],
  'ratelimit.headers-present': ['pass', 'on every answer'],
  'ratelimit.headers-on-errors': ['pass', 'the limiter runs before the routes'],
  'ratelimit.headers-syntax': ['pass', 'integers, 0 <= Remaining <= Limit'],
  'ratelimit.limit-matches-plan': ['pass', 'the per-minute figure'],
  'ratelimit.reset-is-timestamp': ['pass', 'Unix seconds at most a window ahead'],
  'ratelimit.remaining-decrements': [
    'pass',
    "a rise is the algorithm's (skipped naming ratelimit.algorithm); every other pair decrements by one",
  ],
  'ratelimit.window-consistency': [
    'pass',
    "Reset moving forward is the algorithm's (skipped naming ratelimit.algorithm); every triple is in range",
  ],
  'ratelimit.quota-restored': ['skip', NOT_IN_SCENARIO('restore')],
  'ratelimit.no-over-admission': ['pass', 'one process: the limiter is updated synchronously'],
  'ratelimit.key-isolation': ['skip', NOT_IN_SCENARIO('key-isolation')],
  'ratelimit.what-counts': ['pass', 'info'],
  'ratelimit-fields.syntax': ['skip', 'the store sends no IETF fields'],
  'ratelimit-fields.consistent': ['skip', 'the store sends no IETF fields'],
  'retry-after.present': ['pass', 'on every 429'],
  'retry-after.syntax': ['pass', 'delay-seconds'],
  'retry-after.plausible': ['pass', 'no later than Reset'],
  'retry-after.honest': ['skip', NOT_IN_SCENARIO('retry-after-honest')],
  'retry-after.error-body': ['pass', 'Error with status 429'],
  'backoff.respects-retry-after': ['pass', 'petload never sends inside a Retry-After'],
  'backoff.no-ban': [
    'pass',
    'the paced phase offers a tenth of the figure through the backoff: no ban, nothing refused',
  ],
  'ban.probe': ['skip', 'opt-in'],
  'ratelimit.day-enforced': ['skip', 'opt-in'],
  'load.capacity': ['skip', 'no saturate phase'],
};

export const TOKEN_BUCKET_TABLE: VerdictTable = {
  exitCode: 1, // enforced is critical.
  checks: {
    ...COMMON,
    'ratelimit.enforced': [
      'fail',
      'TRUE: the burst and the refill are accepted within one minute from a full bucket: more than the figure',
    ],
    'ratelimit.algorithm': ['pass', 'info: token bucket, burst = the figure, refill = the figure a minute'],
  },
};

/** GCRA (redis-gcra on Redis) admits as a token bucket does: the burst, then one request per emission interval. */
export const GCRA_TABLE: VerdictTable = {
  exitCode: 1, // enforced is critical.
  checks: {
    ...TOKEN_BUCKET_TABLE.checks,
    'ratelimit.enforced': [
      'fail',
      'TRUE: the burst and one request per emission interval are accepted within one minute from a full pool: more than the figure',
    ],
    'ratelimit.algorithm': ['pass', 'info: token bucket or GCRA (they admit alike), with the refill'],
  },
};

export const SLIDING_WINDOW_TABLE: VerdictTable = {
  exitCode: 0,
  checks: {
    ...COMMON,
    'ratelimit.enforced': ['pass', 'exactly the figure within a minute, then 429'],
    'ratelimit.algorithm': ['pass', 'info: sliding window'],
  },
};

describe.concurrent('corpus (e): limiters that are not fixed windows, on real minutes', () => {
  const corpus = corpusFixtures('algorithms');

  it.for([
    ['token-bucket', TOKEN_BUCKET_TABLE, /token bucket/],
    ['gcra', GCRA_TABLE, /GCRA/],
    ['sliding-window', SLIDING_WINDOW_TABLE, /sliding window/],
  ] as const)(
    "%s: judged by the plan's promise, its headers' movement named by ratelimit.algorithm",
    // The paced phase starts once enforce's refused keys have their window back: up to a minute more.
    { timeout: 200_000 },
    async ([algorithm, table, shape], { expect }) => {
      const keys = corpus.keysFiles(['free', 'pro', 'business'], 12);
      const redis = algorithm === 'gcra' ? await corpus.started(startRedis()) : null;
      const env = {
        STORE_KEYS_FILE: keys.store,
        STORE_WINDOW_S: '60',
        STORE_ALGORITHM: algorithm,
        ...(redis ? { STORE_REDIS_URL: redis.url } : {}),
      };
      const s = await corpus.started(startStore('algorithm.ts', env));
      const run = await runPetload(s.url, keys.petload, NO_WAIT_PACED);
      expectVerdict(run, table, expect);
      const named = run.report.checks.find((c) => c.id === 'ratelimit.algorithm')!;
      for (const p of named.byPlan) expect(p.info.shape, p.plan ?? '').toMatch(shape);
    },
  );
});
