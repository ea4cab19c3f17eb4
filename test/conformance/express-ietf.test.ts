/**
 * Corpus (d): Express with express-rate-limit sending the IETF draft-8 `RateLimit` / `RateLimit-Policy` fields
 * (`standardHeaders: 'draft-8'`, `legacyHeaders: false`) instead of X-RateLimit-*. Its limiting is right; the
 * one defect is that the interface's headers are absent, on every answer.
 */
import { describe, it } from 'vitest';
import { corpusFixtures } from './support/fixtures.js';
import { startStore } from './support/processes.js';
import { expectVerdict, NO_WAIT, runPetload, type VerdictTable } from './support/verdict.js';

const NO_HEADERS = 'skip naming ratelimit.headers-present: there is no X-RateLimit-* to read';

export const EXPRESS_IETF_TABLE: VerdictTable = {
  exitCode: 1, // headers-present, enforced (critical) and headers-on-errors (major).
  checks: {
    'contract.transport': ['pass', 'every answer whole'],
    'contract.no-server-errors': ['pass', 'refusals are 429'],
    'contract.documented-status': ['pass', 'documented statuses only'],
    'contract.json-content-type': ['pass', 'the shared pet module and the 429 handler send application/json'],
    'contract.error-shape': ['pass', 'the handler option renders the 429 as an Error'],
    'contract.every-endpoint': [
      'fail',
      'no GET /store/orders: 404 to a valid key (advisory: a warning, exit unchanged)',
    ],
    'list.schema': ['pass', 'shared pet module'],
    'list.limit-respected': ['pass', 'shared pet module'],
    'list.limit-out-of-range': ['pass', '400 Error'],
    'list.status-filter': ['pass', 'shared pet module'],
    'list.invalid-status': ['pass', '400 Error'],
    'create.returns-pet': ['pass', 'shared pet module'],
    'create.rejects-invalid': ['pass', 'shared pet module (the body is read as text, parsed losslessly)'],
    'get.returns-pet': ['pass', 'one process, one memory'],
    'get.unknown-404': ['pass', 'shared pet module'],
    'deprecation.behaviour-unchanged': [
      'pass',
      '200 with a Pet; it lacks X-RateLimit-* exactly as the list does, which is no change of behaviour (headers-present names it), and its quota use is not judged',
    ],
    'deprecation.announced': ['pass', 'Deprecation and Sunset well formed'],
    'auth.missing-key': ['pass', '401'],
    'auth.invalid-key': ['pass', '401'],
    'auth.challenge': ['pass', 'WWW-Authenticate: Bearer'],
    'auth.no-quota-drain': ['skip', 'needs Remaining to compare: ' + NO_HEADERS],
    'ratelimit.headers-present': [
      'fail',
      'TRUE: 2xx and 429 carry RateLimit / RateLimit-Policy, not X-RateLimit-Limit/-Remaining/-Reset',
    ],
    'ratelimit.headers-on-errors': [
      'fail',
      'TRUE: 400/401/404 lack X-RateLimit-* as well (the limiter runs before the routes, so they carry only the draft fields)',
    ],
    'ratelimit.headers-syntax': ['skip', 'no response has an X-RateLimit-* value to judge'],
    'ratelimit.limit-matches-plan': ['skip', NO_HEADERS],
    'ratelimit.reset-is-timestamp': ['skip', NO_HEADERS],
    'ratelimit.remaining-decrements': ['skip', NO_HEADERS],
    'ratelimit.window-consistency': ['skip', NO_HEADERS + ' (so the 3 s window goes unseen)'],
    'ratelimit.enforced': [
      'fail',
      "TRUE for this setting: a 3 s window admits the plan's figure every 3 s, more than the figure within a minute of the first request (counted against the time, whatever Reset says)",
    ],
    'ratelimit.quota-restored': ['pass', 'accepted once the window has ended (Retry-After tells when)'],
    'ratelimit.no-over-admission': ['pass', 'one process: the memory store increments synchronously'],
    'ratelimit.key-isolation': ['pass', 'keyGenerator = the API key'],
    'ratelimit.what-counts': ['pass', 'info, measured from status codes and refusals'],
    'ratelimit-fields.syntax': [
      'pass',
      'draft-8 RateLimit / RateLimit-Policy: named lists with q, w, r, t, read as the draft-11 form',
    ],
    'ratelimit-fields.consistent': ['skip', 'no X-RateLimit-* to compare the draft fields with'],
    'ratelimit.algorithm': ['pass', 'info: read from the draft fields, all the store sends (r, and t from Date)'],
    'retry-after.present': ['pass', 'express-rate-limit sets Retry-After on 429'],
    'retry-after.syntax': ['pass', 'delay-seconds'],
    'retry-after.plausible': ['pass', "seconds to the window's end, within the window length"],
    'retry-after.honest': ['pass', 'the window has ended by then'],
    'retry-after.error-body': ['pass', 'Error with status 429'],
    'backoff.respects-retry-after': ['pass', 'petload never sends inside a Retry-After'],
    'backoff.no-ban': ['skip', 'no load through the backoff in compliance'],
    'ban.probe': ['skip', 'opt-in'],
    'ratelimit.day-enforced': ['skip', 'opt-in'],
    'load.capacity': ['skip', 'no saturate phase'],
  },
};

/**
 * The same library with its X-RateLimit-* fields (`legacyHeaders: true`, no draft fields) and
 * `skipFailedRequests: true` (answers of 400 and over are given back to the quota), on one-minute windows and
 * the no-wait scenario: compliant. The 400 shows a Remaining one lower, and the next answer the same value
 * again, which the interface allows (whether errors count is measured, not judged).
 */
export const EXPRESS_LEGACY_TABLE: VerdictTable = {
  exitCode: 0,
  checks: {
    ...EXPRESS_IETF_TABLE.checks,
    'deprecation.behaviour-unchanged': ['pass', 'the deprecated get carries the headers and counts like the list'],
    'ratelimit.headers-present': ['pass', 'X-RateLimit-Limit/-Remaining/-Reset on 2xx and 429'],
    'ratelimit.headers-on-errors': ['pass', 'the limiter runs before the routes: 400/401/404 carry them'],
    'ratelimit.headers-syntax': ['pass', 'integers, Remaining floored at 0'],
    'ratelimit.limit-matches-plan': ['pass', 'the limit function gives the plan figure'],
    'ratelimit.reset-is-timestamp': ['pass', 'ceil(resetTime / 1000): Unix seconds'],
    'ratelimit.remaining-decrements': ['pass', 'one per counted request; a 400 given back is not a counted request'],
    'ratelimit.window-consistency': ['pass', 'one-minute windows'],
    'ratelimit.enforced': ['pass', 'exactly the plan figure accepted within the minute, then 429'],
    'ratelimit.quota-restored': ['skip', 'the restore probe is not in the no-wait scenario'],
    'retry-after.honest': ['skip', 'the retry-after-honest probe is not in the no-wait scenario'],
    'ratelimit.key-isolation': ['skip', 'the key-isolation probe is not in the no-wait scenario'],
    'auth.no-quota-drain': ['skip', 'the quota-drain probe is not in the no-wait scenario'],
    'ratelimit.what-counts': ['pass', 'info: 400 and 404 are given back (skipFailedRequests)'],
    'ratelimit-fields.syntax': ['skip', 'no draft fields (legacyHeaders only)'],
    'ratelimit-fields.consistent': ['skip', 'no draft fields (legacyHeaders only)'],
    'ratelimit.algorithm': ['pass', "info: a fixed window (express-rate-limit's memory store)"],
  },
};

/** X-RateLimit-* and the draft fields of the same limiter, on one-minute windows: they agree, and the store complies. */
export const EXPRESS_BOTH_TABLE: VerdictTable = {
  exitCode: 0,
  checks: {
    ...EXPRESS_LEGACY_TABLE.checks,
    'ratelimit.remaining-decrements': ['pass', 'one per counted request (errors count too: no skipFailedRequests)'],
    'ratelimit.what-counts': ['pass', 'info: 400 and 404 count'],
    'ratelimit-fields.syntax': ['pass', 'draft-8 named lists, read as the draft-11 form'],
    'ratelimit-fields.consistent': [
      'pass',
      "r is Remaining, t is Reset - Date, q is Limit, and q per w=60 is the plan's figure",
    ],
  },
};

/**
 * Two limiters, as behind a gateway: an outer one at twice the plan's figure sends only the draft fields, the plan's
 * own sends only X-RateLimit-*. The store complies with the interface (X-RateLimit-* tell the truth about the limit
 * that refuses); the draft fields describe another limit, which the advisory check names: a warning, exit 0.
 */
export const EXPRESS_SPLIT_TABLE: VerdictTable = {
  exitCode: 0,
  checks: {
    ...EXPRESS_BOTH_TABLE.checks,
    'ratelimit-fields.consistent': [
      'fail',
      "TRUE (advisory): the draft fields describe the outer limit (q=120 per minute for Free), not the one X-RateLimit-* describe, and not the plan's figure",
    ],
  },
};

describe.concurrent('corpus (d): express-rate-limit with IETF draft-8 RateLimit fields', () => {
  const corpus = corpusFixtures('ietf');

  it('petload names the missing X-RateLimit-* by its two presence checks, the 3 s window by enforced, and nothing else', {
    timeout: 120_000,
  }, async ({ expect }) => {
    const keys = corpus.keysFiles(['free', 'pro'], 8);
    const s = await corpus.started(startStore('express-ietf.ts', { STORE_KEYS_FILE: keys.store, STORE_WINDOW_S: '3' }));
    const run = await runPetload(s.url, keys.petload);
    expectVerdict(run, EXPRESS_IETF_TABLE, expect);
    // The store really speaks the draft (read by the advisory ratelimit-fields.* checks, never in place of X-RateLimit-*).
    const res = await fetch(`${s.url}/pets`, { headers: { Authorization: `Bearer ${keys.spare('free')}` } });
    expect(res.headers.get('ratelimit')).toMatch(/^"free"; r=\d+; t=\d+$/);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"free"; q=60; w=3; pk=:[^:]+:$/);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('X-RateLimit-* and skipFailedRequests on one-minute windows: compliant, exit 0', {
    timeout: 120_000,
  }, async ({ expect }) => {
    const keys = corpus.keysFiles(['free', 'pro'], 12);
    const s = await corpus.started(
      startStore('express-ietf.ts', {
        STORE_KEYS_FILE: keys.store,
        STORE_WINDOW_S: '60',
        STORE_HEADERS: 'legacy',
        STORE_SKIP_FAILED: '1',
      }),
    );
    const run = await runPetload(s.url, keys.petload, NO_WAIT);
    expectVerdict(run, EXPRESS_LEGACY_TABLE, expect);
  });

  it.for([
    ['both', 'the draft fields agree with X-RateLimit-*: compliant, exit 0', EXPRESS_BOTH_TABLE],
    [
      'split',
      'the draft fields describe another limiter: a warning from ratelimit-fields.consistent, exit 0',
      EXPRESS_SPLIT_TABLE,
    ],
  ] as const)(
    'X-RateLimit-* and draft-8 fields (%s): %s',
    { timeout: 120_000 },
    async ([headers, , table], { expect }) => {
      const keys = corpus.keysFiles(['free', 'pro'], 12);
      const s = await corpus.started(
        startStore('express-ietf.ts', { STORE_KEYS_FILE: keys.store, STORE_WINDOW_S: '60', STORE_HEADERS: headers }),
      );
      const run = await runPetload(s.url, keys.petload, NO_WAIT);
      expectVerdict(run, table, expect);
      const res = await fetch(`${s.url}/pets`, { headers: { Authorization: `Bearer ${keys.spare('free')}` } });
      expect(res.headers.get('ratelimit-policy')).toMatch(
        headers === 'both' ? /^"free"; q=60; w=60;/ : /^"free"; q=120; w=60;/,
      );
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    },
  );
});
