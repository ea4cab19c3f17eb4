/**
 * How many requests a probe keeps in flight, from the round trip to the target: on loopback 8 at a time exhaust a
 * 1000/min window in about half a second; across a link of 100 ms the same 8 would take 12 s, so what is in flight
 * grows with the round trip until the window is spent at about the same pace. The round trip is measured from the
 * first answers (`RoundTrips`: the shortest time from a request's send to its answer's head seen so far).
 *
 * The count stays exact (window.ts): the parallel bulk of an exhaust never goes beyond the window's quota less a
 * tail, which is sent strictly one request after another up to the first refusal. Requests in flight when a
 * refusal comes back (a target that refuses before its quota) are bounded by `inFlight - 1` and counted
 * (Exhaustion.pastRefusal).
 */
import type { Exchange } from '../http/exchange.js';

/** Real ms a request takes on loopback, one after another, answer included (the planner's unit of time). */
export const SERVICE_MS = 1;
/** Requests in flight on loopback, where the target's work, not the link, is what a request waits for. */
export const LOOPBACK_IN_FLIGHT = 8;
/** The pace of a loopback exhaust: 8 in flight, 4 ms each (a 1000/min window in about half a second). */
const LOOPBACK_PER_REQUEST_MS = 4;
/**
 * The most requests in flight on one key at once, whatever the round trip (the engine's pool has as many
 * connections): past it, a longer link takes longer to exhaust a window (1000 requests at 200 ms: about 1.6 s).
 */
export const MAX_IN_FLIGHT = 128;
/** The strictly sequential tail of an exhaust on loopback, and its least across a long link. */
export const LOOPBACK_TAIL = 8;
export const MIN_TAIL = 2;
/** The time the sequential tail may take before it is shortened (to MIN_TAIL at 10 ms a round trip and more). */
const TAIL_BUDGET_MS = 20;
/** Requests without a key in flight at once (quota-drain's unknown keys), whatever the round trip. */
export const MAX_KEYLESS_IN_FLIGHT = 8;

/**
 * From this round trip on (real ms), the exact counts of different plans run side by side: what they wait for is
 * the link, not the target's or petload's work, so that one does not slow another past its window (on loopback, a
 * burst's thousand connections or an exhaust's bulk take the CPU the others need, on a scaled clock most of all).
 */
export const SIDE_BY_SIDE_RTT_MS = 10;
export const countsSideBySide = (roundTripMs: number): boolean => roundTripMs >= SIDE_BY_SIDE_RTT_MS;

export interface Sizing {
  /** Requests in flight in the parallel bulk of an exhaust. */
  readonly inFlight: number;
  /** Requests sent one after another before the boundary (the bulk stops this many short of the quota). */
  readonly tail: number;
  /** Requests without a key in flight at once. */
  readonly keyless: number;
}

/**
 * What to keep in flight for a round trip of `roundTripMs` real ms (a request's, answer included): as many as keep
 * the loopback pace (8 per 4 ms), at least 8, at most MAX_INFLIGHT; a tail of 8 on loopback, down to 2 where each of
 * its requests costs a long round trip.
 */
export function sizeFor(roundTripMs: number): Sizing {
  const rtt = Math.max(0, roundTripMs);
  const inFlight = Math.min(
    MAX_IN_FLIGHT,
    Math.max(LOOPBACK_IN_FLIGHT, Math.ceil((LOOPBACK_IN_FLIGHT * rtt) / LOOPBACK_PER_REQUEST_MS)),
  );
  const tail = Math.max(MIN_TAIL, Math.min(LOOPBACK_TAIL, Math.floor(TAIL_BUDGET_MS / Math.max(rtt, 1e-3))));
  const keyless = Math.min(MAX_KEYLESS_IN_FLIGHT, Math.max(1, Math.ceil(rtt / LOOPBACK_PER_REQUEST_MS)));
  return { inFlight, tail, keyless };
}

/**
 * Real ms exhausting a window of `requests` takes at `requestMs` a request (the link's round trip and the target's
 * answer): the bulk, `inFlight` at a time, then the tail and the refusal one after another.
 */
export function exhaustMs(requests: number, requestMs: number): number {
  const { inFlight, tail } = sizeFor(requestMs);
  const bulk = Math.max(0, requests - tail - 1);
  return (Math.ceil(bulk / inFlight) + Math.min(requests, tail + 1)) * Math.max(requestMs, SERVICE_MS);
}

/** Real ms `n` requests without a key take, `keyless` at a time. */
export const keylessMs = (n: number, requestMs: number): number =>
  Math.ceil(n / sizeFor(requestMs).keyless) * Math.max(requestMs, SERVICE_MS);

/**
 * Answers a round trip is read from: the first on a process just started, or on a busy machine, may be slow (the
 * shortest of eight is a loopback round trip's, not a busy moment's).
 */
export const ROUND_TRIP_SAMPLES = 8;

/** The round trip as measured: the shortest from a request's send to its answer's head, in real ms. */
export class RoundTrips {
  private best = Number.POSITIVE_INFINITY;
  private samples = 0;
  constructor(private readonly scale: number) {}

  note(ex: Exchange): void {
    if (ex.error !== null || ex.timing.headers === null) return;
    const ms = (ex.timing.headers - ex.timing.sent) / this.scale;
    if (ms < 0) return;
    this.samples++;
    this.best = Math.min(this.best, ms);
  }

  /** Null until ROUND_TRIP_SAMPLES answers came back. */
  ms(): number | null {
    return this.samples >= ROUND_TRIP_SAMPLES ? this.best : null;
  }
}
