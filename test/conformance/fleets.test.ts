/**
 * Corpus (g): fleets. Two instances of rate-limiter-flexible (test/conformance/stores/fleet.ts) behind Debian's
 * nginx in round-robin, their animals in one Redis, on real one-minute windows (the probes that need no wait):
 * - local counters (RateLimiterMemory in each instance): each keeps the figure alone, so the fleet admits up to
 *   twice the figure. One defect: ratelimit.enforced, with the counters named by ratelimit.algorithm; the checks
 *   that only echo it (the interleaved Remaining sequences, the burst admitted by both) skip naming it;
 * - a shared counter (RateLimiterRedis on the one Redis): compliant, whatever instance answers;
 * - an unlocked read-then-write counter on the one Redis: exact one request at a time, over-admitting when
 *   requests arrive together: ratelimit.no-over-admission, and nothing else.
 * The three fleets run side by side, so that the file takes the time of one.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { CheckId } from '../../src/checks/catalogue.js';
import { corpusFixtures } from './support/fixtures.js';
import { nginxRoundRobinBlock } from './support/nginx-conf.js';
import { startNginx, startRedis, startStore } from './support/processes.js';
import { expectVerdict, NO_WAIT, runPetload, type Expected, type VerdictTable } from './support/verdict.js';

const INSTANCES = 2;
const NOT_IN_SCENARIO = (probe: string) => `the ${probe} probe is not in the scenario (it waits for a window to end)`;

/** What every fleet does alike: the shared pet module over one Redis, and what the no-wait scenario leaves out. */
const COMMON: Record<CheckId, Expected> = {
  'contract.transport': ['pass', 'nginx and every instance answer every request whole'],
  'contract.no-server-errors': ['pass', 'refusals are 429; Redis never fails'],
  'contract.documented-status': ['pass', 'documented statuses only'],
  'contract.json-content-type': ['pass', 'shared pet module; the 429 is an Error'],
  'contract.error-shape': ['pass', 'shared pet module'],
  'contract.every-endpoint': ['fail', 'no GET /store/orders: 404 to a valid key (advisory: a warning, exit unchanged)'],
  'list.schema': ['pass', 'shared pet module'],
  'list.limit-respected': ['pass', 'shared pet module'],
  'list.limit-out-of-range': ['pass', '400 Error'],
  'list.status-filter': ['pass', 'shared pet module'],
  'list.invalid-status': ['pass', '400 Error'],
  'create.returns-pet': ['pass', 'ids from Redis INCR, distinct across the instances'],
  'create.rejects-invalid': ['pass', 'shared pet module'],
  'get.returns-pet': ['pass', 'the animals live in the one Redis: any instance finds one another created'],
  'get.unknown-404': ['pass', 'shared pet module'],
  'deprecation.behaviour-unchanged': ['pass', 'the get carries the headers and counts like the list'],
  'deprecation.announced': ['pass', 'Deprecation @<seconds> and Sunset 5 Dec 2030'],
  'auth.missing-key': ['pass', '401'],
  'auth.invalid-key': ['pass', '401'],
  'auth.challenge': ['pass', 'WWW-Authenticate: Bearer'],
  'auth.no-quota-drain': ['skip', NOT_IN_SCENARIO('quota-drain')],
  'ratelimit.headers-present': ['pass', 'on every 2xx and 429'],
  'ratelimit.headers-on-errors': ['pass', 'the limiter runs before the routes'],
  'ratelimit.headers-syntax': ['pass', 'integers, 0 <= Remaining <= Limit'],
  'ratelimit.limit-matches-plan': ['pass', 'points = the plan figure, in every instance'],
  'ratelimit.reset-is-timestamp': ['pass', 'Reset = ceil((now + msBeforeNext) / 1000)'],
  'ratelimit.remaining-decrements': ['pass', 'one counter, one per request, Limit-1 first'],
  'ratelimit.window-consistency': ['pass', 'one window per key, a minute long'],
  'ratelimit.enforced': ['pass', 'exactly the figure within a minute, then 429'],
  'ratelimit.quota-restored': ['skip', NOT_IN_SCENARIO('restore')],
  'ratelimit.day-enforced': ['skip', 'opt-in'],
  'ratelimit.no-over-admission': ['pass', 'one atomic counter for the fleet'],
  'ratelimit.key-isolation': ['skip', 'the key-isolation probe is not in this scenario'],
  'ratelimit.what-counts': ['pass', 'info'],
  'ratelimit-fields.syntax': ['skip', 'the stores send no IETF fields'],
  'ratelimit-fields.consistent': ['skip', 'the stores send no IETF fields'],
  'ratelimit.algorithm': ['pass', 'info'],
  'retry-after.present': ['pass', 'on every 429'],
  'retry-after.syntax': ['pass', 'delay-seconds'],
  'retry-after.plausible': ['pass', 'ceil(msBeforeNext / 1000): never beyond Reset'],
  'retry-after.honest': ['skip', NOT_IN_SCENARIO('retry-after-honest')],
  'retry-after.error-body': ['pass', 'Error with status 429'],
  'backoff.respects-retry-after': ['pass', 'petload never sends inside a Retry-After'],
  'backoff.no-ban': ['skip', 'no load through the backoff'],
  'ban.probe': ['skip', 'opt-in'],
  'load.capacity': ['skip', 'no saturate phase'],
};

export const SHARED_FLEET_TABLE: VerdictTable = { exitCode: 0, checks: COMMON };

export const LOCAL_FLEET_TABLE: VerdictTable = {
  exitCode: 1,
  checks: {
    ...COMMON,
    'ratelimit.enforced': [
      'fail',
      "TRUE: each instance admits the figure alone; a key's requests go to both in turn: more than the figure within a minute",
    ],
    'ratelimit.algorithm': ['pass', 'info: 2 independent counters, the limit kept per instance'],
    'ratelimit.remaining-decrements': [
      'pass',
      "pairs from one instance decrement by one; where the key's sequences interleave, the failures are skipped naming ratelimit.enforced",
    ],
    'ratelimit.window-consistency': [
      'pass',
      "each instance's window is one window; the interleaving is skipped naming ratelimit.enforced",
    ],
    'ratelimit.no-over-admission': ['skip', "the burst is admitted by both counters: ratelimit.enforced's defect"],
    'deprecation.behaviour-unchanged': [
      'pass',
      'where list, get, list land on one instance it counts like the list; where on two, skipped naming enforced',
    ],
    // No request is ever refused: enforce stops a few requests past the figure, the burst (figure + 5) is shared by
    // two instances that each admit the figure, and the other probes send little.
    'retry-after.present': ['skip', 'no 429 came: each instance had room for its share'],
    'retry-after.syntax': ['skip', 'no 429 came'],
    'retry-after.plausible': ['skip', 'no 429 came'],
    'retry-after.error-body': ['skip', 'no 429 came'],
  },
};

export const UNLOCKED_FLEET_TABLE: VerdictTable = {
  exitCode: 1,
  checks: {
    ...COMMON,
    'ratelimit.no-over-admission': [
      'fail',
      'TRUE: the burst arrives together, every request reads the same count before any writes it back',
    ],
    'ratelimit.enforced': [
      'pass',
      'the requests sent 8 at a time slip through; taken again strictly one at a time, exactly the figure',
    ],
    'ratelimit.remaining-decrements': ['pass', 'one request at a time the count is exact'],
    'ratelimit.window-consistency': [
      'pass',
      'a rise where requests were in flight together is the lost update, skipped naming no-over-admission',
    ],
  },
};

describe('corpus (g): fleets of rate-limiter-flexible behind nginx round-robin, on real minutes', () => {
  const corpus = corpusFixtures('fleets');

  async function fleet(counter: 'local' | 'shared' | 'unlocked', db: number, redisUrl: string) {
    const keys = corpus.keysFiles(['free', 'pro'], 12);
    const env = {
      STORE_KEYS_FILE: keys.store,
      STORE_WINDOW_S: '60',
      STORE_COUNTER: counter,
      REDIS_URL: `${redisUrl}/${db}`,
    };
    const instances = await Promise.all(
      Array.from({ length: INSTANCES }, () => corpus.started(startStore('fleet.ts', env))),
    );
    const ports = instances.map((s) => Number(new URL(s.url).port));
    const nginx = await corpus.started(startNginx((port) => nginxRoundRobinBlock(port, ports)));
    const run = await runPetload(nginx.url, keys.petload, NO_WAIT);
    const client = new Redis(`${redisUrl}/${db}`);
    const served = await Promise.all(instances.map((s) => client.get(`served:${s.child.pid}`)));
    client.disconnect();
    return { run, served: served.map(Number) };
  }

  it('local counters fail enforced (counters named), a shared one passes, an unlocked one fails no-over-admission', {
    timeout: 150_000,
  }, async () => {
    const redis = await corpus.started(startRedis());
    const [local, shared, unlocked] = await Promise.all([
      fleet('local', 1, redis.url),
      fleet('shared', 2, redis.url),
      fleet('unlocked', 3, redis.url),
    ]);
    for (const [f, table] of [
      [local, LOCAL_FLEET_TABLE],
      [shared, SHARED_FLEET_TABLE],
      [unlocked, UNLOCKED_FLEET_TABLE],
    ] as const)
      expectVerdict(f.run, table, expect);
    // The counters: two for the local fleet, one for the others (the shared counter's interleaving is no fleet).
    const countersOf = (f: typeof local) =>
      f.run.report.checks.find((c) => c.id === 'ratelimit.algorithm')!.byPlan.map((p) => p.info.counters);
    expect([countersOf(local), countersOf(shared), countersOf(unlocked)]).toEqual([
      ['2', '2'],
      ['1', '1'],
      ['1', '1'],
    ]);
    // Round-robin: every instance of every fleet served a real share of its run.
    for (const f of [local, shared, unlocked])
      expect(Math.min(...f.served)).toBeGreaterThan(f.run.report.totals.requests / (4 * INSTANCES));
  });
});
