import { afterEach, describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { makeKey } from '../server/test-client.js';
import { parseLoad, startLoadTarget, type LoadTarget } from '../testing/load-context.js';
import { runLoad } from './run-load.js';

const business = makeKey('business-key-secret-0201', 'business', PLANS.business);

const targets: LoadTarget[] = [];
afterEach(async () => {
  for (const t of targets.splice(0)) await t.stop();
});

describe('saturate', () => {
  it('measures maximum throughput through autocannon for the run-clock duration and records it as load.capacity', async () => {
    const t = await startLoadTarget([business], 10);
    targets.push(t);
    // 3 s of run clock at scale 10: 0.3 s of real time.
    const outcome = await runLoad(t.ctx, parseLoad({ phases: [{ executor: 'saturate', connections: 4, duration: '3s' }] }));
    const [result] = outcome.phases[0]!.saturate!;
    expect(result).toMatchObject({ plan: 'business', key: business.label, connections: 4 });
    expect(result!.durationS).toBeGreaterThan(0.2);
    expect(result!.durationS).toBeLessThan(2);
    expect(result!.requests).toBeGreaterThan(0);
    expect(result!.requestsPerSecond).toBeCloseTo(result!.requests / result!.durationS, 6);
    expect(Object.values(result!.statusCounts).reduce((a, b) => a + b, 0)).toBe(result!.requests);
    expect(result!.non2xx).toBe(result!.requests - (result!.statusCounts['200'] ?? 0) - (result!.statusCounts['201'] ?? 0));
    expect(result!.latencyMs.p99).toBeGreaterThanOrEqual(result!.latencyMs.p50);
    const capacity = t.ledger.all().find((o) => o.id === 'load.capacity' && o.plan === 'business');
    expect(capacity?.info['phase 1 (saturate)']).toEqual(result);
    expect(JSON.stringify([outcome, t.ledger.all(), t.logs])).not.toContain(business.secret);
    // Its traffic bypasses the engine's client: nothing to judge exchange by exchange.
    expect(t.exchanges).toHaveLength(0);
  });
});
