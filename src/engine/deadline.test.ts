import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { parseScenarioText } from '../config/load-scenario.js';
import type { ApiKey } from '../core/api-key.js';
import { burstProbe } from '../probes/burst.js';
import { deadlineOf, runDeadline } from './deadline.js';
import { estimateRequests } from './estimate.js';

const keysOf = (...entries: { plan: string; sacrificial?: boolean }[]): ApiKey[] =>
  parseKeys({ keys: entries.map((e, i) => ({ key: `test-key-${i}-0123456789`, ...e })) }, 'test');
const scenario = (body: string) => parseScenarioText(`name: t\ndescription: t\n${body}`, 't.yaml');
const MIN = 60_000;

describe('deadlineOf', () => {
  it('is twice the expected length plus five minute windows, on a real clock', () => {
    const s = scenario('probes: all');
    const e = estimateRequests(s, keysOf({ plan: 'free' }), ['free']);
    const d = deadlineOf(e, s.load, 1);
    // The expected length: the probes' plan, and the bursts the burst probe may send again beyond it.
    expect(d.expectedMs).toBe(e.durationMs + (burstProbe.needs.beyondPlanMs ?? 0));
    expect(burstProbe.needs.beyondPlanMs).toBeGreaterThan(0);
    expect(d.realMs).toBe(2 * d.expectedMs + 5 * MIN);
    expect(d.why).toMatch(/^2 × the expected \d+ min \d\d s \+ 5 minute windows$/);
  });

  it('counts every plan of a saturate phase (it runs plan after plan) and the load phases after the probes', () => {
    const s = scenario('load:\n  phases:\n    - { executor: saturate, connections: 2, duration: 1m }\n');
    const keys = keysOf({ plan: 'pro' }, { plan: 'business' });
    const d = deadlineOf(estimateRequests(s, keys, ['pro', 'business']), s.load, 2);
    expect(d.expectedMs).toBe(2 * MIN);
    expect(d.realMs).toBe(2 * 2 * MIN + 5 * MIN);
  });

  it('allows for the ban probe following a ban, beyond its planned length', () => {
    const s = scenario('probes: [ban]\nrequiresSacrificialKey: true');
    const e = estimateRequests(s, keysOf({ plan: 'free', sacrificial: true }), ['free']);
    expect(deadlineOf(e, s.load, 1).expectedMs).toBeGreaterThan(e.durationMs + 60 * MIN);
  });

  it('is never below two minutes of real time on a scaled clock', () => {
    const s = scenario('probes: [list]');
    const d = deadlineOf(estimateRequests(s, keysOf({ plan: 'free' }), ['free'], { scale: 60 }), s.load, 1);
    expect(d.realMs).toBe(2 * MIN);
    expect(d.why).toMatch(/on the 60x clock, at least 2 min 00 s of real time$/);
  });
});

describe('runDeadline', () => {
  it('aborts its signal at the deadline and says why; an interrupt before it is no deadline', async () => {
    const outer = new AbortController();
    const d = runDeadline(outer.signal);
    d.arm({ expectedMs: 0, realMs: 20, why: 'a test' });
    await new Promise((r) => setTimeout(r, 60));
    expect(d.signal.aborted).toBe(true);
    expect(outer.signal.aborted).toBe(false);
    expect(d.fired()).toMatchObject({
      exitCode: 3,
      reason: expect.stringMatching(/^the run's deadline passed: 0 s \(a test\)/),
    });
    d.dispose();

    const interrupted = new AbortController();
    const e = runDeadline(interrupted.signal);
    e.arm({ expectedMs: 0, realMs: 10_000, why: 'a test' });
    interrupted.abort();
    expect(e.signal.aborted).toBe(true);
    expect(e.fired()).toBeNull();
    e.dispose();
  });
});
