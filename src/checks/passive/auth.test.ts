import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger.js';
import { buildExchange, countsOf, outcomeOf, TEST_PLANS, type ExchangeParts } from '../../testing/exchange-builder.js';
import { judgeChallenge, judgeInvalidKey, judgeMissingKey } from './auth.js';
import { createRecorder, createViewer, type Recorder, type View } from './view.js';

const view = createViewer(TEST_PLANS);
function run(judge: (v: View, r: Recorder) => void, parts: ExchangeParts): Ledger {
  const ledger = new Ledger();
  judge(view(buildExchange(parts)), createRecorder(ledger));
  return ledger;
}
const noKey = { auth: 'none', keyLabel: null, plan: null } as const;
const badKey = { auth: 'invalid', keyLabel: 'unknown key', plan: null } as const;

describe('auth.missing-key', () => {
  it('passes a 401', () => {
    expect(countsOf(run(judgeMissingKey, { ...noKey, status: 401 }), 'auth.missing-key', null)).toEqual({
      passed: 1,
      failed: 0,
      skipped: 0,
    });
  });

  it('fails a 2xx as served without a credential, and any other status', () => {
    const l = run(judgeMissingKey, { ...noKey, status: 200 });
    expect(outcomeOf(l, 'auth.missing-key', null)?.evidence[0]?.message).toBe(
      '200 to a request without Authorization: served without a valid credential; expected 401',
    );
    expect(countsOf(run(judgeMissingKey, { ...noKey, status: 403 }), 'auth.missing-key', null).failed).toBe(1);
  });

  it('skips a 429 (a limiter ahead of authentication)', () => {
    expect(countsOf(run(judgeMissingKey, { ...noKey, status: 429 }), 'auth.missing-key', null).skipped).toBe(1);
  });

  it('judges nothing for valid keys or undocumented operations', () => {
    expect(run(judgeMissingKey, { status: 200 }).all()).toEqual([]);
    expect(run(judgeMissingKey, { ...noKey, operation: null, status: 404 }).all()).toEqual([]);
  });
});

describe('auth.invalid-key', () => {
  it('passes a 401', () => {
    expect(countsOf(run(judgeInvalidKey, { ...badKey, status: 401 }), 'auth.invalid-key', null).passed).toBe(1);
  });

  it('fails a 2xx and a 5xx, describing the credential by its label', () => {
    const ok = run(judgeInvalidKey, { ...badKey, status: 201, operation: 'createPet', method: 'POST' });
    expect(outcomeOf(ok, 'auth.invalid-key', null)?.evidence[0]?.message).toBe(
      '201 to a request with unknown key: served without a valid credential; expected 401',
    );
    expect(countsOf(run(judgeInvalidKey, { ...badKey, status: 500 }), 'auth.invalid-key', null).failed).toBe(1);
  });

  it('skips a 429', () => {
    expect(countsOf(run(judgeInvalidKey, { ...badKey, status: 429 }), 'auth.invalid-key', null).skipped).toBe(1);
  });

  it('skips an over-limit 5xx (Retry-After, or Remaining 0) naming contract.no-server-errors, which owns the wrong status', () => {
    for (const headers of [{ 'retry-after': '30' }, { 'x-ratelimit-remaining': '0' }]) {
      const l = run(judgeInvalidKey, { ...badKey, status: 503, headers });
      expect(countsOf(l, 'auth.invalid-key', null)).toEqual({ passed: 0, failed: 0, skipped: 1 });
      expect(outcomeOf(l, 'auth.invalid-key', null)?.skipReasons).toEqual([
        'an over-limit 5xx: rate-limited before authentication was judged (see contract.no-server-errors)',
      ]);
    }
  });
});

describe('auth.challenge', () => {
  it.each([
    'Bearer',
    'Bearer realm="animal-store"',
    'bearer error="invalid_token"',
    'Basic realm="x", Bearer realm="y"',
  ])('passes %j', (h) => {
    expect(
      countsOf(
        run(judgeChallenge, { ...noKey, status: 401, headers: { 'www-authenticate': h } }),
        'auth.challenge',
        null,
      ).passed,
    ).toBe(1);
  });

  it('passes a Bearer challenge given in a second header line', () => {
    const l = run(judgeChallenge, {
      ...noKey,
      status: 401,
      headers: { 'www-authenticate': ['Basic realm="x"', 'Bearer'] },
    });
    expect(countsOf(l, 'auth.challenge', null).passed).toBe(1);
  });

  it('fails a missing header and a challenge of another scheme', () => {
    const none = run(judgeChallenge, { ...noKey, status: 401 });
    expect(outcomeOf(none, 'auth.challenge', null)?.evidence[0]?.message).toBe('a 401 without WWW-Authenticate');
    const basic = run(judgeChallenge, { ...noKey, status: 401, headers: { 'www-authenticate': 'Basic realm="x"' } });
    expect(outcomeOf(basic, 'auth.challenge', null)?.evidence[0]?.message).toBe(
      'WWW-Authenticate offers no Bearer challenge: Basic realm="x"',
    );
    const prefix = run(judgeChallenge, { ...noKey, status: 401, headers: { 'www-authenticate': 'BearerToken' } });
    expect(countsOf(prefix, 'auth.challenge', null).failed).toBe(1);
  });

  it('judges only 401 responses', () => {
    expect(run(judgeChallenge, { status: 403 }).all()).toEqual([]);
  });
});
