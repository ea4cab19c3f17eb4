import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger.js';
import { buildExchange, countsOf, outcomeOf, TEST_PLANS, type ExchangeParts } from '../../testing/exchange-builder.js';
import {
  judgeDocumentedStatus,
  judgeErrorShape,
  judgeJsonContentType,
  judgeNoServerErrors,
  judgeTransport,
} from './contract.js';
import { scopeOf } from './request.js';
import { createRecorder, createViewer, REASONS, type Recorder, type View } from './view.js';

const view = createViewer(TEST_PLANS);
function run(judge: (v: View, r: Recorder) => void, parts: ExchangeParts = {}): Ledger {
  const ledger = new Ledger();
  judge(view(buildExchange(parts)), createRecorder(ledger));
  return ledger;
}
const firstMessage = (l: Ledger, id: Parameters<typeof outcomeOf>[1], plan: Parameters<typeof outcomeOf>[2] = 'free') =>
  outcomeOf(l, id, plan)?.evidence[0]?.message;

describe('contract.transport', () => {
  it('passes a whole response', () => {
    expect(countsOf(run(judgeTransport), 'contract.transport')).toEqual({ passed: 1, failed: 0, skipped: 0 });
  });

  it('fails a reset, naming the kind', () => {
    const l = run(judgeTransport, {
      status: null,
      headers: {},
      body: { kind: 'none' },
      error: { kind: 'reset', message: 'ECONNRESET' },
    });
    expect(countsOf(l, 'contract.transport').failed).toBe(1);
    expect(firstMessage(l, 'contract.transport')).toMatch(/no whole HTTP response \(reset\).*ECONNRESET/);
  });

  it('fails a body declared JSON that does not parse', () => {
    const l = run(judgeTransport, {
      body: { kind: 'unparseable', error: 'Unexpected end of JSON input', excerpt: '[{"id":1' },
    });
    expect(firstMessage(l, 'contract.transport')).toMatch(/does not parse: Unexpected end/);
  });

  it('passes a body over the read cap: big is not broken', () => {
    const l = run(judgeTransport, { body: { kind: 'too-large', bytesRead: 2_000_000, excerpt: '[' } });
    expect(countsOf(l, 'contract.transport')).toEqual({ passed: 1, failed: 0, skipped: 0 });
  });

  it('skips an exchange petload aborted itself', () => {
    const l = run(judgeTransport, { status: null, error: { kind: 'aborted', message: 'aborted by the caller' } });
    expect(countsOf(l, 'contract.transport')).toEqual({ passed: 0, failed: 0, skipped: 1 });
  });
});

describe('contract.no-server-errors', () => {
  it('passes a 4xx', () => {
    expect(countsOf(run(judgeNoServerErrors, { status: 404 }), 'contract.no-server-errors').passed).toBe(1);
  });

  it('fails a 5xx, and names an over-limit 503', () => {
    const l = run(judgeNoServerErrors, { status: 503, headers: { 'retry-after': '10' } });
    expect(firstMessage(l, 'contract.no-server-errors')).toBe(
      'server error 503 with rate-limit signs (Retry-After or Remaining 0): an over-limit answer must be 429',
    );
    expect(firstMessage(run(judgeNoServerErrors, { status: 500 }), 'contract.no-server-errors')).toBe(
      'server error 500',
    );
  });

  it('does not judge an exchange without a response', () => {
    expect(run(judgeNoServerErrors, { status: null }).all()).toEqual([]);
  });
});

describe('contract.documented-status', () => {
  const judge = (v: View, r: Recorder) => judgeDocumentedStatus(v, scopeOf(v.ex), r);

  it.each([
    ['listPets', 'GET', '/pets', 200],
    ['listPets', 'GET', '/pets', 429],
    ['createPet', 'POST', '/pets', 201],
    ['createPet', 'POST', '/pets', 400],
    ['getPet', 'GET', '/pets/5', 404],
    ['getPet', 'GET', '/pets/5', 401],
  ] as const)('passes %s answered %i', (operation, method, path, status) => {
    expect(countsOf(run(judge, { operation, method, path, status }), 'contract.documented-status').passed).toBe(1);
  });

  it.each(['/pets?limit=0', '/pets?limit=abc', '/pets?status=foo', '/pets?limit=5&limit=6', '/pets?cursor=x'])(
    'passes 400 to %s, a request outside the constraints',
    (path) => {
      expect(countsOf(run(judge, { path, status: 400 }), 'contract.documented-status').passed).toBe(1);
    },
  );

  it('passes 400 to a malformed petId', () => {
    expect(
      countsOf(run(judge, { operation: 'getPet', path: '/pets/abc', status: 400 }), 'contract.documented-status')
        .passed,
    ).toBe(1);
  });

  it('fails 400 to a request within the constraints, listing what is documented', () => {
    const l = run(judge, { path: '/pets?limit=5', status: 400 });
    expect(firstMessage(l, 'contract.documented-status')).toBe(
      '400 is not documented for listPets (documented: 200, 401, 429)',
    );
  });

  it('fails 200 to createPet and 403 anywhere', () => {
    expect(
      countsOf(run(judge, { operation: 'createPet', method: 'POST', status: 200 }), 'contract.documented-status')
        .failed,
    ).toBe(1);
    const l = run(judge, { path: '/pets?limit=0', status: 403 });
    expect(firstMessage(l, 'contract.documented-status')).toMatch(
      /403 is not documented .*400 or 404 for a request outside/,
    );
  });

  it('skips a 5xx (contract.no-server-errors judges it) and a deliberate knock, whatever its tag', () => {
    expect(outcomeOf(run(judge, { status: 502 }), 'contract.documented-status')?.skipReasons).toEqual([
      'a 5xx is judged (see contract.no-server-errors)',
    ]);
    expect(
      countsOf(run(judge, { status: 403, tag: 'probe:ban', intent: 'knock' }), 'contract.documented-status').skipped,
    ).toBe(1);
    expect(countsOf(run(judge, { status: 403, tag: 'ban' }), 'contract.documented-status').failed).toBe(1);
  });

  it('does not judge requests to no documented operation', () => {
    expect(run(judge, { operation: null, path: '/store/orders', status: 418 }).all()).toEqual([]);
  });
});

describe('contract.json-content-type', () => {
  it('passes application/json with parameters, in any case', () => {
    expect(
      countsOf(
        run(judgeJsonContentType, { headers: { 'content-type': 'Application/JSON ; charset=UTF-8' } }),
        'contract.json-content-type',
      ).passed,
    ).toBe(1);
  });

  it('fails another type, a missing or a repeated header', () => {
    const html = run(judgeJsonContentType, {
      status: 429,
      headers: { 'content-type': 'text/html' },
      body: { kind: 'text', excerpt: 'Too many' },
    });
    expect(firstMessage(html, 'contract.json-content-type')).toBe(
      'a body with Content-Type text/html; expected application/json',
    );
    expect(
      firstMessage(run(judgeJsonContentType, { headers: { 'content-type': undefined } }), 'contract.json-content-type'),
    ).toMatch(/no Content-Type/);
    const twice = run(judgeJsonContentType, { headers: { 'content-type': ['application/json', 'application/json'] } });
    expect(firstMessage(twice, 'contract.json-content-type')).toMatch(/Content-Type repeated/);
    expect(
      countsOf(
        run(judgeJsonContentType, { headers: { 'content-type': 'application/problem+json' } }),
        'contract.json-content-type',
      ).failed,
    ).toBe(1);
  });

  it('does not judge a response without a body', () => {
    expect(
      run(judgeJsonContentType, { status: 204, headers: { 'content-type': undefined }, body: { kind: 'none' } }).all(),
    ).toEqual([]);
  });
});

describe('contract.error-shape', () => {
  const error = (status: number) => ({ code: 'bad_request', message: 'limit must be 1..100', status });

  it('passes an Error whose status is the HTTP status, extra fields allowed', () => {
    const l = run(judgeErrorShape, { status: 400, json: { ...error(400), details: [] } });
    expect(countsOf(l, 'contract.error-shape')).toEqual({ passed: 1, failed: 0, skipped: 0 });
  });

  it('fails an Error without status, saying what is missing', () => {
    const l = run(judgeErrorShape, { status: 401, json: { code: 'unauthorized', message: 'no key' } });
    expect(firstMessage(l, 'contract.error-shape')).toMatch(
      /^not an Error body: status: expected a number, found nothing/,
    );
  });

  it('fails an empty code and a status that differs from the HTTP status', () => {
    expect(
      firstMessage(run(judgeErrorShape, { status: 404, json: { ...error(404), code: '' } }), 'contract.error-shape'),
    ).toMatch(/code: /);
    expect(firstMessage(run(judgeErrorShape, { status: 404, json: error(400) }), 'contract.error-shape')).toBe(
      'Error body says status 400, the HTTP status is 404',
    );
  });

  it('skips 429 bodies, bodies that are not JSON and broken bodies, naming the owning check', () => {
    expect(outcomeOf(run(judgeErrorShape, { status: 429, json: {} }), 'contract.error-shape')?.skipReasons).toEqual([
      'a 429 body is judged (see retry-after.error-body)',
    ]);
    const text = run(judgeErrorShape, {
      status: 401,
      headers: { 'content-type': 'text/plain' },
      body: { kind: 'text', excerpt: 'Unauthorized' },
    });
    expect(outcomeOf(text, 'contract.error-shape')?.skipReasons).toEqual([REASONS.notJsonBody.line]);
    const cut = run(judgeErrorShape, { status: 400, body: { kind: 'unparseable', error: 'eof', excerpt: '{' } });
    expect(outcomeOf(cut, 'contract.error-shape')?.skipReasons).toEqual([REASONS.unparseableBody.line]);
  });

  it('does not judge 2xx or empty error responses', () => {
    expect(run(judgeErrorShape, { status: 200, json: {} }).all()).toEqual([]);
    expect(run(judgeErrorShape, { status: 401, body: { kind: 'none' } }).all()).toEqual([]);
  });
});
