import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, Pets } from '../../api/schemas.js';
import { Ledger } from '../ledger.js';
import { buildExchange, countsOf, outcomeOf, TEST_PLANS, type ExchangeParts } from '../../testing/exchange-builder.js';
import {
  judgeInvalidStatus,
  judgeLimitOutOfRange,
  judgeLimitRespected,
  judgeListSchema,
  judgeStatusFilter,
} from './list.js';
import { scopeOf } from './request.js';
import { createRecorder, createViewer, REASONS } from './view.js';

const view = createViewer(TEST_PLANS);

/** Runs every list check on one exchange, as the observer does. */
function run(parts: ExchangeParts): Ledger {
  const ledger = new Ledger();
  const r = createRecorder(ledger);
  const v = view(buildExchange(parts));
  const q = scopeOf(v.ex).list!;
  const list = judgeListSchema(v, r);
  judgeLimitRespected(v, q, list, r);
  judgeLimitOutOfRange(v, q, list, r);
  judgeInvalidStatus(v, q, list, r);
  judgeStatusFilter(v, q, list, r);
  return ledger;
}

const pets = (n: number, status?: string) =>
  Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    name: `p${i}`,
    categoryId: 1,
    ...(status === undefined ? {} : { status }),
  }));
const message = (l: Ledger, id: Parameters<typeof outcomeOf>[1]) => outcomeOf(l, id)?.evidence[0]?.message;

describe('list.schema', () => {
  it('passes exactly the arrays the Pets schema accepts (its fast path never disagrees with the schema)', () => {
    const int64 = fc.oneof(
      fc.integer(),
      fc.constantFrom(0, -0, 1.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Number.NaN),
      fc.constantFrom(INT64_MIN, INT64_MAX, INT64_MAX + 1n, INT64_MIN - 1n, 2n ** 53n + 1n),
      fc.constant('1'),
    );
    const field = <T>(arb: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 4, arbitrary: arb }, fc.constantFrom(undefined, null, true, 'x', 3));
    const pet = fc.record(
      {
        id: field(int64),
        name: field(fc.string({ maxLength: 4 })),
        categoryId: field(int64),
        status: field(fc.constantFrom('available', 'pending', 'sold', 'Sold', '')),
        extra: fc.anything({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    );
    const element = fc.oneof({ weight: 8, arbitrary: pet }, fc.constantFrom(null, 1, 'pet', [], [{ id: 1 }]));
    fc.assert(
      fc.property(fc.array(element, { maxLength: 4 }), (value) => {
        const passed = countsOf(run({ json: value }), 'list.schema').passed === 1;
        expect(passed).toBe(Pets.safeParse(value).success);
      }),
      { numRuns: 500 },
    );
  });

  it('passes a bare array of Pet, with or without status, with bigint ids beyond 2^53', () => {
    const l = run({
      json: [
        { id: 2n ** 62n, name: 'Rex', categoryId: 9_007_199_254_740_993n, status: 'sold' },
        { id: 2, name: 'Tom', categoryId: 1 },
      ],
    });
    expect(countsOf(l, 'list.schema')).toEqual({ passed: 1, failed: 0, skipped: 0 });
  });

  it('fails an envelope, naming its keys', () => {
    const l = run({ json: { data: pets(2) } });
    expect(message(l, 'list.schema')).toBe('expected a bare JSON array of Pet, found an object with keys "data"');
  });

  it('fails a categoryId given as a string, locating it', () => {
    const l = run({ json: [{ id: 1, name: 'Rex', categoryId: '1' }] });
    expect(message(l, 'list.schema')).toMatch(/^not an array of Pet: \[0\]\.categoryId: /);
  });

  it('fails an id that was rounded (a number that is not a safe integer)', () => {
    const l = run({ json: [{ id: 2 ** 60, name: 'Rex', categoryId: 1 }] });
    expect(message(l, 'list.schema')).toMatch(/\[0\]\.id: .*rounded/);
  });

  it('fails a 200 without a body; skips a broken body naming contract.transport', () => {
    expect(message(run({ body: { kind: 'none' } }), 'list.schema')).toMatch(/without a body/);
    const cut = run({ body: { kind: 'unparseable', error: 'eof', excerpt: '[' } });
    expect(outcomeOf(cut, 'list.schema')?.skipReasons).toEqual([REASONS.unparseableBody.line]);
  });

  it('judges only 200 answers to listPets', () => {
    expect(countsOf(run({ status: 401, json: { data: 1 } }), 'list.schema')).toEqual({
      passed: 0,
      failed: 0,
      skipped: 0,
    });
  });
});

describe('list.limit-respected', () => {
  it.each([
    ['/pets?limit=1', 1],
    ['/pets?limit=50', 50],
    ['/pets?limit=100', 100],
    ['/pets', 20],
  ])('passes %s with %i animals', (path, n) => {
    expect(countsOf(run({ path, json: pets(n) }), 'list.limit-respected')).toEqual({
      passed: 1,
      failed: 0,
      skipped: 0,
    });
  });

  it('fails too many animals for a limit and for the default', () => {
    expect(message(run({ path: '/pets?limit=2', json: pets(3) }), 'list.limit-respected')).toBe(
      '3 animals returned for limit=2',
    );
    expect(message(run({ path: '/pets', json: pets(21) }), 'list.limit-respected')).toBe(
      '21 animals returned for no limit (the default page size is 20)',
    );
  });

  it('counts an array even when list.schema fails it, and skips a non-array naming list.schema', () => {
    expect(
      countsOf(run({ path: '/pets?limit=1', json: [{ id: 'x' }, { id: 'y' }] }), 'list.limit-respected').failed,
    ).toBe(1);
    const l = run({ path: '/pets?limit=1', json: { data: [] } });
    expect(outcomeOf(l, 'list.limit-respected')?.skipReasons).toEqual([
      'the 200 body is not a JSON array (see list.schema)',
    ]);
  });

  it('leaves an out-of-range limit to list.limit-out-of-range', () => {
    expect(countsOf(run({ path: '/pets?limit=101', json: pets(101) }), 'list.limit-respected')).toEqual({
      passed: 0,
      failed: 0,
      skipped: 0,
    });
  });
});

describe('list.limit-out-of-range', () => {
  it('passes a 400 and records it as rejected', () => {
    const l = run({ path: '/pets?limit=0', status: 400, json: { code: 'x', message: 'y', status: 400 } });
    expect(countsOf(l, 'list.limit-out-of-range').passed).toBe(1);
    expect(outcomeOf(l, 'list.limit-out-of-range')?.info).toEqual({ 'limit=0': 'rejected (400)' });
  });

  it('passes a clamped 200 and records it as clamped', () => {
    const l = run({ path: '/pets?limit=101', json: pets(100) });
    expect(outcomeOf(l, 'list.limit-out-of-range')?.info).toEqual({ 'limit=101': 'clamped (200)' });
    expect(countsOf(l, 'list.limit-out-of-range').passed).toBe(1);
  });

  it('fails more than 100 animals, a 5xx and another 4xx', () => {
    expect(message(run({ path: '/pets?limit=abc', json: pets(150) }), 'list.limit-out-of-range')).toBe(
      'limit=abc: 200 with 150 animals, more than 100',
    );
    expect(message(run({ path: '/pets?limit=-1', status: 500 }), 'list.limit-out-of-range')).toBe(
      'limit=-1 answered 500; expected 400 Error or a 200',
    );
    expect(countsOf(run({ path: '/pets?limit=1.5', status: 422 }), 'list.limit-out-of-range').failed).toBe(1);
  });

  it('skips 401 and 429, and a 200 that is not an array', () => {
    expect(countsOf(run({ path: '/pets?limit=0', status: 429 }), 'list.limit-out-of-range').skipped).toBe(1);
    expect(countsOf(run({ path: '/pets?limit=0', status: 401 }), 'list.limit-out-of-range').skipped).toBe(1);
    // An over-limit 5xx is a refusal by the rate limit in the wrong status: contract.no-server-errors' failure.
    expect(
      outcomeOf(
        run({ path: '/pets?limit=0', status: 503, headers: { 'retry-after': '30' } }),
        'list.limit-out-of-range',
      )?.skipReasons,
    ).toEqual([
      'an over-limit 5xx: refused by the rate limit before the query was judged (see contract.no-server-errors)',
    ]);
    expect(outcomeOf(run({ path: '/pets?limit=0', json: {} }), 'list.limit-out-of-range')?.skipReasons).toEqual([
      'the 200 body is not a JSON array (see list.schema)',
    ]);
  });
});

describe('list.invalid-status', () => {
  it('passes a 400 (rejected) and a 200 of valid animals (accepted)', () => {
    const rejected = run({ path: '/pets?status=foo', status: 400, json: { code: 'x', message: 'y', status: 400 } });
    expect(outcomeOf(rejected, 'list.invalid-status')?.info).toEqual({ 'status=foo': 'rejected (400)' });
    const accepted = run({ path: '/pets?status=AVAILABLE', json: pets(3, 'available') });
    expect(outcomeOf(accepted, 'list.invalid-status')?.info).toEqual({
      'status=AVAILABLE': 'accepted (200, valid statuses only)',
    });
    expect(countsOf(accepted, 'list.invalid-status').passed).toBe(1);
  });

  it('fails a 5xx', () => {
    expect(message(run({ path: '/pets?status=foo', status: 503 }), 'list.invalid-status')).toBe(
      'status=foo answered 503; expected 400 Error or a 200',
    );
  });

  it('skips animals with an invalid status, which list.schema fails once', () => {
    const l = run({ path: '/pets?status=foo', json: pets(2, 'foo') });
    expect(countsOf(l, 'list.schema').failed).toBe(1);
    expect(outcomeOf(l, 'list.invalid-status')?.skipReasons).toEqual([
      'the 200 body is not an array of valid Pet (see list.schema)',
    ]);
  });
});

describe('list.status-filter', () => {
  it('passes when every animal has the status asked for', () => {
    expect(countsOf(run({ path: '/pets?status=sold', json: pets(4, 'sold') }), 'list.status-filter')).toEqual({
      passed: 1,
      failed: 0,
      skipped: 0,
    });
    expect(countsOf(run({ path: '/pets?status=sold', json: [] }), 'list.status-filter').passed).toBe(1);
  });

  it('fails other statuses and animals without status, naming the first', () => {
    const l = run({
      path: '/pets?status=pending',
      json: [
        ...pets(1, 'pending'),
        { id: 7, name: 'x', categoryId: 1, status: 'sold' },
        { id: 8, name: 'y', categoryId: 1 },
      ],
    });
    expect(message(l, 'list.status-filter')).toBe(
      '2 of 3 animals for status=pending have another status (first: id 7 with sold)',
    );
  });

  it('skips a body list.schema failed', () => {
    const l = run({ path: '/pets?status=sold', json: [{ id: 1, name: 'x', categoryId: '1', status: 'sold' }] });
    expect(outcomeOf(l, 'list.status-filter')?.skipReasons).toEqual([
      'the 200 body is not an array of valid Pet (see list.schema)',
    ]);
  });

  it('does not judge an invalid status', () => {
    expect(countsOf(run({ path: '/pets?status=SOLD', json: pets(1, 'available') }), 'list.status-filter')).toEqual({
      passed: 0,
      failed: 0,
      skipped: 0,
    });
  });
});
