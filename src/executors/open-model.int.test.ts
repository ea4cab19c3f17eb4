import { afterEach, describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import type { ReferenceServerOptions } from '../reference-server/index.js';
import { makeKey } from '../reference-server/test-client.js';
import { parseLoad, startLoadTarget, type LoadTarget } from '../testing/load-context.js';
import { runLoad } from './run-load.js';

const business = makeKey('business-key-0001', 'business', PLANS.business);
const pro = makeKey('pro-key-0002', 'pro', PLANS.pro);

const targets: LoadTarget[] = [];
afterEach(async () => {
  for (const t of targets.splice(0)) await t.stop();
});

async function setup(scale: number, options: ReferenceServerOptions = {}): Promise<LoadTarget> {
  const t = await startLoadTarget([business, pro], scale, options, { connections: 1000 });
  targets.push(t);
  return t;
}

describe('constant-rate', () => {
  it('sends each plan its rate, evenly spaced from the phase start, with nothing dropped or refused', async () => {
    const t = await setup(30);
    // The in-flight cap well out of reach: this test is about the schedule, dropped sends have their own.
    const load = parseLoad({
      maxInFlight: 1000,
      phases: [{ executor: 'constant-rate', rate: '80%', duration: '30s' }],
    });
    const outcome = await runLoad(t.ctx, load);
    const [phase] = outcome.phases;
    // 80% of 1000/min and of 300/min for 30 s of run clock.
    const expected = { business: 400, pro: 120 };
    for (const plan of ['business', 'pro'] as const) {
      const counts = phase!.plans.find((p) => p.plan === plan)!;
      expect(counts.planned).toBe(expected[plan]);
      expect(counts.dropped + counts.heldBack).toBe(0);
      expect(counts.sent).toBe(expected[plan]);
      expect(counts.refused).toBe(0);
      const intended = t.exchanges
        .filter((ex) => ex.plan === plan)
        .map((ex) => ex.timing.intended)
        .sort((a, b) => a - b);
      expect(intended).toHaveLength(expected[plan]);
      const gap = 60_000 / (0.8 * PLANS[plan].perMinute);
      for (const [i, at] of intended.entries()) expect(at - intended[0]!).toBeCloseTo(i * gap, 6);
    }
    expect(t.exchanges.every((ex) => ex.tag === 'constant-rate')).toBe(true);
    // An open model never runs ahead of its schedule: no request leaves before its intended time, and the
    // phase lasts at least its duration (how late a loaded machine makes it is the benchmark's business).
    expect(t.exchanges.every((ex) => ex.timing.sent >= ex.timing.intended)).toBe(true);
    // The last business arrival is due 399 gaps of 75 ms after the start.
    expect(phase!.durationMs).toBeGreaterThanOrEqual(399 * 75);
  });
});

describe('ramping-rate', () => {
  it("ramps linearly from the previous stage's rate: the count is the integral of the rate", async () => {
    const t = await setup(30);
    // The in-flight cap out of reach, as above: a busy machine that stalls the process for a moment must not turn
    // the arrivals due meanwhile into dropped sends; this test is about the schedule.
    const load = parseLoad({
      maxInFlight: 1000,
      mix: { listPets: 1 },
      phases: [
        {
          executor: 'ramping-rate',
          stages: [
            { rate: '4/s', duration: '10s' },
            { rate: '4/s', duration: '10s' },
            { rate: '2/s', duration: '10s' },
          ],
        },
      ],
    });
    const outcome = await runLoad(t.ctx, load);
    // 0 -> 4/s over 10 s, 4/s for 10 s, 4 -> 2/s over 10 s: 20 + 40 + 30 per plan (an absolute rate is the plan's total).
    for (const counts of outcome.phases[0]!.plans) {
      expect(counts.planned).toBe(90);
      expect(counts.sent).toBe(90);
      expect(counts.refused).toBe(0);
    }
    const intended = t.exchanges
      .filter((ex) => ex.plan === 'pro')
      .map((ex) => ex.timing.intended)
      .sort((a, b) => a - b);
    const t0 = intended[0]!;
    // Within the first stage the k-th arrival is due at sqrt(k / a) with a = 0.2 per s^2 (rate 0.4 t).
    expect((intended[5]! - t0) / 1000).toBeCloseTo(Math.sqrt(5 / 0.2), 6);
    // The 20th arrival opens the held stage, then one every 250 ms.
    expect((intended[20]! - t0) / 1000).toBeCloseTo(10, 6);
    expect((intended[24]! - t0) / 1000).toBeCloseTo(11, 6);
  });
});

describe('dropped sends', () => {
  it('drops the arrivals that find maxInFlight requests in flight on a slow target, and measures latency from the intended time', async () => {
    const t = await setup(1, { faults: ['slow'], slowMs: 100 });
    const load = parseLoad({
      maxInFlight: 2,
      mix: { listPets: 1 },
      phases: [{ executor: 'constant-rate', rate: '40/s', duration: '1s' }],
    });
    const outcome = await runLoad(t.ctx, load);
    const counts = outcome.phases[0]!.plans.find((p) => p.plan === 'business')!;
    expect(counts.planned).toBe(40);
    expect(counts.dropped).toBeGreaterThan(10);
    expect(counts.sent + counts.dropped + counts.heldBack).toBe(counts.planned);
    expect(t.dropped()).toBe(outcome.phases[0]!.plans.reduce((n, p) => n + p.dropped, 0));
    // Never more than two in flight: sort the sends and ends of every exchange and count.
    const events = t.exchanges.flatMap(
      (ex) =>
        [
          [ex.timing.sent, 1],
          [ex.timing.done, -1],
        ] as const,
    );
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let inFlight = 0;
    let most = 0;
    for (const [, d] of events) most = Math.max(most, (inFlight += d));
    expect(most).toBeLessThanOrEqual(2);
    // The server's 100 ms timer starts from the event loop's cached time, so a few ms may be lost.
    expect(t.exchanges.every((ex) => ex.timing.done - ex.timing.intended >= 90)).toBe(true);
  });
});

describe('runLoad', () => {
  it("runs the phases in order and stops at the run's signal", async () => {
    const stop = new AbortController();
    const t = await startLoadTarget([business], 60, {}, { signal: stop.signal });
    targets.push(t);
    const load = parseLoad({
      phases: [
        { executor: 'constant-rate', rate: '10/s', duration: '10s' },
        { executor: 'constant-rate', rate: '2/s', duration: '10m' },
        { executor: 'burst', requests: 5 },
      ],
    });
    const progress: string[] = [];
    t.ctx.progress = (p) => progress.push(p.phase);
    // Stop once phase 2 has begun, whatever the machine's speed.
    const progressOf = t.ctx.progress;
    t.ctx.progress = (p) => {
      progressOf(p);
      if (p.phase.startsWith('phase 2')) stop.abort();
    };
    const outcome = await runLoad(t.ctx, load);
    expect(outcome.stopped).toBe('signal');
    expect(outcome.phases.map((p) => p.label)).toEqual(['phase 1 (constant-rate)', 'phase 2 (constant-rate)']);
    // Phase 1 ran whole: every planned arrival was sent, or counted as dropped or held back (a loaded machine).
    const first = outcome.phases[0]!.plans[0]!;
    expect(first.planned).toBe(100);
    expect(first.sent - first.retries + first.dropped + first.heldBack).toBe(100);
    // 10 minutes at 2/s would be 1200; the signal came with phase 2's first progress report (about 1 s real).
    expect(outcome.phases[1]!.plans[0]!.planned).toBeLessThan(600);
    expect(progress[0]).toBe('phase 1 (constant-rate)');
    expect(progress.at(-1)).toBe('phase 2 (constant-rate)');
  });
});
