/**
 * contract.every-endpoint: the interface names `GET /store/orders` ("exists") without showing its path details,
 * parameters or payloads. Where it answers 404 or 405, the endpoint is missing: an advisory finding (a staging
 * without it is a warning, not a failure), and what the interface says of every endpoint (auth and its 401, the
 * rate-limit headers, the Error body, the documented statuses) is not judged on that answer: those checks skip it,
 * naming this one. A refusal before routing cannot tell whether the endpoint is there, and is not judged: a 429, and
 * a 401 or 403 to a plan's key (counted as passes, the enforce probe's request over the limit, or a key the target
 * does not take, would make a re-run against a target still without the endpoint read "fixed"). Any other answer
 * passes: the endpoint is there (a 401 to a request without a valid key cannot tell either, but it is the only answer
 * such a request gets). All are judged by the checks of every endpoint as any answer is.
 */
import type { CheckId } from '../catalogue.js';
import { see } from '../skip-reason.js';
import type { Field, RateLimitRead } from './ratelimit.js';
import type { Recorder, View } from './view.js';

const ID = 'contract.every-endpoint';

const MISSING = see('GET /store/orders answered as a missing endpoint: its rules are not judged there', ID);

/** The checks of every endpoint a missing endpoint's answer would otherwise be held to. */
const NOT_JUDGED: readonly CheckId[] = [
  'contract.documented-status',
  'contract.json-content-type',
  'contract.error-shape',
  'ratelimit.headers-present',
  'ratelimit.headers-on-errors',
];
/**
 * Those of a request without a valid key only (its 401 was due): a plan's key is never held to them, and a skip of
 * them on its plan would be a pair no run can judge (a re-run would list it "still not judged" for ever).
 */
const NOT_JUDGED_WITHOUT_KEY: readonly CheckId[] = ['auth.missing-key', 'auth.invalid-key', 'auth.challenge'];

const UNREAD: Field = { ok: false, reason: MISSING };

/** The rate-limit headers of a missing endpoint's answer, left unread (the stream judges none of them). */
export const MISSING_ENDPOINT_HEADERS: RateLimitRead = {
  limit: UNREAD,
  remaining: UNREAD,
  reset: UNREAD,
  resetIsTimestamp: false,
  usable: false,
  reason: MISSING,
};

/** A refusal that tells nothing of the route: a 429, or a 401 or 403 to a request sent with a plan's key. */
const refusedBeforeRouting = (status: number, withPlanKey: boolean): boolean =>
  status === 429 || (withPlanKey && (status === 401 || status === 403));

/**
 * Judges contract.every-endpoint on an answer of `GET /store/orders`; true when the answer is a missing endpoint's
 * (404 or 405), whose other checks were skipped here and must not be judged by the caller.
 */
export function judgeEveryEndpoint(v: View, r: Recorder): boolean {
  const { ex, status } = v;
  if (ex.operation !== 'listOrders' || status === null || refusedBeforeRouting(status, ex.plan !== null)) return false;
  if (status !== 404 && status !== 405) {
    r.pass(ID, ex);
    return false;
  }
  r.fail(ID, ex, `GET /store/orders answered ${status}: the interface says this endpoint exists`);
  for (const id of NOT_JUDGED) r.skip(id, ex, MISSING);
  if (ex.auth !== 'valid') for (const id of NOT_JUDGED_WITHOUT_KEY) r.skip(id, ex, MISSING);
  return true;
}
