/**
 * Corpus (e): Fastify with @fastify/rate-limit, default header names. Reset is the seconds until the window
 * resets, on every answer including the 429; the plugin's own 429 body, which is not an Error; otherwise a
 * correct limiter.
 */
import { describe, expect, it } from 'vitest';
import { corpusFixtures } from './support/fixtures.js';
import { startStore } from './support/processes.js';
import { expectVerdict, runPetload, type VerdictTable } from './support/verdict.js';

const NO_RESET =
  'skip naming ratelimit.reset-is-timestamp: a Reset of a few seconds is no timestamp, so no window can be told';

export const FASTIFY_RATE_LIMIT_TABLE: VerdictTable = {
  exitCode: 1, // reset-is-timestamp is critical.
  checks: {
    'contract.transport': ['pass', 'every answer whole'],
    'contract.no-server-errors': ['pass', 'refusals are 429'],
    'contract.documented-status': ['pass', 'documented statuses only'],
    'contract.json-content-type': ['pass', "the pet module and the plugin's error body are application/json"],
    'contract.error-shape': ['pass', 'every 400/401/404 is an Error; the 429 body is left to retry-after.error-body'],
    'contract.every-endpoint': [
      'fail',
      'no GET /store/orders: 404 to a valid key (advisory: a warning, exit unchanged)',
    ],
    'list.schema': ['pass', 'shared pet module'],
    'list.limit-respected': ['pass', 'shared pet module'],
    'list.limit-out-of-range': ['pass', '400 Error'],
    'list.status-filter': ['pass', 'shared pet module'],
    'list.invalid-status': ['pass', '400 Error'],
    'create.returns-pet': ['pass', 'shared pet module (every content type parsed as text)'],
    'create.rejects-invalid': ['pass', 'shared pet module'],
    'get.returns-pet': ['pass', 'one process, one memory'],
    'get.unknown-404': ['pass', 'shared pet module'],
    'deprecation.behaviour-unchanged': [
      'pass',
      'the onRequest hook covers every route: 200 with a Pet and the headers; whether it counts is not judged (no usable Reset)',
    ],
    'deprecation.announced': ['pass', 'Deprecation and Sunset well formed'],
    'auth.missing-key': ['pass', '401 from the route, after the onRequest hook'],
    'auth.invalid-key': ['pass', '401'],
    'auth.challenge': ['pass', 'WWW-Authenticate: Bearer'],
    'auth.no-quota-drain': ['skip', 'judged on usable triples: ' + NO_RESET],
    'ratelimit.headers-present': ['pass', 'the plugin sets all three on 2xx and on 429 (addHeaders)'],
    'ratelimit.headers-on-errors': [
      'pass',
      'the hook runs before the routes and the not-found handler, so 400/401/404 carry them',
    ],
    'ratelimit.headers-syntax': ['pass', 'integers; Remaining is max(0, max - current)'],
    'ratelimit.limit-matches-plan': ['pass', '`max` resolves to the plan figure'],
    'ratelimit.reset-is-timestamp': [
      'fail',
      'TRUE: Reset is ceil(ttl / 1000), seconds until the reset ("3"), named as such',
    ],
    'ratelimit.remaining-decrements': ['skip', NO_RESET],
    'ratelimit.window-consistency': ['skip', NO_RESET + ' (so the 3 s window goes unseen)'],
    'ratelimit.enforced': [
      'fail',
      "TRUE for this setting: a 3 s window admits the plan's figure every 3 s, more than the figure within a minute of the first request (counted against the time, whatever Reset says)",
    ],
    'ratelimit.quota-restored': ['pass', "the local store's window ends and the count starts again"],
    'ratelimit.no-over-admission': ['pass', 'one process: the local store increments without a gap'],
    'ratelimit.key-isolation': ['pass', 'keyGenerator = the API key'],
    'retry-after.present': ['pass', 'Retry-After on every 429'],
    'retry-after.syntax': ['pass', 'delay-seconds'],
    'retry-after.plausible': [
      'pass',
      "the window's remaining seconds, within the window length that bounds it when Reset is unusable",
    ],
    'retry-after.honest': ['pass', 'the window has ended by then'],
    'retry-after.error-body': [
      'fail',
      "TRUE (advisory, a warning: the exit code is unchanged): the plugin's body {statusCode, error, message} has no code and no status",
    ],
    'ratelimit.what-counts': ['pass', 'info'],
    'ratelimit-fields.syntax': ['skip', 'the store sends no IETF fields'],
    'ratelimit-fields.consistent': ['skip', 'the store sends no IETF fields'],
    'ratelimit.algorithm': ['skip', 'no Reset that is a timestamp to read the limiter from (reset-is-timestamp)'],
    'backoff.respects-retry-after': ['pass', 'petload never sends inside a Retry-After'],
    'backoff.no-ban': ['skip', 'no load through the backoff in compliance'],
    'ban.probe': ['skip', 'opt-in'],
    'ratelimit.day-enforced': ['skip', 'opt-in'],
    'load.capacity': ['skip', 'no saturate phase'],
  },
};

describe('corpus (e): @fastify/rate-limit, Reset in seconds-until-reset', () => {
  const corpus = corpusFixtures('fastify');

  it('petload names the seconds-until Reset, the 3 s window by enforced, warns of the 429 body, and nothing else', {
    timeout: 120_000,
  }, async () => {
    const keys = corpus.keysFiles(['free', 'pro'], 8);
    const s = await corpus.started(
      startStore('fastify-rate-limit.ts', { STORE_KEYS_FILE: keys.store, STORE_WINDOW_S: '3' }),
    );
    const run = await runPetload(s.url, keys.petload);
    expectVerdict(run, FASTIFY_RATE_LIMIT_TABLE, expect);
    const res = await fetch(`${s.url}/pets`, { headers: { Authorization: `Bearer ${keys.spare('pro')}` } });
    expect(res.headers.get('x-ratelimit-limit')).toBe('300');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(3);
  });
});
