import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger.js';
import { createObserver } from '../observer.js';
import { buildExchange, countsOf, outcomeOf, TEST_PLANS, type ExchangeParts } from '../../testing/exchange-builder.js';
import { judgeEveryEndpoint } from './every-endpoint.js';
import { createRecorder, createViewer } from './view.js';

const view = createViewer(TEST_PLANS);
const ID = 'contract.every-endpoint';
const orders = { operation: 'listOrders', path: '/store/orders', method: 'GET' } as const;
const noKey = { auth: 'none', keyLabel: null, plan: null } as const;

function judge(parts: ExchangeParts): { missing: boolean; ledger: Ledger } {
  const ledger = new Ledger();
  const missing = judgeEveryEndpoint(view(buildExchange(parts)), createRecorder(ledger));
  return { missing, ledger };
}

describe('contract.every-endpoint', () => {
  it.each([404, 405])('fails a %i of GET /store/orders: the interface says it exists', (status) => {
    const { missing, ledger } = judge({ ...orders, ...noKey, status });
    expect(missing).toBe(true);
    expect(outcomeOf(ledger, ID, null)?.evidence[0]?.message).toBe(
      `GET /store/orders answered ${status}: the interface says this endpoint exists`,
    );
  });

  it("skips no auth check on a plan key's 404: none holds a valid key's answer (no pair a re-run cannot judge)", () => {
    const { ledger } = judge({ ...orders, status: 404 });
    expect(outcomeOf(ledger, ID)?.failed).toBe(1);
    expect(ledger.all().filter((o) => o.id.startsWith('auth.'))).toEqual([]);
    expect(outcomeOf(ledger, 'ratelimit.headers-on-errors')?.skipped).toBe(1);
  });

  it('skips the rules of every endpoint on that answer, naming itself', () => {
    const { ledger } = judge({ ...orders, ...noKey, status: 404 });
    for (const id of ['auth.missing-key', 'contract.documented-status', 'ratelimit.headers-on-errors'] as const) {
      expect(outcomeOf(ledger, id, null)?.skipReasons).toEqual([
        'GET /store/orders answered as a missing endpoint: its rules are not judged there (see contract.every-endpoint)',
      ]);
    }
  });

  it('passes a 200 to a plan key, a 401 to a request without one: the endpoint answers (or authenticates first)', () => {
    const cases = [
      [{ ...orders, status: 200 }, 'free'],
      [{ ...orders, ...noKey, status: 401 }, null],
    ] as const;
    for (const [parts, plan] of cases) {
      const { missing, ledger } = judge(parts);
      expect(missing).toBe(false);
      expect(countsOf(ledger, ID, plan)).toEqual({ passed: 1, failed: 0, skipped: 0 });
    }
  });

  it.each([429, 401, 403])(
    'judges nothing of a %i to a plan key: refused before routing (no false "fixed")',
    (status) => {
      const { missing, ledger } = judge({ ...orders, status });
      expect(missing).toBe(false);
      expect(outcomeOf(ledger, ID)).toBeUndefined();
    },
  );

  it('judges nothing of the other operations, a 404 of getPet among them', () => {
    expect(judge({ status: 404, operation: 'getPet', path: '/pets/9' }).ledger.all()).toEqual([]);
    expect(judge({ status: 200 }).ledger.all()).toEqual([]);
  });
});

describe('the observer on GET /store/orders', () => {
  const observe = (parts: ExchangeParts): Ledger => {
    const ledger = new Ledger();
    const o = createObserver({ ledger, plans: TEST_PLANS, clockScale: 1 });
    o.observe(buildExchange(parts));
    return ledger;
  };

  it('holds a missing endpoint to nothing but its absence: no auth, status or header failure', () => {
    const none = { 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined };
    const ledger = observe({ ...orders, ...noKey, status: 404, headers: { ...none, 'content-type': 'text/html' } });
    expect(
      ledger
        .all()
        .filter((o) => o.failed > 0)
        .map((o) => o.id),
    ).toEqual([ID]);
  });

  it('judges its answers by the rules of every endpoint where it answers: a 200 without a key fails auth', () => {
    const ledger = observe({ ...orders, ...noKey, status: 200 });
    expect(outcomeOf(ledger, 'auth.missing-key', null)?.evidence[0]?.message).toBe(
      '200 to a request without Authorization: served without a valid credential; expected 401',
    );
    expect(countsOf(ledger, ID, null).passed).toBe(1);
  });

  it('leaves its 200 payload unjudged: no list schema on it', () => {
    const ledger = observe({ ...orders, status: 200, json: { orders: 'anything' } });
    expect(ledger.all().filter((o) => o.failed > 0)).toEqual([]);
    expect(outcomeOf(ledger, 'list.schema')).toBeUndefined();
  });
});
