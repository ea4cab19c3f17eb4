/**
 * The server's timeline. Every instant a target names (a Reset, a Retry-After HTTP-date) is on its own clock, which
 * may be minutes away from the local one; it is read against the Date of the answer that carries it, never against
 * the local clock. Date floors the server's time to the second: when the answer was stamped, the server's time was
 * in [Date, Date + 1 s), so an instant converted to the local run clock has two readings a second (and the answer's
 * transit) apart: the latest, which a client waits for (never early), and the earliest, which a judge of the client
 * holds it to (a client that waits for the latest reading is never failed). An answer without a usable Date is read
 * with the offset the run's last answer with one showed (learnt on the run's client: parsed.ts), else on the local
 * clock (offset 0): the only clock there is.
 */
import { headerValue, type Exchange } from './exchange.js';
import { parseRetryAfter } from './headers.js';
import { dateOf } from './parsed.js';

/** Date's (and Reset's) resolution: whole seconds. The tolerance of every comparison on the server's timeline. */
export const TOLERANCE_MS = 1000;

/** What the timeline reads of an exchange: its headers (Date), its memo, its completion (local wall time). */
type Stamped = Pick<Exchange, 'headers' | 'parsed' | 'localTime'>;
/** And its send and completion on the monotonic run clock (the answer's transit). */
type Answer = Stamped & Pick<Exchange, 'timing'>;

/**
 * Local run-clock time minus server time at the answer's completion: from its own Date, else the offset the run's
 * last answer with a Date showed; null when neither is known.
 */
function offsetOf(ex: Stamped): number | null {
  const d = dateOf(ex);
  return d !== null ? ex.localTime - d : (ex.parsed?.dates?.offsetMs ?? null);
}

/** Where the server's time of an answer comes from: its Date, an earlier answer's Date, or the local clock. */
export function serverTimeSource(ex: Stamped): 'Date' | 'Date of an earlier answer' | 'local clock' {
  if (dateOf(ex) !== null) return 'Date';
  return ex.parsed?.dates?.offsetMs != null ? 'Date of an earlier answer' : 'local clock';
}

/** The server's time when the exchange completed, epoch ms on its clock: its Date, else as learnt, else local. */
export function serverTimeOf(ex: Stamped): number {
  return dateOf(ex) ?? ex.localTime - (offsetOf(ex) ?? 0);
}

/**
 * Local run-clock time minus server time (0 when nothing is known): add it to a server instant to get the latest
 * local reading of it. Date floors, so the true offset is within a second (and the transit) below.
 */
export function serverOffset(ex: Stamped): number {
  return offsetOf(ex) ?? 0;
}

/** A server instant (epoch ms on the server's clock) on the local run clock: the latest reading (never early). */
export function latestLocal(ex: Answer, serverMs: number): number {
  return serverMs + serverOffset(ex);
}

/**
 * A server instant on the local run clock: the earliest reading, for judging a client's wait. The answer was
 * stamped at the earliest when the request was sent, at a server time up to a second past its Date; with no Date
 * known the instant is on the local clock already and has one reading.
 */
export function earliestLocal(ex: Answer, serverMs: number): number {
  if (offsetOf(ex) === null) return serverMs;
  return latestLocal(ex, serverMs) - TOLERANCE_MS - Math.max(0, ex.timing.done - ex.timing.sent);
}

/**
 * The wait a refusal asks for, in ms from the answer's completion, or null when Retry-After is missing or malformed:
 * delay-seconds as they are, an HTTP-date measured from the answer's Date on the server's timeline (the longest
 * reading: a client waiting for it is never early).
 */
export function retryAfterMs(ex: Stamped): number | null {
  const raw = headerValue(ex.headers, 'retry-after');
  if (raw === undefined) return null;
  const ra = parseRetryAfter(raw);
  if (ra.kind === 'seconds') return ra.seconds * 1000;
  if (ra.kind === 'date') return Math.max(0, ra.epochMs - serverTimeOf(ex));
  return null;
}

/**
 * What a client that waits a Retry-After out exactly adds to it before it sends again (retry-after.honest: "the
 * given time plus 250 ms"): past the end of the wait, and well inside the second a Date or a Reset is rounded to.
 */
export const RETRY_AFTER_MARGIN_MS = 250;
