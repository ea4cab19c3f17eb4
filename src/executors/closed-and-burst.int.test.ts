import { afterEach, describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { call, makeKey } from '../reference-server/test-client.js';
import type { Exchange } from '../http/exchange.js';
import { parseLoad, startLoadTarget, type LoadTarget } from '../testing/load-context.js';
import { runLoad } from './run-load.js';

const business = makeKey('business-key-0101', 'business', PLANS.business);
const free = makeKey('free-key-0102', 'free', PLANS.free);

const targets: LoadTarget[] = [];
afterEach(async () => {
  for (const t of targets.splice(0)) await t.stop();
});

/** The most exchanges in flight at once, from their send and end times. */
function mostInFlight(exchanges: readonly Exchange[]): number {
  const events = exchanges.flatMap((ex) => [[ex.timing.sent, 1] as const, [ex.timing.done, -1] as const]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of events) most = Math.max(most, (now += d));
  return most;
}

describe('concurrency', () => {
  it('keeps at most N requests in flight and stops at maxRequests', async () => {
    const t = await startLoadTarget([business], 60);
    targets.push(t);
    const load = parseLoad({ maxRequests: 300, phases: [{ executor: 'concurrency', workers: 4, duration: '5m' }] });
    const outcome = await runLoad(t.ctx, load);
    const counts = outcome.phases[0]!.plans[0]!;
    expect(counts.sent).toBe(300);
    expect(t.exchanges).toHaveLength(300);
    expect(outcome.stopped).toBe('max-requests');
    expect(mostInFlight(t.exchanges)).toBeLessThanOrEqual(4);
    expect(mostInFlight(t.exchanges)).toBeGreaterThan(1);
    expect(t.exchanges.every((ex) => ex.tag === 'concurrency')).toBe(true);
  });

  it('counts a request the client cancelled unsent (queued behind a 429 on its key) as held back, not sent', async () => {
    // The key's day is spent before the phase, which does not know it (a day, so that no window can roll over
    // during the test): its four workers start at once on one connection, so three requests queue in the
    // client while the first is answered 429, and they never leave.
    const small = makeKey('enterprise-small-day-0103', 'enterprise', { perMinute: 1000, perDay: 5 });
    const t = await startLoadTarget([small], 60, {}, { connections: 1 });
    targets.push(t);
    for (let i = 0; i < 5; i++) await call(t.server.url, '/pets', { auth: small });
    const load = parseLoad({
      mix: { listPets: 1 },
      phases: [{ executor: 'concurrency', workers: 4, duration: '10s' }],
    });
    const counts = (await runLoad(t.ctx, load)).phases[0]!.plans[0]!;
    expect(t.exchanges[0]?.status).toBe(429);
    expect(counts.heldBack).toBeGreaterThanOrEqual(3);
    // Only what reached the target counts as sent.
    expect(counts.sent).toBe(t.exchanges.length);
    expect(counts.accepted + counts.refused + counts.answered + counts.failed).toBe(counts.sent);
  });

  it('pauses a key whose quota is spent until its Reset: the workers wait, nothing is refused', async () => {
    const t = await startLoadTarget([free], 60);
    targets.push(t);
    const load = parseLoad({
      mix: { listPets: 1 },
      phases: [{ executor: 'concurrency', workers: 3, duration: '30s' }],
    });
    const outcome = await runLoad(t.ctx, load);
    const counts = outcome.phases[0]!.plans[0]!;
    expect(counts).toMatchObject({ accepted: 60, refused: 0 });
    expect(counts.heldBack).toBeGreaterThan(0);
    expect(mostInFlight(t.exchanges)).toBeLessThanOrEqual(3);
    const noBan = t.ledger.all().find((o) => o.id === 'backoff.no-ban' && o.plan === 'free');
    expect(noBan).toMatchObject({ passed: 1, failed: 0 });
  });
});

describe('burst', () => {
  it('sends limit+10 at once over as many connections, then holds back a burst on the refused key', async () => {
    const t = await startLoadTarget([free], 60);
    targets.push(t);
    const load = parseLoad({
      mix: { listPets: 1 },
      phases: [
        { executor: 'burst', requests: 'limit+10' },
        { executor: 'burst', requests: 5 },
      ],
    });
    const outcome = await runLoad(t.ctx, load);
    const [first, second] = outcome.phases.map((p) => p.plans[0]!);
    expect(first).toMatchObject({ planned: 70, sent: 70, accepted: 60, refused: 10, retries: 0 });
    expect(mostInFlight(t.exchanges)).toBeGreaterThan(60);
    expect(second).toMatchObject({ planned: 5, sent: 0, heldBack: 5 });
    expect(t.exchanges).toHaveLength(70);
  });
});
