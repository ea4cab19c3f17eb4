/**
 * Authentication checks on every exchange: requests without a key or with a bad credential get 401,
 * and every 401 carries a Bearer challenge.
 */
import { headerValues } from '../../http/exchange.js';
import { isOverLimit5xx } from './contract.js';
import { see } from '../skip-reason.js';
import { is2xx, type Recorder, type View } from './view.js';

/**
 * The shared rule of auth.missing-key and auth.invalid-key: 401, nothing else.
 * Judged only on documented operations (an unknown path may be 404 before authentication, and the
 * interface says nothing of it). Chosen: a 429 is skipped, since a limiter in front of authentication
 * (per client address) is a legitimate design the interface does not exclude. An over-limit 5xx (Retry-After or
 * Remaining 0) is the same refusal in the wrong status: contract.no-server-errors owns that defect.
 */
const OVER_LIMIT_5XX = see(
  'an over-limit 5xx: rate-limited before authentication was judged',
  'contract.no-server-errors',
);

function judgeRefused(id: 'auth.missing-key' | 'auth.invalid-key', what: string, v: View, r: Recorder): void {
  const { ex, status } = v;
  if (status === null || ex.operation === null) return;
  if (status === 401) return r.pass(id, ex);
  if (status === 429) return r.skip(id, ex, 'answered 429: rate-limited before authentication was judged');
  // A 5xx with Retry-After or Remaining 0 is an over-limit answer: a refusal by the rate limit, in the wrong status.
  if (isOverLimit5xx(ex)) return r.skip(id, ex, OVER_LIMIT_5XX);
  const served = is2xx(status) ? ': served without a valid credential' : '';
  r.fail(id, ex, `${status} to a request ${what}${served}; expected 401`);
}

/** auth.missing-key: no Authorization header → 401, never 2xx. */
export function judgeMissingKey(v: View, r: Recorder): void {
  if (v.ex.auth === 'none') judgeRefused('auth.missing-key', 'without Authorization', v, r);
}

/** auth.invalid-key: unknown key, empty Bearer, Basic credential → 401, never 2xx or 5xx. */
export function judgeInvalidKey(v: View, r: Recorder): void {
  if (v.ex.auth === 'invalid')
    judgeRefused('auth.invalid-key', `with ${v.ex.keyLabel ?? 'an invalid credential'}`, v, r);
}

/**
 * A challenge whose auth-scheme is Bearer, anywhere in the (possibly repeated, possibly comma-listed)
 * header. Schemes are case-insensitive (RFC 9110 §11.1). A "Bearer" inside a quoted parameter of another
 * challenge would also match: a false pass this check accepts rather than parse the full grammar.
 */
const BEARER_CHALLENGE = /(?:^|,)[ \t]*bearer(?:[ \t]|,|$)/i;

/** auth.challenge: every 401 has `WWW-Authenticate: Bearer …` (RFC 9110 §15.5.2, RFC 6750 §3). */
export function judgeChallenge(v: View, r: Recorder): void {
  const { ex, status } = v;
  if (status !== 401) return;
  const values = headerValues(ex.headers, 'www-authenticate');
  if (values.length === 0) return r.fail('auth.challenge', ex, 'a 401 without WWW-Authenticate');
  if (values.some((h) => BEARER_CHALLENGE.test(h))) return r.pass('auth.challenge', ex);
  r.fail('auth.challenge', ex, `WWW-Authenticate offers no Bearer challenge: ${values.join(', ').slice(0, 120)}`);
}
