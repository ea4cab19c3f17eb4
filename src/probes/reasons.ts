/** What the probes say when they skip or fail: the reasons and descriptions several probes share. */
import { see, type SkipReason } from '../checks/skip-reason.js';
import type { Exchange } from '../http/exchange.js';

/** Describe a refusal status for messages. */
export const refusedAs = (ex: Exchange): string =>
  ex.status === null ? `no response (${ex.error?.kind ?? 'error'})` : `${ex.status}`;

/** A request of a counting sequence got no whole response. */
export const UNKNOWN_COUNT = see(
  'a request got no whole response, so what the target counted is unknown',
  'contract.transport',
);

/** Requests of other keys, or without a valid key, counted against the key: what those checks judge. */
export const FOREIGN = see(
  'requests with other keys or without a valid key may have been counted against this key',
  'ratelimit.key-isolation',
  'auth.no-quota-drain',
);

/** An answer that did not arrive whole: what it holds is not judged. */
export const NO_WHOLE_RESPONSE = see('no whole response', 'contract.transport');

/** What keeps a probe from judging the answer to the one request it sent after a wait, or null. */
export function notJudgeable(ex: Exchange): SkipReason | null {
  if (ex.error?.kind === 'aborted') return `not sent: ${ex.error.message}`;
  if (ex.error !== null) return NO_WHOLE_RESPONSE;
  return null;
}
