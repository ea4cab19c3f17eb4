/**
 * The passive checks on what observer.test.ts's property leaves out: every operation and method (creates with
 * arbitrary request and response bodies, the deprecated get), any header name, repeated values, Deprecation
 * and Sunset, every transport failure and body kind, 1xx to 5xx. Whatever comes, nothing throws and what the
 * ledger keeps stays bounded: 5 pieces of evidence per check, short header values and body excerpts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OperationId } from '../api/operations.js';
import type { HeaderMap, ParsedBody, TransportErrorKind } from '../http/exchange.js';
import { buildExchange, FIXED_NOW, FREE_LABEL, httpDate, jsonBody, TEST_PLANS } from '../testing/exchange-builder.js';
import { CHECK_IDS } from './catalogue.js';
import { evidenceOf, Ledger } from './ledger.js';
import { createObserver } from './observer.js';

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '60', '0', '-1', '1e3', '9'.repeat(40), '@1733356800', 'Thu, 05 Dec 2030 00:00:00 GMT'),
);
const long = fc.nat({ max: 5000 }).map((n) => 'v'.repeat(n));
const headerName = fc.oneof(
  fc.constantFrom(
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'retry-after',
    'date',
    'content-type',
    'www-authenticate',
    'deprecation',
    'sunset',
    'content-length',
  ),
  fc.string({ minLength: 1, maxLength: 12 }),
);
const headers: fc.Arbitrary<HeaderMap> = fc.dictionary(
  headerName,
  fc.oneof(
    text,
    long,
    fc.integer({ min: FIXED_NOW - 1e9, max: FIXED_NOW + 1e9 }).map(httpDate),
    fc.array(text, { minLength: 2, maxLength: 3 }),
  ),
  {
    maxKeys: 8,
  },
);
const petLike = fc.record(
  {
    id: fc.oneof(fc.bigInt(), fc.integer(), fc.double(), text),
    name: fc.oneof(text, long),
    categoryId: fc.oneof(fc.bigInt(), fc.integer(), text),
    status: text,
  },
  { requiredKeys: [] },
);
const body: fc.Arbitrary<ParsedBody> = fc.oneof(
  fc.constant<ParsedBody>({ kind: 'none' }),
  fc
    .oneof(
      fc.jsonValue(),
      petLike,
      fc.array(petLike, { maxLength: 4 }),
      fc.record(
        { code: text, message: fc.oneof(text, long), status: fc.oneof(fc.integer(), text) },
        { requiredKeys: [] },
      ),
    )
    .map(jsonBody),
  fc.oneof(text, long).map((t): ParsedBody => ({ kind: 'text', excerpt: t })),
  fc.oneof(text, long).map((t): ParsedBody => ({ kind: 'unparseable', error: 'bad', excerpt: t })),
  fc.nat().map((n): ParsedBody => ({ kind: 'too-large', bytesRead: n, excerpt: '[' })),
);
const operation = fc.constantFrom<[OperationId | null, string, string]>(
  ['listPets', 'GET', '/pets?limit=5'],
  ['createPet', 'POST', '/pets'],
  ['getPet', 'GET', '/pets/1'],
  ['getPet', 'GET', '/pets/not-a-number'],
  [null, 'GET', '/store/orders'],
  [null, 'DELETE', '/pets/1'],
);
const failure = fc.option(
  fc.constantFrom<TransportErrorKind>('timeout', 'reset', 'refused', 'truncated', 'protocol', 'aborted', 'other'),
  { nil: null },
);
const exchange = fc.record({
  op: operation,
  status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.constantFrom(200, 201, 400, 401, 404, 429)),
  headers,
  body,
  requestBody: fc.option(fc.oneof(text, long), { nil: null }),
  auth: fc.constantFrom('valid', 'none', 'invalid'),
  failure,
  tag: fc.constantFrom('probe:list', 'probe:ban', 'constant-rate', 'burst'),
  at: fc.integer({ min: 0, max: 600_000 }),
});

describe('the observer, on anything', () => {
  it('never throws, and keeps what it records bounded', () => {
    fc.assert(
      fc.property(fc.array(exchange, { maxLength: 40 }), (list) => {
        const ledger = new Ledger();
        const o = createObserver({ ledger, plans: TEST_PLANS, clockScale: 60 });
        for (const x of list.sort((a, b) => a.at - b.at)) {
          const [operationId, method, path] = x.op;
          const ex = buildExchange({
            operation: operationId,
            method,
            path,
            status: x.failure !== null && x.failure !== 'truncated' ? null : x.status,
            error: x.failure === null ? null : { kind: x.failure, message: x.failure },
            headers: x.headers,
            body: x.body,
            requestBody: x.requestBody,
            auth: x.auth as 'valid',
            plan: x.auth === 'valid' ? 'free' : null,
            keyLabel: x.auth === 'valid' ? FREE_LABEL : x.auth === 'invalid' ? 'unknown key' : null,
            tag: x.tag,
            localTime: FIXED_NOW + x.at,
            timing: { intended: 1000 + x.at, sent: 1000 + x.at, headers: 1005 + x.at, done: 1010 + x.at },
          });
          o.observe(ex);
          const ev = evidenceOf(ex, 'm');
          for (const v of Object.values(ev.headers ?? {})) expect(v.length).toBeLessThanOrEqual(201);
          expect((ev.body ?? '').length).toBeLessThanOrEqual(300);
        }
        o.finish();
        for (const out of ledger.all()) {
          expect(CHECK_IDS).toContain(out.id);
          expect(out.evidence.length).toBeLessThanOrEqual(5);
          expect(out.skipReasons.length).toBeLessThanOrEqual(5);
          for (const e of out.evidence) expect((e.body ?? '').length).toBeLessThanOrEqual(300);
        }
      }),
      { numRuns: 400 },
    );
  });
});
