/** What the probes say when they skip or fail: the reasons and descriptions several probes share. */
import type { Exchange } from '../http/exchange.js';

/** Describe a refusal status for messages. */
export const refusedAs = (ex: Exchange): string =>
  ex.status === null ? `no response (${ex.error?.kind ?? 'error'})` : `${ex.status}`;

/** A request of a counting sequence got no whole response. */
export const UNKNOWN_COUNT =
  'a request got no whole response, so what the target counted is unknown (see contract.transport)';

/** Requests of other keys, or without a valid key, counted against the key: what those checks judge. */
export const FOREIGN =
  'requests with other keys or without a valid key may have been counted against this key (see ratelimit.key-isolation, auth.no-quota-drain)';

/** An answer that did not arrive whole: what it holds is not judged. */
export const NO_WHOLE_RESPONSE = 'no whole response (see contract.transport)';

/** What keeps a probe from judging the answer to the one request it sent after a wait, or null. */
export function notJudgeable(ex: Exchange): string | null {
  if (ex.error?.kind === 'aborted') return `not sent: ${ex.error.message}`;
  if (ex.error !== null) return 'no whole response (see contract.transport)';
  return null;
}
