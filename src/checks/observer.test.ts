import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, parseKeys } from '../config/keys-file.js';
import type { Exchange, HeaderMap, ParsedBody } from '../http/exchange.js';
import {
  buildExchange,
  FIXED_NOW,
  FREE_LABEL,
  httpDate,
  jsonBody,
  MINUTE_RESET,
  rateLimitHeaders,
  TEST_PLANS,
  type ExchangeParts,
} from '../testing/exchange-builder.js';
import { CHECK_IDS } from './catalogue.js';
import { Ledger, statusOf } from './ledger.js';
import { createObserver, PASSIVE_CHECK_IDS } from './observer.js';

const SCALE = 60;
const observerOn = (ledger: Ledger) => createObserver({ ledger, plans: TEST_PLANS, clockScale: SCALE });
const failedIds = (ledger: Ledger) =>
  [
    ...new Set(
      ledger
        .all()
        .filter((o) => o.failed > 0)
        .map((o) => o.id),
    ),
  ].sort();

const error = (status: number) => jsonBody({ code: `e${status}`, message: `status ${status}`, status });
const pets = (n: number, status = 'available') =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `p${i}`, categoryId: 3, status }));

/**
 * A compliant run against one free key, as a correct server would answer it: a fresh minute window used up
 * with a mix of operations (errors not counted), a 429 with an honest Retry-After, the client waiting it out,
 * requests without a key and with an unknown key, then the next window.
 */
function compliantRun(countErrors = false): Exchange[] {
  const out: Exchange[] = [];
  let mono = 1000;
  let remaining = 60;
  let windowReset = MINUTE_RESET;
  const send = (rest: ExchangeParts, after = 180) => {
    const now = FIXED_NOW + (mono - 1000);
    const reset = now / 1000 < MINUTE_RESET ? MINUTE_RESET : MINUTE_RESET + 60;
    if (reset !== windowReset) {
      windowReset = reset;
      remaining = 60;
    }
    const status = rest.status ?? 200;
    const valid = rest.auth === undefined || rest.auth === 'valid';
    if (valid && ((status >= 200 && status < 300) || (countErrors && status !== 429))) remaining--;
    out.push(
      buildExchange({
        ...rest,
        status,
        localTime: now,
        timing: { intended: mono, sent: mono, headers: mono + 10, done: mono + 20 },
        headers: {
          date: httpDate(Math.floor(now / 1000) * 1000),
          ...rateLimitHeaders(60, Math.max(remaining, 0), reset),
          ...rest.headers,
        },
      }),
    );
    mono += 20 + after;
  };
  send({ path: '/pets?limit=5', json: pets(5) });
  send({ path: '/pets?status=sold', json: pets(3, 'sold') });
  send({ path: '/pets?limit=0', status: 400, body: error(400) });
  send({ path: '/pets?status=AVAILABLE', status: 400, body: error(400) });
  send({ operation: 'getPet', path: '/pets/999', status: 404, body: error(404) });
  send({ operation: 'listOrders', path: '/store/orders', json: [{ id: 1 }] });
  send({
    operation: 'createPet',
    method: 'POST',
    path: '/pets',
    requestBody: '{"name":"Rex","categoryId":3}',
    status: 201,
    json: { id: 77, name: 'Rex', categoryId: 3 },
  });
  while (remaining > 0) send({ json: pets(20) });
  const nowS = (FIXED_NOW + (mono - 1000)) / 1000;
  const wait = Math.ceil(MINUTE_RESET - nowS);
  send({ status: 429, body: error(429), headers: { 'retry-after': String(wait) } }, 0);
  const afterWait = wait * 1000 + 500;
  send({
    auth: 'none',
    keyLabel: null,
    plan: null,
    status: 401,
    body: error(401),
    headers: { 'www-authenticate': 'Bearer realm="store"' },
  });
  send(
    {
      auth: 'invalid',
      keyLabel: 'unknown key',
      plan: null,
      status: 401,
      body: error(401),
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    },
    afterWait,
  );
  send({ json: pets(20) });
  send({ json: pets(20) });
  return out;
}

function judge(exchanges: readonly Exchange[]): Ledger {
  const ledger = new Ledger();
  const o = observerOn(ledger);
  for (const ex of exchanges) o.observe(ex);
  o.finish();
  return ledger;
}

/** Replace a header on the exchanges matching `when`; `undefined` removes it. */
function withHeader(
  exs: Exchange[],
  when: (ex: Exchange) => boolean,
  name: string,
  value: (ex: Exchange, v: string | undefined) => string | undefined,
): Exchange[] {
  return exs.map((ex) => {
    if (!when(ex)) return ex;
    const headers: HeaderMap = { ...ex.headers };
    const v = value(ex, typeof headers[name] === 'string' ? headers[name] : undefined);
    if (v === undefined) delete headers[name];
    else headers[name] = v;
    return { ...ex, headers };
  });
}
const withBody = (exs: Exchange[], when: (ex: Exchange) => boolean, body: (ex: Exchange) => ParsedBody) =>
  exs.map((ex) => (when(ex) ? { ...ex, body: body(ex) } : ex));
const is429 = (ex: Exchange) => ex.status === 429;
const isError = (ex: Exchange) => ex.status === 400 || ex.status === 401 || ex.status === 404;
const isList200 = (ex: Exchange) => ex.status === 200 && ex.operation === 'listPets';

describe('the observer on a compliant run', () => {
  const ledger = judge(compliantRun());

  it('fails nothing', () => {
    expect(failedIds(ledger)).toEqual([]);
  });

  it('fails nothing when the server also counts errors', () => {
    expect(failedIds(judge(compliantRun(true)))).toEqual([]);
  });

  it('judges every passive check it can on such a run', () => {
    const passed = new Set(
      ledger
        .all()
        .filter((o) => o.passed > 0)
        .map((o) => o.id),
    );
    const notPassed = PASSIVE_CHECK_IDS.filter((id) => !passed.has(id));
    // The IETF fields are optional: a compliant run that sends none leaves their checks not exercised (their own
    // tests are src/checks/passive/ratelimit-fields.test.ts).
    expect(notPassed).toEqual(['ratelimit-fields.syntax', 'ratelimit-fields.consistent']);
    for (const id of notPassed)
      expect(ledger.all().find((o) => o.id === id)?.skipReasons[0]).toMatch(
        /^not exercised: no response carried the IETF/,
      );
    expect(ledger.all().find((o) => o.id === 'list.limit-out-of-range')?.info).toEqual({ 'limit=0': 'rejected (400)' });
  });

  it('counts one judgement per response', () => {
    const transport = ledger
      .all()
      .filter((o) => o.id === 'contract.transport')
      .reduce((n, o) => n + o.passed, 0);
    expect(transport).toBe(compliantRun().length);
  });
});

describe('one defect, one failure: each fault of the reference server fails its checks and no others', () => {
  const base = compliantRun();
  it.each<[string, () => Exchange[], string[]]>([
    [
      'reset-in-ms',
      () =>
        withHeader(
          base,
          () => true,
          'x-ratelimit-reset',
          (_e, v) => String(Number(v) * 1000),
        ),
      ['ratelimit.reset-is-timestamp'],
    ],
    [
      'reset-as-delta',
      () =>
        withHeader(
          base,
          () => true,
          'x-ratelimit-reset',
          (e, v) => String(Math.max(0, Number(v) - Math.floor(e.localTime / 1000))),
        ),
      ['ratelimit.reset-is-timestamp'],
    ],
    ['retry-after-missing', () => withHeader(base, is429, 'retry-after', () => undefined), ['retry-after.present']],
    [
      'retry-after-ms',
      () => withHeader(base, is429, 'retry-after', (_e, v) => String(Number(v) * 1000)),
      ['retry-after.plausible'],
    ],
    [
      'remaining-off-by-one',
      () =>
        withHeader(
          base,
          (e) => e.auth === 'valid',
          'x-ratelimit-remaining',
          (_e, v) => String(Number(v) + 1),
        ),
      ['ratelimit.remaining-decrements'],
    ],
    [
      'no-headers-on-errors',
      () =>
        ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].reduce(
          (exs, h) => withHeader(exs, isError, h, () => undefined),
          base,
        ),
      ['ratelimit.headers-on-errors'],
    ],
    [
      'no-headers-on-429',
      () =>
        ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].reduce(
          (exs, h) => withHeader(exs, is429, h, () => undefined),
          base,
        ),
      ['ratelimit.headers-present'],
    ],
    [
      'wrong-plan-limit (pro key)',
      () =>
        withHeader(
          base.map((e) => (e.auth === 'valid' ? { ...e, plan: 'pro' as const } : e)),
          (e) => e.auth === 'valid',
          'x-ratelimit-limit',
          () => '1000',
        ),
      ['ratelimit.limit-matches-plan'],
    ],
    [
      'over-limit-503',
      () => base.map((e) => (is429(e) ? { ...e, status: 503, body: error(503) } : e)),
      ['contract.no-server-errors'],
    ],
    [
      'schema-drift',
      () =>
        withBody(base, isList200, (e) =>
          jsonBody(
            (e.body as { value: { categoryId: number }[] }).value.map((p) => ({
              ...p,
              categoryId: String(p.categoryId),
            })),
          ),
        ),
      ['list.schema'],
    ],
    [
      'list-envelope',
      () => withBody(base, isList200, (e) => jsonBody({ data: (e.body as { value: unknown }).value })),
      ['list.schema'],
    ],
    [
      'ignore-limit',
      () =>
        withBody(
          base,
          (e) => isList200(e) && e.path === '/pets?limit=5',
          () => jsonBody(pets(150)),
        ),
      ['list.limit-respected'],
    ],
    [
      'ignore-status-filter',
      () =>
        withBody(
          base,
          (e) => isList200(e) && e.path === '/pets?status=sold',
          () => jsonBody(pets(3)),
        ),
      ['list.status-filter'],
    ],
    [
      'error-shape',
      () =>
        withBody(
          base,
          (e) => e.status !== null && e.status >= 400,
          (e) => jsonBody({ code: 'e', message: 'm', status: undefined, seen: e.status }),
        ),
      // The 429 bodies have the defect of every other error body: one defect, contract.error-shape's.
      ['contract.error-shape'],
    ],
    [
      'auth-bypass',
      () => base.map((e) => (e.auth === 'invalid' ? { ...e, status: 200, body: jsonBody(pets(2)) } : e)),
      ['auth.invalid-key'],
    ],
    [
      'flaky (truncated JSON)',
      () =>
        withBody(
          base,
          (e) => e.seq % 7 === 0,
          (e) => ({
            kind: 'unparseable',
            error: 'Unexpected end of JSON input',
            excerpt: e.body.kind === 'json' ? e.body.excerpt.slice(0, 5) : '{',
          }),
        ),
      ['contract.transport'],
    ],
    [
      'flaky (connection reset)',
      () =>
        base.map((e) =>
          e.seq % 5 === 0
            ? {
                ...e,
                status: null,
                headers: {},
                body: { kind: 'none' as const },
                error: { kind: 'reset' as const, message: 'ECONNRESET' },
              }
            : e,
        ),
      ['contract.transport'],
    ],
  ])('%s', (_fault, exchanges, expected) => {
    expect(failedIds(judge(exchanges()))).toEqual([...expected].sort());
  });
});

describe('observer.finish', () => {
  it('skips, with a reason, each of its checks that nothing recorded', () => {
    const ledger = judge([buildExchange()]);
    const retry = ledger.all().find((o) => o.id === 'retry-after.present');
    expect(retry).toMatchObject({
      plan: null,
      passed: 0,
      failed: 0,
      skipped: 1,
      skipReasons: ['not exercised: no 429 response'],
    });
    expect(statusOf(ledger.all().find((o) => o.id === 'contract.transport')!)).toBe('pass');
  });

  it('leaves alone a check a probe recorded', () => {
    const ledger = new Ledger();
    ledger.pass('retry-after.present', 'free');
    const o = observerOn(ledger);
    o.finish();
    expect(ledger.all().filter((x) => x.id === 'retry-after.present')).toHaveLength(1);
  });

  it('owns only catalogue ids', () => {
    for (const id of PASSIVE_CHECK_IDS) expect(CHECK_IDS).toContain(id);
  });
});

describe('the observer never throws', () => {
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('60', '-1', '1e3', '0', '9'.repeat(30), 'Thu, 01 Jan 1970 00:00:00 GMT', '@1', 'Bearer'),
  );
  const headerValue = fc.oneof(text, fc.array(text, { maxLength: 3 }));
  const headers = fc.dictionary(
    fc.constantFrom(
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'retry-after',
      'date',
      'content-type',
      'www-authenticate',
    ),
    headerValue,
  );
  const json = fc.jsonValue().map((v) => v as unknown);
  const body: fc.Arbitrary<ParsedBody> = fc.oneof(
    fc.constant<ParsedBody>({ kind: 'none' }),
    fc
      .oneof(
        json,
        fc.array(
          fc.record({
            id: fc.oneof(fc.bigInt(), fc.integer(), fc.double()),
            name: text,
            categoryId: json,
            status: text,
          }),
        ),
      )
      .map(jsonBody),
    text.map((t): ParsedBody => ({ kind: 'text', excerpt: t })),
    text.map((t): ParsedBody => ({ kind: 'unparseable', error: 'bad', excerpt: t })),
    fc.constant<ParsedBody>({ kind: 'too-large', bytesRead: 2 ** 21, excerpt: '[' }),
  );
  const exchange = fc.record({
    status: fc.oneof(
      fc.constantFrom(200, 201, 400, 401, 404, 429, 500, 503),
      fc.integer({ min: 100, max: 599 }),
      fc.constant(null),
    ),
    headers,
    body,
    path: fc.oneof(
      fc.constantFrom('/pets', '/pets?limit=5', '/pets?status=sold', '/pets?limit=%zz&status=', '/pets/1'),
      text.map((t) => `/pets?${t}`),
    ),
    auth: fc.constantFrom('valid', 'none', 'invalid'),
    overlapped: fc.boolean(),
    sent: fc.integer({ min: 0, max: 100_000 }),
    tag: fc.constantFrom('test', 'ban'),
  });

  it('on arbitrary header values, bodies and sequences', () => {
    fc.assert(
      fc.property(fc.array(exchange, { maxLength: 30 }), (list) => {
        const ledger = new Ledger();
        const o = observerOn(ledger);
        for (const x of list) {
          o.observe(
            buildExchange({
              ...x,
              headers: x.headers,
              operation: x.path.startsWith('/pets/') ? 'getPet' : 'listPets',
              plan: x.auth === 'valid' ? 'free' : null,
              keyLabel: x.auth === 'valid' ? FREE_LABEL : x.auth === 'invalid' ? 'unknown key' : null,
              timing: { sent: x.sent, done: x.sent + 50 },
              error: x.status === null ? { kind: 'reset', message: 'reset' } : null,
            }),
          );
        }
        o.finish();
        for (const out of ledger.all()) expect(out.evidence.length).toBeLessThanOrEqual(5);
      }),
      { numRuns: 300 },
    );
  });
});

describe('secrets', () => {
  it('evidence, reasons and info never contain a key secret, even when the target echoes it', () => {
    const keys = parseKeys({ keys: [{ key: 'sk_live_0123456789abcdefWXYZ', plan: 'free' }] }, 'test');
    const secret = keys[0]!.secret;
    const ledger = new Ledger(createRedactor(keys));
    const o = observerOn(ledger);
    const echo = `invalid key ${secret}`;
    const label = keys[0]!.label;
    o.observe(
      buildExchange({
        keyLabel: label,
        status: 401,
        body: jsonBody({ code: 'unauthorized', message: echo }),
        headers: { 'www-authenticate': `Basic ${secret}` },
      }),
    );
    o.observe(
      buildExchange({
        keyLabel: label,
        status: 429,
        headers: { 'retry-after': secret, 'x-ratelimit-limit': secret },
        body: { kind: 'text', excerpt: echo },
      }),
    );
    o.observe(buildExchange({ keyLabel: label, path: '/pets?limit=0', json: { data: echo } }));
    o.finish();
    const all = JSON.stringify(ledger.all());
    expect(all).toContain(`[key ${label}]`);
    expect(all).not.toContain(secret);
    expect(ledger.all().some((x) => x.failed > 0)).toBe(true);
  });
});

describe('cost', () => {
  it('keeps per-key state only: a long run on few keys leaves the ledger bounded', () => {
    const ledger = new Ledger();
    const o = observerOn(ledger);
    for (let i = 0; i < 5000; i++) {
      o.observe(
        buildExchange({
          path: `/pets?limit=${1000 + i}`,
          status: 400,
          body: error(400),
          timing: { sent: i * 10, done: i * 10 + 5 },
        }),
      );
    }
    const info = ledger.all().find((x) => x.id === 'list.limit-out-of-range')?.info ?? {};
    expect(Object.keys(info).length).toBeLessThanOrEqual(16);
    for (const out of ledger.all()) expect(out.evidence.length).toBeLessThanOrEqual(5);
  });
});
