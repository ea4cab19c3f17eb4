import { describe, expect, it } from 'vitest';
import type { PetloadError } from '../core/errors.js';
import type { Exchange } from '../http/exchange.js';
import { buildExchange, type ExchangeParts } from '../testing/exchange-builder.js';
import { notTheApi, SAMPLE, watchTarget, wrongBase } from './target-sanity.js';

const TARGET = 'http://127.0.0.1:8080/v1';
const NO_LIMIT_HEADERS = {
  'x-ratelimit-limit': undefined,
  'x-ratelimit-remaining': undefined,
  'x-ratelimit-reset': undefined,
};

/** An answer with a text body and no rate-limit header (a sign-in page by default). */
const page = (parts: ExchangeParts = {}, text = '<html>Sign in</html>', type = 'text/html; charset=utf-8') =>
  buildExchange({
    ...parts,
    headers: { ...NO_LIMIT_HEADERS, 'content-type': type, ...parts.headers },
    body: { kind: 'text', excerpt: text },
  });

const times = (n: number, make: (i: number) => Exchange) => Array.from({ length: n }, (_, i) => make(i));
const ERROR_JSON = { code: 'server_error', message: 'boom', status: 500 };

describe('notTheApi: no JSON body and no rate-limit header among the first answers', () => {
  it('names what every answer was and asks about --target', () => {
    const answers = [
      ...times(3, () => page()),
      page({ operation: 'createPet', method: 'POST', auth: 'none' }),
      page({ status: 404 }),
    ];
    expect(notTheApi(answers, TARGET)).toBe(
      `every answer to GET /pets, POST /pets was 200 text/html (4), 404 text/html (1), without a JSON body or a rate-limit header: is --target (${TARGET}) the API's base URL, ending in /v1, and not a sign-in or proxy page?`,
    );
  });

  it('decides nothing before the sample is complete', () => {
    expect(
      notTheApi(
        times(SAMPLE - 1, () => page()),
        TARGET,
      ),
    ).toBeNull();
  });

  it.each([
    [
      'one JSON body (a 500 with an Error body)',
      buildExchange({ status: 500, headers: NO_LIMIT_HEADERS, json: ERROR_JSON }),
    ],
    ['a text body that parses as JSON', page({ status: 500 }, JSON.stringify(ERROR_JSON), 'text/plain')],
    ['one X-RateLimit header', page({ headers: { 'x-ratelimit-remaining': '3' } })],
    ['one IETF RateLimit field', page({ headers: { ratelimit: '"default";r=3;t=10' } })],
  ])('is the API with %s', (_what, odd) => {
    expect(notTheApi([...times(SAMPLE - 1, () => page()), odd], TARGET)).toBeNull();
  });

  it('a store without rate-limit headers that answers JSON is an API (with a defect the checks judge)', () => {
    const answers = times(SAMPLE, () => buildExchange({ headers: NO_LIMIT_HEADERS }));
    expect(notTheApi(answers, TARGET)).toBeNull();
  });

  it('401, 429 and 500 answers with JSON Error bodies are an API', () => {
    const answers = [401, 429, 500, 401, 429].map((status) =>
      buildExchange({ status, json: { ...ERROR_JSON, status } }),
    );
    expect(notTheApi(answers, TARGET)).toBeNull();
  });

  it('an answer without a Content-Type says so', () => {
    const answers = times(SAMPLE, () => page({ status: 404, headers: { 'content-type': undefined } }, 'Not Found'));
    expect(notTheApi(answers, TARGET)).toMatch(/^every answer to GET \/pets was 404 no Content-Type, without/);
  });
});

describe('wrongBase: a 404 with a key to an operation that is never 404, every earlier answer with a key a 404', () => {
  const notFound = (parts: ExchangeParts = {}) => buildExchange({ status: 404, json: ERROR_JSON, ...parts });

  it('decides on the first answer when it is a 404 to GET /pets or POST /pets', () => {
    expect(wrongBase([notFound()], TARGET)).toBe(
      `the answer to GET /pets with a valid key was 404 application/json (GET /pets is never 404 on the API): is --target (${TARGET}) the API's base URL, ending in /v1?`,
    );
    expect(wrongBase([notFound({ operation: 'createPet', method: 'POST' })], TARGET)).toMatch(
      /^the answer to POST \/pets with a valid key was 404 application\/json \(POST \/pets is never 404/,
    );
  });

  it('names the requests, the answer, and the operation that is never 404', () => {
    const answers = [...times(2, () => notFound({ operation: 'getPet', path: '/pets/7' })), notFound()];
    expect(wrongBase(answers, TARGET)).toBe(
      `every answer to GET /pets/{petId}, GET /pets with a valid key was 404 application/json (GET /pets is never 404 on the API): is --target (${TARGET}) the API's base URL, ending in /v1?`,
    );
  });

  it('404s to GET /pets/{petId} only are documented answers: no conclusion', () => {
    expect(
      wrongBase(
        times(SAMPLE, () => notFound({ operation: 'getPet', path: '/pets/7' })),
        TARGET,
      ),
    ).toBeNull();
  });

  it('one earlier answer that is not a 404 makes it the API', () => {
    expect(wrongBase([buildExchange(), notFound()], TARGET)).toBeNull();
  });
});

describe('watchTarget', () => {
  it('stops once, on the answer that completes the sample, and keeps the error', () => {
    const stops: PetloadError[] = [];
    const w = watchTarget(TARGET, (e) => stops.push(e));
    // Transport errors are not answers.
    w.observe(buildExchange({ status: null, error: { kind: 'reset', message: 'reset' } }));
    for (let i = 0; i < SAMPLE - 1; i++) w.observe(page());
    expect(stops).toHaveLength(0);
    w.observe(page());
    for (let i = 0; i < 3; i++) w.observe(page());
    expect(stops).toHaveLength(1);
    expect(w.error?.code).toBe('E_TARGET_NOT_API');
    expect(w.error?.exitCode).toBe(3);
    expect(w.error?.message).toMatch(/^the target does not answer as the Animal Store API: every answer to GET \/pets/);
  });

  it('judges a wrong base path on the answers with a key: the 401s without a key do not hide it', () => {
    const stops: PetloadError[] = [];
    const w = watchTarget(TARGET, (e) => stops.push(e));
    const unauthorized = () => buildExchange({ status: 401, auth: 'none', json: { ...ERROR_JSON, status: 401 } });
    for (let i = 0; i < SAMPLE; i++) {
      w.observe(unauthorized());
      w.observe(buildExchange({ status: 404, json: ERROR_JSON }));
    }
    expect(stops).toHaveLength(1);
    expect(w.error?.message).toMatch(/with a valid key was 404 application\/json/);
  });

  it('stops on the first 404 to GET /pets with a key, with what the look at the base with /v1 found', async () => {
    const stops: PetloadError[] = [];
    const looked: string[] = [];
    const found = 'At http://127.0.0.1:8080/v1, GET /pets with the same key answers 200 with a JSON list.';
    const w = watchTarget(
      'http://127.0.0.1:8080',
      (e) => stops.push(e),
      async (label) => {
        looked.push(label);
        return found;
      },
    );
    w.observe(buildExchange({ status: 404, json: ERROR_JSON }));
    w.observe(buildExchange({ status: 404, json: ERROR_JSON }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(looked).toEqual([buildExchange().keyLabel]);
    expect(stops).toHaveLength(1);
    expect(w.error?.exitCode).toBe(3);
    expect(w.error?.message).toMatch(/the API's base URL, ending in \/v1\? At http:\/\/127\.0\.0\.1:8080\/v1, GET/);
  });

  it('looks with /v1 added after an HTML base too, with a key that got one of the answers; without one, not', async () => {
    for (const keyed of [true, false]) {
      const stops: PetloadError[] = [];
      const looked: string[] = [];
      const w = watchTarget(
        'http://127.0.0.1:8080',
        (e) => stops.push(e),
        async (label) => {
          looked.push(label);
          return 'At http://127.0.0.1:8080/v1, GET /pets with the same key answers 200 with a JSON list.';
        },
      );
      for (let i = 0; i < SAMPLE; i++)
        w.observe(page(keyed && i === 2 ? {} : { auth: 'none', keyLabel: null, plan: null }));
      await new Promise((resolve) => setImmediate(resolve));
      expect(looked).toEqual(keyed ? [buildExchange().keyLabel] : []);
      expect(stops).toHaveLength(1);
      expect(stops[0]!.message.includes('At http://127.0.0.1:8080/v1')).toBe(keyed);
    }
  });

  it('a look that finds nothing, or fails, leaves the line as it is', async () => {
    for (const look of [async () => null, () => Promise.reject(new Error('no'))]) {
      const stops: PetloadError[] = [];
      const w = watchTarget(TARGET, (e) => stops.push(e), look);
      w.observe(buildExchange({ status: 404, json: ERROR_JSON }));
      await new Promise((resolve) => setImmediate(resolve));
      expect(stops.map((e) => e.message)).toEqual([
        `the target does not answer as the Animal Store API: ${wrongBase([buildExchange({ status: 404, json: ERROR_JSON })], TARGET)}`,
      ]);
    }
  });

  it('says nothing of a compliant API, and stops watching once both samples are in', () => {
    const stops: PetloadError[] = [];
    const w = watchTarget(TARGET, (e) => stops.push(e));
    for (let i = 0; i < SAMPLE; i++) w.observe(buildExchange());
    // Later answers are not looked at: a run of HTML from here on is the checks' business.
    for (let i = 0; i < 2 * SAMPLE; i++) w.observe(page());
    expect(stops).toHaveLength(0);
    expect(w.error).toBeNull();
  });

  it('stops watching after 50 answers without a key, whatever comes after', () => {
    const stops: PetloadError[] = [];
    const w = watchTarget(TARGET, (e) => stops.push(e));
    const unauthorized = () => buildExchange({ status: 401, auth: 'none', json: { ...ERROR_JSON, status: 401 } });
    for (let i = 0; i < 50; i++) w.observe(unauthorized());
    for (let i = 0; i < SAMPLE; i++) w.observe(buildExchange({ status: 404, json: ERROR_JSON }));
    expect(stops).toHaveLength(0);
  });
});
