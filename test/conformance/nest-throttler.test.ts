/**
 * Corpus (b): NestJS with @nestjs/throttler's global ThrottlerGuard and two throttlers (the unnamed default one
 * per short window, one named `day`). The library's headers as they are: Reset as seconds until the reset,
 * the named throttler's fields with its name as a suffix (`X-RateLimit-Limit-day`), and a 429 that carries
 * only Retry-After. Then every throttler named, so that every field carries a suffix.
 */
import { describe, it } from 'vitest';
import { corpusFixtures } from './support/fixtures.js';
import { startStore } from './support/processes.js';
import { expectVerdict, NO_WAIT, runPetload, type VerdictTable } from './support/verdict.js';

const NO_RESET =
  'skip naming ratelimit.reset-is-timestamp: a Reset of a few seconds is no timestamp, so no window can be told';

export const NEST_THROTTLER_TABLE: VerdictTable = {
  exitCode: 1, // headers-present and reset-is-timestamp are critical.
  checks: {
    'contract.transport': ['pass', 'every answer whole'],
    'contract.no-server-errors': ['pass', 'refusals are 429 (ThrottlerException)'],
    'contract.documented-status': ['pass', 'documented statuses only'],
    'contract.json-content-type': ['pass', 'the exception filter and the pet module send application/json'],
    'contract.error-shape': ['pass', 'the global exception filter renders the ThrottlerException as an Error'],
    'contract.every-endpoint': [
      'fail',
      'no GET /store/orders: 404 to a valid key (advisory: a warning, exit unchanged)',
    ],
    'list.schema': ['pass', 'shared pet module'],
    'list.limit-respected': ['pass', 'shared pet module'],
    'list.limit-out-of-range': ['pass', '400 Error'],
    'list.status-filter': ['pass', 'shared pet module'],
    'list.invalid-status': ['pass', '400 Error'],
    'create.returns-pet': ['pass', 'shared pet module (body read as text: bodyParser off)'],
    'create.rejects-invalid': ['pass', 'shared pet module'],
    'get.returns-pet': ['pass', 'one process, one memory'],
    'get.unknown-404': ['pass', 'shared pet module'],
    'deprecation.behaviour-unchanged': [
      'pass',
      'the guard covers every route: 200 with a Pet and the X-RateLimit-* fields; whether it counts is not judged (no usable Reset), which does not fail it',
    ],
    'deprecation.announced': ['pass', 'Deprecation and Sunset well formed'],
    'auth.missing-key': ['pass', '401 from the controller, after the guard'],
    'auth.invalid-key': ['pass', '401'],
    'auth.challenge': ['pass', 'WWW-Authenticate: Bearer'],
    'auth.no-quota-drain': ['skip', 'judged on usable triples: ' + NO_RESET],
    'ratelimit.headers-present': [
      'fail',
      'TRUE: a 429 carries only Retry-After (the guard throws before it sets X-RateLimit-*)',
    ],
    'ratelimit.headers-on-errors': [
      'pass',
      "the guard runs before the controller, so 400/401/404 carry the default throttler's fields",
    ],
    'ratelimit.headers-syntax': [
      'pass',
      'integers; Remaining is max(0, limit - hits); the suffixed -day fields are not X-RateLimit-* and are left alone',
    ],
    'ratelimit.limit-matches-plan': ['pass', 'the limit resolver gives the plan figure'],
    'ratelimit.reset-is-timestamp': [
      'fail',
      'TRUE: Reset is the seconds until the record expires ("3"), named as such',
    ],
    'ratelimit.remaining-decrements': ['skip', NO_RESET],
    'ratelimit.window-consistency': ['skip', NO_RESET + ' (so the 3 s window goes unseen)'],
    'ratelimit.enforced': [
      'fail',
      "TRUE for this setting: a 3 s window admits the plan's figure every 3 s, more than the figure within a minute of the first request (counted against the time, whatever Reset says)",
    ],
    'ratelimit.quota-restored': ['pass', 'the block (blockDuration = ttl) ends and the hits are cleared'],
    'ratelimit.no-over-admission': ['pass', 'one process: the in-memory storage counts without a gap'],
    'ratelimit.key-isolation': ['pass', 'getTracker = the API key'],
    'ratelimit.what-counts': ['pass', 'info'],
    'ratelimit-fields.syntax': ['skip', 'the store sends no IETF fields'],
    'ratelimit-fields.consistent': ['skip', 'the store sends no IETF fields'],
    'ratelimit.algorithm': ['skip', 'no Reset that is a timestamp to read the limiter from (reset-is-timestamp)'],
    'retry-after.present': ['pass', 'Retry-After (the default throttler has no suffix)'],
    'retry-after.syntax': ['pass', 'delay-seconds'],
    'retry-after.plausible': [
      'pass',
      "the block's seconds, within the window length that bounds it when Reset is unusable",
    ],
    'retry-after.honest': ['pass', 'the block has ended by then'],
    'retry-after.error-body': ['pass', 'Error with status 429'],
    'backoff.respects-retry-after': ['pass', 'petload never sends inside a Retry-After'],
    'backoff.no-ban': ['skip', 'no load through the backoff in compliance'],
    'ban.probe': ['skip', 'opt-in'],
    'ratelimit.day-enforced': ['skip', 'opt-in'],
    'load.capacity': ['skip', 'no saturate phase'],
  },
};

const NO_HEADERS = 'skip naming the presence checks: there is no unsuffixed X-RateLimit-* to read';

/**
 * Every throttler named (`minute`, `day`), as in the library's multi-throttler example: every field carries a
 * suffix, Retry-After included (`Retry-After-minute`). The no-wait scenario: with neither Reset nor
 * Retry-After, the restore probe would wait out its bound, a whole minute.
 */
export const NEST_NAMED_TABLE: VerdictTable = {
  exitCode: 1,
  checks: {
    ...NEST_THROTTLER_TABLE.checks,
    'deprecation.behaviour-unchanged': [
      'pass',
      '200 with a Pet; it lacks X-RateLimit-* as the list does (no change of behaviour); quota use not judged',
    ],
    'ratelimit.headers-present': [
      'fail',
      'TRUE: 2xx carry only X-RateLimit-*-minute / -day, the 429 only Retry-After-minute',
    ],
    'ratelimit.headers-on-errors': ['fail', 'TRUE: 400/401/404 carry only the suffixed fields'],
    'ratelimit.headers-syntax': ['skip', 'no response has an unsuffixed X-RateLimit-* value to judge'],
    'ratelimit.limit-matches-plan': ['skip', NO_HEADERS],
    'ratelimit.reset-is-timestamp': ['skip', NO_HEADERS + ' (the suffixed Reset is seconds-until-reset too, unseen)'],
    'ratelimit.remaining-decrements': ['skip', NO_HEADERS],
    'ratelimit.window-consistency': ['skip', NO_HEADERS],
    'ratelimit.enforced': [
      'pass',
      "the figure, then 429; with no Retry-After to follow (retry-after.present) and no probe that waits, nothing is sent within the minute after the 429, so the short window's over-admission goes unseen here",
    ],
    'auth.no-quota-drain': ['skip', 'the quota-drain probe is not in the no-wait scenario'],
    'ratelimit.quota-restored': ['skip', 'the restore probe is not in the no-wait scenario'],
    'ratelimit.key-isolation': ['skip', 'the key-isolation probe is not in the no-wait scenario'],
    'retry-after.present': ['fail', 'TRUE: the 429 carries Retry-After-minute, not Retry-After'],
    'retry-after.syntax': ['skip', 'no Retry-After (named by retry-after.present)'],
    'retry-after.plausible': ['skip', 'no Retry-After (named by retry-after.present)'],
    'retry-after.honest': ['skip', 'the retry-after-honest probe is not in the no-wait scenario'],
  },
};

describe.concurrent('corpus (b): @nestjs/throttler, Reset in seconds-until-reset, suffixed names', () => {
  const corpus = corpusFixtures('nest');

  it('petload names the seconds-until Reset, the header-less 429 and the 3 s window (enforced), and nothing else', {
    timeout: 120_000,
  }, async ({ expect }) => {
    const keys = corpus.keysFiles(['free', 'pro'], 8);
    const s = await corpus.started(
      startStore('nest-throttler.ts', { STORE_KEYS_FILE: keys.store, STORE_WINDOW_S: '3' }),
    );
    const run = await runPetload(s.url, keys.petload);
    expectVerdict(run, NEST_THROTTLER_TABLE, expect);
    // What the library sends, seen directly: the suffixed fields of the named throttler, Reset as a delta.
    const res = await fetch(`${s.url}/pets`, { headers: { Authorization: `Bearer ${keys.spare('pro')}` } });
    expect(res.headers.get('x-ratelimit-limit-day')).toBe('10000');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(3);
  });

  it('every throttler named: petload names the missing unsuffixed fields and the missing Retry-After', {
    timeout: 120_000,
  }, async ({ expect }) => {
    const keys = corpus.keysFiles(['free', 'pro'], 12);
    // A 20 s window: what this test judges is the names, and enforce's figure and its 429 must fall in one window
    // (Pro's 301 requests took more than 3 s when the run shared two busy cores).
    const s = await corpus.started(
      startStore('nest-throttler.ts', { STORE_KEYS_FILE: keys.store, STORE_WINDOW_S: '20', STORE_THROTTLERS: 'named' }),
    );
    const run = await runPetload(s.url, keys.petload, NO_WAIT);
    expectVerdict(run, NEST_NAMED_TABLE, expect);
    const res = await fetch(`${s.url}/pets`, { headers: { Authorization: `Bearer ${keys.spare('free')}` } });
    expect(res.headers.get('x-ratelimit-limit-minute')).toBe('60');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
