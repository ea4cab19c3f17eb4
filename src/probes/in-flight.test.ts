import { describe, expect, it } from 'vitest';
import { buildExchange } from '../testing/exchange-builder.js';
import {
  countsSideBySide,
  exhaustMs,
  keylessMs,
  LOOPBACK_IN_FLIGHT,
  LOOPBACK_TAIL,
  MAX_IN_FLIGHT,
  MAX_KEYLESS_IN_FLIGHT,
  MIN_TAIL,
  ROUND_TRIP_SAMPLES,
  RoundTrips,
  sizeFor,
} from './in-flight.js';

describe('sizeFor: what is in flight for a measured round trip', () => {
  it('keeps the loopback sizes on loopback: 8 in flight, a tail of 8, requests without a key one at a time', () => {
    for (const rtt of [0, 0.3, 1, 2]) {
      expect(sizeFor(rtt)).toEqual({ inFlight: LOOPBACK_IN_FLIGHT, tail: LOOPBACK_TAIL, keyless: 1 });
    }
  });

  it('grows with the round trip to keep the loopback pace (8 per 4 ms), up to its bound', () => {
    expect(sizeFor(20).inFlight).toBe(40);
    expect(sizeFor(50).inFlight).toBe(100);
    expect(sizeFor(100).inFlight).toBe(MAX_IN_FLIGHT);
    expect(sizeFor(200).inFlight).toBe(MAX_IN_FLIGHT);
    expect(sizeFor(100).keyless).toBe(MAX_KEYLESS_IN_FLIGHT);
    // Never fewer than on loopback, never more than the bound, whatever it is given.
    for (const rtt of [-5, 0, 7, 33, 1e6]) {
      expect(sizeFor(rtt).inFlight).toBeGreaterThanOrEqual(LOOPBACK_IN_FLIGHT);
      expect(sizeFor(rtt).inFlight).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    }
  });

  it('shortens the sequential tail where each of its requests costs a long round trip, never below 2', () => {
    expect(sizeFor(4).tail).toBe(5);
    expect(sizeFor(10).tail).toBe(MIN_TAIL);
    expect(sizeFor(100).tail).toBe(MIN_TAIL);
  });

  it('runs the exact counts of different plans side by side from 10 ms a round trip', () => {
    expect(countsSideBySide(0)).toBe(false);
    expect(countsSideBySide(9.9)).toBe(false);
    expect(countsSideBySide(10)).toBe(true);
    expect(countsSideBySide(100)).toBe(true);
  });
});

describe('exhaustMs: what exhausting a window costs', () => {
  it('on loopback, as before: the quota 8 at a time, then the tail and the refusal one by one', () => {
    // 1001 requests: 992 in the bulk (124 rounds), then 9 one after another, 1 ms each.
    expect(exhaustMs(1001, 1)).toBe(124 + 9);
    expect(exhaustMs(61, 1)).toBe(Math.ceil(52 / 8) + 9);
  });

  it('across a long link, about what it costs on loopback: a round trip per 128 requests, and three more', () => {
    // 1001 requests at 101 ms: 998 in 8 rounds, then the 2 of the tail and the refusal.
    expect(exhaustMs(1001, 101)).toBe((8 + 3) * 101);
    // Against 8 in flight and a tail of 8 as before: 134 round trips, 13.5 s.
    expect(exhaustMs(1001, 101)).toBeLessThan(((1001 / 8 + 9) * 101) / 10);
    expect(exhaustMs(1001, 201)).toBe((8 + 3) * 201);
  });

  it('requests without a key: one at a time on loopback, 8 at a time far away', () => {
    expect(keylessMs(50, 1)).toBe(50);
    expect(keylessMs(50, 101)).toBe(7 * 101);
  });
});

describe('RoundTrips', () => {
  it('keeps the shortest send-to-head of the answers, in real ms, from the eighth, and none for an error', () => {
    const trips = new RoundTrips(10);
    expect(trips.ms()).toBeNull();
    trips.note(buildExchange({ timing: { sent: 0, headers: 1000 } }));
    trips.note(buildExchange({ timing: { sent: 500, headers: 1300 } }));
    trips.note(
      buildExchange({ status: null, timing: { sent: 0, headers: null }, error: { kind: 'timeout', message: 'x' } }),
    );
    // Not from a few answers (a first answer may be slow for reasons of its own).
    expect(trips.ms()).toBeNull();
    for (let i = 0; i < ROUND_TRIP_SAMPLES - 2; i++)
      trips.note(buildExchange({ timing: { sent: 2000, headers: 5000 } }));
    // 800 ms of a 10x clock: 80 real ms.
    expect(trips.ms()).toBe(80);
  });
});
