/**
 * Corpus (h): Debian's HAProxy 2.6 in front of a store without a limiter (support/haproxy-conf.ts), Free keys only,
 * on real minutes. HAProxy's rate estimate (`http_req_rate(60s)`) decays over two periods and counts refused
 * requests, while its headers promise the quota back a minute after each answer (`Reset` = now + 60,
 * `Retry-After: 60`): after a key's 429, a request sent once both have passed is refused again, and one sent a
 * minute later is accepted. The quota comes back late: petload must fail the checks that judge that promise, with
 * the promise, the wait and the answer as evidence, and never read it as another client's doing.
 */
import { describe, expect, it } from 'vitest';
import { corpusFixtures } from './support/fixtures.js';
import { FREE_PER_MINUTE, haproxyConfig } from './support/haproxy-conf.js';
import { startHaproxy, startStore } from './support/processes.js';
import { expectVerdict, runPetload, type VerdictTable } from './support/verdict.js';

/** The broken promise's evidence: the 429 that promised, when petload came back, and the answer then. */
const PROMISE_EVIDENCE =
  /the 429 that promised: Retry-After: 60, .*petload came back \d+\.\d s after it.*the answer then: 429, Retry-After: 60/;

export const HAPROXY_TABLE: VerdictTable = {
  exitCode: 1, // retry-after.honest (major), ratelimit.quota-restored (critical), ratelimit.headers-on-errors (major)
  checks: {
    'contract.transport': ['pass', 'HAProxy and the store answer every request whole'],
    'contract.no-server-errors': ['pass', 'refusals are 429'],
    'contract.documented-status': ['pass', 'documented statuses only'],
    'contract.json-content-type': ['pass', "the store's bodies, and HAProxy's 429 declared application/json"],
    'contract.error-shape': ['pass', "HAProxy's 429 body is an Error with status 429"],
    'contract.every-endpoint': [
      'fail',
      'no GET /store/orders: 404 to a valid key (advisory: a warning, exit unchanged)',
    ],
    'list.schema': ['pass', 'shared pet module behind the gateway'],
    'list.limit-respected': ['pass', 'shared pet module'],
    'list.limit-out-of-range': ['pass', '400 Error'],
    'list.status-filter': ['pass', 'shared pet module'],
    'list.invalid-status': ['pass', '400 Error'],
    'create.returns-pet': ['pass', 'shared pet module'],
    'create.rejects-invalid': ['pass', 'shared pet module (HAProxy passes bodies through)'],
    'get.returns-pet': ['pass', 'one store process'],
    'get.unknown-404': ['pass', 'shared pet module'],
    'deprecation.behaviour-unchanged': ['pass', 'the deprecated route is tracked and counted like the list'],
    'deprecation.announced': ['pass', 'Deprecation and Sunset pass through HAProxy'],
    'auth.missing-key': ['pass', 'no Free key: HAProxy lets it through, the store answers 401'],
    'auth.invalid-key': ['pass', '401 from the store'],
    'auth.challenge': ['pass', 'WWW-Authenticate passes through'],
    'auth.no-quota-drain': ['pass', "unknown keys are tracked under their own token, never against a Free key's"],
    'ratelimit.headers-present': ['pass', 'HAProxy adds the three fields to every answer to a Free key, 429 included'],
    'ratelimit.headers-on-errors': [
      'fail',
      'TRUE: a 401 to a request without a Free key carries no X-RateLimit-* (HAProxy annotates the tracked keys only)',
    ],
    'ratelimit.headers-syntax': ['pass', 'integers; Remaining never below 0'],
    'ratelimit.limit-matches-plan': ['pass', '60'],
    'ratelimit.reset-is-timestamp': ['pass', 'Unix seconds, now + 60: within a window of Date'],
    'ratelimit.remaining-decrements': [
      'pass',
      "in a key's first period the estimate is the exact count, so Remaining goes down by one per request",
    ],
    'ratelimit.window-consistency': [
      'pass',
      "every triple is in range; a key's answers within a second share their Reset (now + 60, in whole seconds)",
    ],
    'ratelimit.enforced': ['pass', 'the 61st request of a fresh key is refused (429), and so is every one after'],
    'ratelimit.quota-restored': [
      'fail',
      "TRUE: after the refused window ended (Retry-After and Reset passed), the key is refused again: the estimate still holds most of the last minute's requests",
    ],
    'ratelimit.no-over-admission': ['pass', 'one HAProxy process: the stick table is updated atomically'],
    'ratelimit.key-isolation': ['pass', 'one stick-table entry per token'],
    'ratelimit.what-counts': ['pass', 'info'],
    'ratelimit-fields.syntax': ['skip', 'no IETF fields'],
    'ratelimit-fields.consistent': ['skip', 'no IETF fields'],
    'ratelimit.algorithm': ['pass', 'info: the shape is unknown (no Remaining rising, no Reset moved within a minute)'],
    'retry-after.present': ['pass', 'Retry-After: 60 on every 429'],
    'retry-after.syntax': ['pass', 'delay-seconds'],
    'retry-after.plausible': ['pass', 'no later than Reset'],
    'retry-after.honest': [
      'fail',
      'TRUE: a request 60 s + 250 ms after the 429 is refused again, with no other request on the key since',
    ],
    'retry-after.error-body': ['pass', 'Error with status 429'],
    'backoff.respects-retry-after': ['pass', 'petload never sends inside a Retry-After'],
    'backoff.no-ban': ['skip', 'no load through the backoff in compliance'],
    'ban.probe': ['skip', 'opt-in'],
    'ratelimit.day-enforced': ['skip', 'opt-in'],
    'load.capacity': ['skip', 'no saturate phase'],
  },
};

/**
 * What HAProxy does to one unused key, seen directly: 70 requests at once (10 refused, all counted), then one once
 * Retry-After and Reset have passed (refused: the estimate still holds most of the last minute's 70), then one a
 * minute later (accepted: the estimate then holds only that one refused request).
 */
async function lateQuota(url: string, key: string): Promise<{ refused: Response; after: Response; later: Response }> {
  const get = async () => {
    const r = await fetch(`${url}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    await r.arrayBuffer();
    return r;
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const herd = await Promise.all(Array.from({ length: FREE_PER_MINUTE + 10 }, get));
  const refused = herd.find((r) => r.status === 429);
  if (refused === undefined) throw new Error(`HAProxy accepted ${herd.length} requests of a fresh key at once`);
  const resetMs = Number(refused.headers.get('x-ratelimit-reset')) * 1000 - Date.now();
  await sleep(Math.max(Number(refused.headers.get('retry-after')) * 1000, resetMs) + 1000);
  const after = await get();
  await sleep(61_000);
  return { refused, after, later: await get() };
}

describe('corpus (h): HAProxy stick tables in front of a store without a limiter', () => {
  const corpus = corpusFixtures('haproxy');

  it('the quota comes back a minute late: retry-after.honest and ratelimit.quota-restored fail with the wait as evidence', {
    timeout: 400_000,
  }, async () => {
    const keys = corpus.keysFiles(['free'], 12);
    const store = await corpus.started(startStore('no-limiter.ts', { STORE_KEYS_FILE: keys.store }));
    const haproxy = await corpus.started(startHaproxy((port) => haproxyConfig(port, Number(new URL(store.url).port))));
    // Side by side: petload's run, and HAProxy's own answers to the spare key over the same minutes.
    const [run, seen] = await Promise.all([
      runPetload(haproxy.url, keys.petload, 'compliance', 330_000),
      lateQuota(haproxy.url, keys.spare('free')),
    ]);
    expectVerdict(run, HAPROXY_TABLE, expect);
    // The broken promise, with its evidence; never read as another client's doing.
    for (const id of ['retry-after.honest', 'ratelimit.quota-restored']) {
      const c = run.report.checks.find((x) => x.id === id)!;
      expect(c.byPlan[0]?.evidence[0]?.message, id).toMatch(PROMISE_EVIDENCE);
      expect(c.byPlan.flatMap((p) => p.reasons).join(), id).not.toMatch(/another client/);
    }
    expect(seen.refused.headers.get('retry-after')).toBe('60');
    expect(seen.after.status).toBe(429);
    expect(seen.later.status).toBe(200);
  });
});
