/**
 * Corpus (i): a sliding log as Python's `limits` library keeps one (its moving window, behind flask-limiter and
 * slowapi; written out in test/conformance/stores/algorithm.ts, STORE_ALGORITHM=moving-window): Reset = when the
 * oldest hit of the trailing minute leaves it, in whole seconds. One Pro key, 40 % of its figure for 75 s on real
 * minutes (scenarios/one-key-two-minutes.yaml): from the 60th second on, each request meets one of the key's requests
 * of the minute before sliding out, and Remaining stays level where a fixed window's would fall. That is the log's
 * truth: judged against petload's own requests of the key, it fails nothing, and ratelimit.algorithm names the log.
 * (Before that judgement, this run failed remaining-decrements on 23 of 150 answers and window-consistency on 9, and
 * named a fixed window.) In a file of its own, so that its minute and a half runs beside the other corpus files.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFixtures } from './support/fixtures.js';
import { startStore } from './support/processes.js';
import { expectVerdict, runPetload, type VerdictTable } from './support/verdict.js';

const ONE_KEY_TWO_MINUTES = join(import.meta.dirname, 'scenarios', 'one-key-two-minutes.yaml');

const NO_PROBE = (probe: string) => `not exercised: the ${probe} probe is not in the scenario (load only)`;
const NO_429 = 'not exercised: 40 % of the figure is never refused';

export const MOVING_WINDOW_TABLE: VerdictTable = {
  exitCode: 0,
  checks: {
    'contract.transport': ['pass', 'every answer whole'],
    'contract.no-server-errors': ['pass', 'no 5xx'],
    'contract.documented-status': ['pass', 'documented statuses only'],
    'contract.json-content-type': ['pass', 'shared pet module'],
    'contract.error-shape': ['skip', 'not exercised: the load sends valid requests only, every one accepted'],
    'contract.every-endpoint': ['skip', 'not exercised: the load sends to GET /pets only'],
    'list.schema': ['pass', 'shared pet module'],
    'list.limit-respected': ['pass', 'shared pet module'],
    'list.limit-out-of-range': ['skip', NO_PROBE('input')],
    'list.status-filter': ['pass', 'shared pet module'],
    'list.invalid-status': ['skip', NO_PROBE('input')],
    'create.returns-pet': ['skip', NO_PROBE('create-get')],
    'create.rejects-invalid': ['skip', NO_PROBE('input')],
    'get.returns-pet': ['skip', NO_PROBE('create-get')],
    'get.unknown-404': ['skip', NO_PROBE('unknown-id')],
    'deprecation.behaviour-unchanged': ['skip', NO_PROBE('deprecated')],
    'deprecation.announced': ['skip', NO_PROBE('deprecated')],
    'auth.missing-key': ['skip', 'not exercised: every request carries the key'],
    'auth.invalid-key': ['skip', 'not exercised: every request carries the key'],
    'auth.challenge': ['skip', 'not exercised: no 401'],
    'auth.no-quota-drain': ['skip', NO_PROBE('quota-drain')],
    'ratelimit.headers-present': ['pass', 'on every answer'],
    'ratelimit.headers-on-errors': ['skip', 'not exercised: no 400, 401 or 404'],
    'ratelimit.headers-syntax': ['pass', 'integers, 0 <= Remaining <= Limit'],
    'ratelimit.limit-matches-plan': ['pass', "Pro's per-minute figure"],
    'ratelimit.reset-is-timestamp': ['pass', 'Unix seconds, at most a minute ahead'],
    'ratelimit.remaining-decrements': [
      'pass',
      "down by one per request; level where one of the key's own requests of the minute before slid out (skipped naming ratelimit.algorithm, which reads the log)",
    ],
    'ratelimit.window-consistency': [
      'pass',
      "Reset follows the oldest request of the log, Remaining rises as requests slide out: the log's truth (skipped naming ratelimit.algorithm)",
    ],
    'ratelimit.enforced': ['skip', NO_PROBE('enforce')],
    'ratelimit.quota-restored': ['skip', NO_PROBE('restore')],
    'ratelimit.no-over-admission': ['skip', NO_PROBE('burst')],
    'ratelimit.key-isolation': ['skip', NO_PROBE('key-isolation')],
    'ratelimit.what-counts': ['skip', NO_PROBE('what-counts')],
    'ratelimit.algorithm': ['pass', "info: a sliding log, read from the key's own requests sliding out"],
    'ratelimit-fields.syntax': ['skip', 'the store sends no IETF fields'],
    'ratelimit-fields.consistent': ['skip', 'the store sends no IETF fields'],
    'retry-after.present': ['skip', NO_429],
    'retry-after.syntax': ['skip', NO_429],
    'retry-after.plausible': ['skip', NO_429],
    'retry-after.honest': ['skip', NO_PROBE('retry-after-honest')],
    'retry-after.error-body': ['skip', NO_429],
    'backoff.respects-retry-after': ['pass', 'no Retry-After to respect, nothing sent inside one'],
    'backoff.no-ban': ['pass', 'no ban; never more than the figure in a minute'],
    'ban.probe': ['skip', 'opt-in'],
    'ratelimit.day-enforced': ['skip', 'opt-in'],
    'load.capacity': ['skip', 'no saturate phase'],
  },
};

describe("corpus (i): a sliding log whose requests slide out (Python's limits moving window), on real minutes", () => {
  const corpus = corpusFixtures('sliding-log');

  it("fails nothing where the key's own requests slid out, and names the log", { timeout: 200_000 }, async () => {
    const keys = corpus.keysFiles(['pro'], 1);
    const env = { STORE_KEYS_FILE: keys.store, STORE_WINDOW_S: '60', STORE_ALGORITHM: 'moving-window' };
    const s = await corpus.started(startStore('algorithm.ts', env));
    const run = await runPetload(s.url, keys.petload, ONE_KEY_TWO_MINUTES, 150_000);
    expectVerdict(run, MOVING_WINDOW_TABLE, expect);
    const byId = (id: string) => run.report.checks.find((c) => c.id === id)!.byPlan[0]!;
    const algorithm = byId('ratelimit.algorithm');
    expect(algorithm.info.shape).toBe('sliding window (a log of the trailing minute)');
    expect(algorithm.info.evidence).toMatch(/, [1-9]\d* with Remaining up by exactly the key's own requests that slid/);
    // Requests did slide out while the key was in use: pairs a fixed window would have failed were read as the log's.
    expect(byId('ratelimit.remaining-decrements').reasons).toEqual([
      expect.stringMatching(/^Remaining rose by exactly the key's own requests that slid out of the trailing minute/),
    ]);
  });
});
