/**
 * Exhausting a window across a long link (window.ts `exhaust`, sized by in-flight.ts): through the delaying relay at
 * 40 ms a round trip, against the reference server on a real clock, the bulk keeps many more than 8 requests in
 * flight, and the boundary stays exact: the quota accepted, the next request refused, nothing in flight past the
 * limit of a target that keeps its figure; a target that refuses sooner sees no more than the bulk's in-flight past
 * its limit, all of them counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { Ledger } from '../checks/ledger.js';
import type { ApiKey } from '../core/api-key.js';
import { createClock } from '../core/clock.js';
import { createHttpClient } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { createReferenceServer } from '../reference-server/index.js';
import { startDelayRelay } from '../testing/delay-relay.js';
import { testKey } from '../testing/exchange-builder.js';
import { cheapList, type ProbeContext } from './context.js';
import { LOOPBACK_IN_FLIGHT, RoundTrips, ROUND_TRIP_SAMPLES } from './in-flight.js';
import { exhaust } from './window.js';

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c.close();
});

/**
 * A probe's context on a real client through the relay: what exhaust uses (send, clock, signal, the round trip);
 * the key `served` is what the server enforces. Every exchange is kept.
 */
async function farContext(served: ApiKey, warmUp: ApiKey) {
  const clock = createClock(1);
  const server = await createReferenceServer({ keys: [served, warmUp], clock });
  closing.push(server);
  const port = Number(new URL(server.url).port);
  const relay = await startDelayRelay({ port, rttMs: 40 });
  closing.push(relay);
  const client = createHttpClient({
    baseUrl: server.url.replace(`:${port}/`, `:${relay.port}/`),
    clock,
    connections: 128,
  });
  closing.push(client);
  const trips = new RoundTrips(1);
  const sent: Exchange[] = [];
  const send = async (spec: Parameters<ProbeContext['send']>[0]) => {
    const ex = await client.send(spec);
    trips.note(ex);
    sent.push(ex);
    return ex;
  };
  const ctx: ProbeContext = {
    clock,
    ledger: new Ledger(),
    keyStates: { get: () => undefined as never, all: () => [], blockedNow: () => false },
    signal: new AbortController().signal,
    refusals: { push: () => {}, pop: () => undefined },
    send,
    sendSimultaneous: (specs) => Promise.all(specs.map(send)),
    note: () => {},
    log: () => {},
    again: () => {},
    roundTripMs: () => trips.ms(),
  };
  // The round trip is read from the first answers, as a run's first probes give them.
  for (let i = 0; i < ROUND_TRIP_SAMPLES; i++) await send(cheapList(warmUp, 'warm-up'));
  sent.length = 0;
  return { ctx, sent };
}

describe('exhaust across a long link', () => {
  it('keeps many in flight and stops exactly at the boundary of a target that keeps its figure', {
    timeout: 30_000,
  }, async () => {
    const key = testKey('free', 1, 'far1');
    const { ctx, sent } = await farContext(key, testKey('pro', 1, 'far1'));
    const run = await exhaust(ctx, key, 'probe:test', 60);
    expect(run.inFlight).toBeGreaterThan(LOOPBACK_IN_FLIGHT);
    expect(run.concurrent).toBe(true);
    expect(run.accepted).toBe(60);
    expect(run.refusal?.status).toBe(429);
    expect(run.pastRefusal).toBe(0);
    // The quota, and the one request refused: nothing more went out.
    expect(sent).toHaveLength(61);
  });

  it('on a target that refuses sooner, counts exactly what it accepted, with no more than the in-flight past it', {
    timeout: 30_000,
  }, async () => {
    const key = testKey('free', 1, 'far2');
    const stricter: ApiKey = { ...key, limits: { ...PLANS.free, perMinute: 20 } };
    const { ctx, sent } = await farContext(stricter, testKey('pro', 1, 'far2'));
    const run = await exhaust(ctx, key, 'probe:test', 60);
    expect(run.accepted).toBe(20);
    expect(run.refusal?.status).toBe(429);
    expect(run.pastRefusal).toBeLessThanOrEqual(run.inFlight - 1);
    // Bounded and accounted: what went out was accepted or refused, and what came back after the first refusal (a
    // late 200 on another connection among them) is counted in pastRefusal.
    const refused = sent.filter((e) => e.status === 429).length;
    expect(sent).toHaveLength(run.accepted + refused);
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused - 1).toBeLessThanOrEqual(run.pastRefusal);
    expect(sent.length).toBeLessThanOrEqual(20 + 1 + run.pastRefusal);
  });
});
