/**
 * The server's timeline. Every instant a target names (a Reset, a Retry-After HTTP-date) is on its own clock, which
 * may be minutes away from the local one; it is read against the Date of the answer that carries it, never against
 * the local clock. Date floors the server's time to the second: when the answer was stamped, the server's time was
 * in [Date, Date + 1 s), so an instant converted to the local run clock has two readings a second (and the answer's
 * transit) apart: the latest, which a client waits for (never early), and the earliest, which a judge of the client
 * holds it to (a client that waits for the latest reading is never failed). An answer without a usable Date is read
 * on the local clock (its offset 0): the only clock there is.
 */
import { headerValue, type Exchange } from './exchange.js';
import { parseRetryAfter } from './headers.js';
import { dateOf } from './parsed.js';

/** Date's (and Reset's) resolution: whole seconds. The tolerance of every comparison on the server's timeline. */
export const TOLERANCE_MS = 1000;

/** What the timeline reads of an exchange: its headers (Date), its completion (local wall and monotonic), its send. */
type Answer = Pick<Exchange, 'headers' | 'parsed' | 'localTime' | 'timing'>;

/** The server's time when the exchange completed, epoch ms on its clock: its Date, else the local clock. */
export function serverTimeOf(ex: Pick<Exchange, 'headers' | 'parsed' | 'localTime'>): number {
  return dateOf(ex) ?? ex.localTime;
}

/**
 * Local run-clock time minus server time, from an exchange's Date (0 without one): add it to a server instant to
 * get the latest local reading of it. Date floors, so the true offset is within a second (and the transit) below.
 */
export function serverOffset(ex: Pick<Exchange, 'headers' | 'parsed' | 'localTime'>): number {
  const d = dateOf(ex);
  return d === null ? 0 : ex.localTime - d;
}

/** A server instant (epoch ms on the server's clock) on the local run clock: the latest reading (never early). */
export function latestLocal(ex: Answer, serverMs: number): number {
  return serverMs + serverOffset(ex);
}

/**
 * A server instant on the local run clock: the earliest reading, for judging a client's wait. The answer was
 * stamped at the earliest when the request was sent, at a server time up to a second past its Date; without a Date
 * the instant is on the local clock already and has one reading.
 */
export function earliestLocal(ex: Answer, serverMs: number): number {
  if (dateOf(ex) === null) return serverMs;
  return latestLocal(ex, serverMs) - TOLERANCE_MS - Math.max(0, ex.timing.done - ex.timing.sent);
}

/**
 * The wait a refusal asks for, in ms from the answer's completion, or null when Retry-After is missing or malformed:
 * delay-seconds as they are, an HTTP-date measured from the answer's Date on the server's timeline (the longest
 * reading: a client waiting for it is never early).
 */
export function retryAfterMs(ex: Pick<Exchange, 'headers' | 'parsed' | 'localTime'>): number | null {
  const raw = headerValue(ex.headers, 'retry-after');
  if (raw === undefined) return null;
  const ra = parseRetryAfter(raw);
  if (ra.kind === 'seconds') return ra.seconds * 1000;
  if (ra.kind === 'date') return Math.max(0, ra.epochMs - serverTimeOf(ex));
  return null;
}
