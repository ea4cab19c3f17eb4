import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger.js';
import {
  buildExchange,
  countsOf,
  MINUTE_RESET,
  outcomeOf,
  rateLimitHeaders,
  runFacts,
  TEST_PLANS,
  type ExchangeParts,
} from '../../testing/exchange-builder.js';
import { judgeErrorShape } from './contract.js';
import { deferralsOf, reasonOf } from '../deferrals.js';
import { createErrorBodyJudge } from './error-body.js';
import { createRecorder, createViewer, REASONS } from './view.js';

const ID = 'retry-after.error-body';
const view = createViewer(TEST_PLANS);
const refused = (extra: ExchangeParts = {}): ExchangeParts => ({
  status: 429,
  json: { code: 'rate_limited', message: 'slow down', status: 429 },
  ...extra,
  headers: { ...rateLimitHeaders(60, 0, MINUTE_RESET), 'retry-after': '30', ...extra.headers },
});
const unauthorized = (json: unknown): ExchangeParts => ({
  status: 401,
  auth: 'invalid',
  keyLabel: 'unknown key',
  plan: null,
  json,
});

/** Feeds exchanges as the observer does (error shape first, then the 429 body), then finishes. */
function run(...parts: ExchangeParts[]): Ledger {
  const ledger = new Ledger();
  const r = createRecorder(ledger);
  const judge = createErrorBodyJudge();
  for (const p of parts) {
    const v = view(buildExchange(p));
    judge.sawErrorShape(judgeErrorShape(v, r));
    judge.judge(v, r);
  }
  judge.finish(ledger);
  ledger.resolveDeferrals(runFacts());
  return ledger;
}
const message = (l: Ledger) => outcomeOf(l, ID)?.evidence[0]?.message;

describe('retry-after.error-body', () => {
  it('passes an Error with status 429', () => {
    expect(countsOf(run(refused()), ID).passed).toBe(1);
  });

  it('fails another shape and another status', () => {
    expect(message(run(refused({ json: { error: 'Too many requests' } })))).toMatch(/^not an Error body: code: /);
    expect(message(run(refused({ json: { code: 'x', message: 'y', status: 400 } })))).toBe(
      'Error body says status 400, the HTTP status is 429',
    );
  });

  it('skips a body that is not JSON, and does not judge an empty 429', () => {
    const text = run(
      refused({ headers: { 'content-type': 'text/plain' }, body: { kind: 'text', excerpt: 'Too many requests' } }),
    );
    expect(outcomeOf(text, ID)?.skipReasons).toEqual([REASONS.notJsonBody.line]);
    expect(countsOf(run(refused({ body: { kind: 'none' } })), ID)).toEqual({ passed: 0, failed: 0, skipped: 0 });
  });

  it('skips, naming contract.error-shape, a 429 body with the defect that check found on other error bodies, before or after', () => {
    const noStatus = { code: 'rate_limited', message: 'slow down' };
    const before = run(unauthorized({ code: 'invalid_key', message: 'no' }), refused({ json: noStatus }));
    const after = run(
      refused({ json: noStatus }),
      refused({ json: noStatus }),
      unauthorized({ code: 'invalid_key', message: 'no' }),
    );
    for (const l of [before, after]) {
      expect(countsOf(l, ID).failed).toBe(0);
      expect(outcomeOf(l, ID)?.skipReasons).toEqual([reasonOf(deferralsOf(ID, 'same-defect')[0]!)]);
      expect(countsOf(l, 'contract.error-shape', null).failed).toBe(1);
    }
    expect(countsOf(after, ID).skipped).toBe(2);
    // A wrong status in every error body is one defect too, whatever the numbers.
    const wrongStatus = run(
      unauthorized({ code: 'invalid_key', message: 'no', status: 400 }),
      refused({ json: { code: 'x', message: 'y', status: 400 } }),
    );
    expect(countsOf(wrongStatus, ID)).toEqual({ passed: 0, failed: 0, skipped: 1 });
  });

  it("still fails a 429 body whose defect differs from the other error bodies'", () => {
    const l = run(
      unauthorized({ code: 'invalid_key', message: 'no' }),
      refused({ json: { error: 'Too many requests' } }),
      refused({ json: { error: 'Too many requests' } }),
    );
    expect(countsOf(l, ID)).toEqual({ passed: 0, failed: 2, skipped: 0 });
    expect(message(l)).toMatch(/^not an Error body: /);
    // And fails when the other error bodies are sound.
    expect(
      countsOf(
        run(
          unauthorized({ code: 'invalid_key', message: 'no', status: 401 }),
          refused({ json: { code: 'x', message: 'y' } }),
        ),
        ID,
      ).failed,
    ).toBe(1);
  });
});
