/**
 * Corpus (c): Debian's nginx with `limit_req` in front of a compliant store (rate-limiter-flexible in memory,
 * one-minute windows). nginx refuses the request over a plan's figure itself, with its default 503 and none
 * of the store's headers. Only Free keys: nginx's bucket refills at the plan's rate (1 a second for Free), so
 * the request over the figure is refused by nginx as long as a key's first 61 requests take less than a
 * second; at Pro's 5 a second a slow machine would let the store answer some of them with 429, and the
 * verdict would depend on the machine's speed.
 */
import { describe, it } from 'vitest';
import { corpusFixtures } from './support/fixtures.js';
import { nginxHttpBlock } from './support/nginx-conf.js';
import { startNginx, startStore } from './support/processes.js';
import { expectVerdict, NO_WAIT, runPetload, type VerdictTable } from './support/verdict.js';

const NO_429 =
  'skip naming ratelimit.enforced: no request is ever answered 429, so there is no Retry-After to wait out';

export const NGINX_LIMIT_REQ_TABLE: VerdictTable = {
  exitCode: 1, // no-server-errors and enforced are critical.
  checks: {
    'contract.transport': ['pass', 'nginx and the store answer every request whole'],
    'contract.no-server-errors': ['fail', 'TRUE: nginx refuses with 503'],
    'contract.documented-status': ['pass', 'the 503 is judged as a server error by no-server-errors, not twice'],
    'contract.json-content-type': ['pass', "error_page turns nginx's refusal into application/json"],
    'contract.error-shape': ['pass', 'the refusal body is an Error with status 503'],
    'contract.every-endpoint': [
      'fail',
      'no GET /store/orders: 404 to a valid key (advisory: a warning, exit unchanged)',
    ],
    'list.schema': ['pass', 'shared pet module behind the proxy'],
    'list.limit-respected': ['pass', 'shared pet module'],
    'list.limit-out-of-range': ['pass', '400 Error'],
    'list.status-filter': ['pass', 'shared pet module'],
    'list.invalid-status': ['pass', '400 Error'],
    'create.returns-pet': ['pass', 'shared pet module'],
    'create.rejects-invalid': ['pass', 'shared pet module (nginx passes bodies through)'],
    'get.returns-pet': ['pass', 'one store process'],
    'get.unknown-404': ['pass', 'shared pet module'],
    'deprecation.behaviour-unchanged': ['pass', 'the deprecated route goes through the same zone and store limiter'],
    'deprecation.announced': ['pass', 'Deprecation and Sunset pass through nginx'],
    'auth.missing-key': ['pass', 'no plan key: nginx does not limit it, the store answers 401'],
    'auth.invalid-key': ['pass', '401 from the store'],
    'auth.challenge': ['pass', 'WWW-Authenticate passes through'],
    'auth.no-quota-drain': [
      'pass',
      'unknown keys are limited per address (X-Real-IP) by the store, never against a key',
    ],
    'ratelimit.headers-present': [
      'pass',
      'every 2xx comes from the store with its headers; there is no 429 (a 503 is outside this check)',
    ],
    'ratelimit.headers-on-errors': ['pass', '400/401/404 come from the store with headers'],
    'ratelimit.headers-syntax': ['pass', "the store's integers"],
    'ratelimit.limit-matches-plan': ['pass', '60'],
    'ratelimit.reset-is-timestamp': ['pass', 'Unix seconds, one-minute window'],
    'ratelimit.remaining-decrements': ['pass', 'the store counts every request nginx lets through, one by one'],
    'ratelimit.window-consistency': ['pass', 'one-minute windows, and no key is used across two of them'],
    'ratelimit.enforced': ['fail', 'TRUE: request 61 is answered 503 by nginx instead of 429'],
    'ratelimit.quota-restored': ['skip', NO_429],
    'ratelimit.no-over-admission': ['pass', "nginx's bucket and the store each admit at most 60 of the burst"],
    'ratelimit.key-isolation': ['skip', 'key A is never refused with 429 (see ratelimit.enforced)'],
    'ratelimit.what-counts': ['pass', 'info'],
    'ratelimit-fields.syntax': ['skip', 'the store sends no IETF fields'],
    'ratelimit-fields.consistent': ['skip', 'the store sends no IETF fields'],
    'ratelimit.algorithm': ['pass', 'info: a fixed window'],
    'retry-after.present': ['skip', 'no 429 in the run'],
    'retry-after.syntax': ['skip', 'no 429 in the run'],
    'retry-after.plausible': ['skip', 'no 429 in the run'],
    'retry-after.honest': ['skip', NO_429],
    'retry-after.error-body': ['skip', 'no 429 in the run'],
    'backoff.respects-retry-after': ['pass', 'petload never sends inside a Retry-After'],
    'backoff.no-ban': ['skip', 'no load through the backoff in compliance'],
    'ban.probe': ['skip', 'opt-in'],
    'ratelimit.day-enforced': ['skip', 'opt-in'],
    'load.capacity': ['skip', 'no saturate phase'],
  },
};

/** nginx's stock refusal: its own text/html 503 page (the no-wait scenario: the difference shows on enforce). */
export const NGINX_STOCK_PAGE_TABLE: VerdictTable = {
  exitCode: 1,
  checks: {
    ...NGINX_LIMIT_REQ_TABLE.checks,
    'auth.no-quota-drain': ['skip', 'the quota-drain probe is not in the no-wait scenario'],
    'ratelimit.key-isolation': ['skip', 'the key-isolation probe is not in the no-wait scenario'],
    'ratelimit.quota-restored': ['skip', 'the restore probe is not in the no-wait scenario'],
    'retry-after.honest': ['skip', 'the retry-after-honest probe is not in the no-wait scenario'],
    'contract.json-content-type': ['fail', "TRUE: nginx's own 503 page is text/html"],
    'contract.error-shape': [
      'pass',
      "the HTML page is not judged as an Error (it is json-content-type's failure); every JSON error is an Error",
    ],
  },
};

describe.concurrent('corpus (c): nginx limit_req in front of a compliant store', () => {
  const corpus = corpusFixtures('nginx');

  async function gateway(jsonRefusal: boolean) {
    // Twelve keys: every rate-limit probe gets a key whose one-minute window is fresh, so nothing waits.
    const keys = corpus.keysFiles(['free'], 12);
    const store = await corpus.started(
      startStore('memory-flexible.ts', { STORE_KEYS_FILE: keys.store, STORE_WINDOW_S: '60' }),
    );
    const nginx = await corpus.started(
      startNginx((port) => nginxHttpBlock(port, Number(new URL(store.url).port), { jsonRefusal })),
    );
    return { keys: keys.petload, url: nginx.url, spare: keys.spare('free') };
  }

  /** nginx's own refusal, seen directly: 61 requests at once on an unused key, the refused one. */
  async function refusal(url: string, key: string): Promise<Response | undefined> {
    const all = await Promise.all(
      Array.from({ length: 61 }, () => fetch(`${url}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } })),
    );
    await Promise.all(all.map((r) => r.clone().arrayBuffer()));
    return all.find((r) => r.status !== 200);
  }

  it('a JSON Error page: petload names the 503 by no-server-errors and enforced, and skips what needs a 429', {
    timeout: 120_000,
  }, async ({ expect }) => {
    const { keys, url, spare } = await gateway(true);
    const run = await runPetload(url, keys);
    expectVerdict(run, NGINX_LIMIT_REQ_TABLE, expect);
    const refused = await refusal(url, spare);
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('x-ratelimit-limit')).toBeNull();
    expect(refused?.headers.get('retry-after')).toBeNull();
  });

  it("nginx's stock 503 page: the HTML body is named by json-content-type as well", { timeout: 120_000 }, async ({
    expect,
  }) => {
    const { keys, url, spare } = await gateway(false);
    const run = await runPetload(url, keys, NO_WAIT);
    expectVerdict(run, NGINX_STOCK_PAGE_TABLE, expect);
    const refused = await refusal(url, spare);
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
