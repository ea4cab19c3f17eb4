import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import type { ApiKey } from '../core/api-key.js';
import { loadScenario, parseScenarioText, shippedScenarioNames } from '../config/load-scenario.js';
import { PROBE_NAMES } from '../probes/names.js';
import { describeDuration, describeEstimate, estimateRequests, formatCount } from './estimate.js';

const keysOf = (
  ...entries: { plan: string; sacrificial?: boolean; audit?: boolean; perMinute?: number; perDay?: number }[]
): ApiKey[] => parseKeys({ keys: entries.map((e, i) => ({ key: `test-key-${i}-0123456789`, ...e })) }, 'test');

const scenario = (body: string) => parseScenarioText(`name: t\ndescription: t\n${body}`, 't.yaml');

describe('estimateRequests: probes', () => {
  it('costs every probe of a compliance run on one free key, the 429 enforce leaves waited out by two probes', () => {
    const e = estimateRequests(scenario('probes: all'), keysOf({ plan: 'free' }), ['free']);
    // input 14, list 16, create-get 5, unknown-id 4, deprecated 4, enforce 61 (leaves a 429), retry-after-honest 1
    // and restore 1 (both wait it out), key-isolation 0 (one key), burst 65, quota-drain 2, what-counts 5.
    expect(e.plans).toEqual([{ plan: 'free', probes: 178, load: 0, total: 178 }]);
    // auth 16, quota-drain 50 (one more, refused, when it lasts across two address windows), reachability 1.
    expect(e.unkeyed).toBe(67);
    expect(e.total).toBe(245);
  });

  it('runs key-isolation with two keys of a plan: key A is what is left of its window after retry-after-honest', () => {
    const e = estimateRequests(scenario('probes: all'), keysOf({ plan: 'free' }, { plan: 'free' }), ['free']);
    // enforce 61, retry-after-honest 1, then key A's 59 left + the 429, key B 2; burst 65, restore 1, the rest 50.
    expect(e.plans[0]!.probes).toBe(61 + 1 + 60 + 2 + 65 + 1 + 50);
    expect(e.requestsByKey).toEqual({
      [e.schedule.steps.find((s) => s.probe === 'enforce')!.keys[0]!]: 122,
      [e.schedule.steps.find((s) => s.probe === 'burst')!.keys[0]!]: 118,
    });
  });

  it('gives the expected duration in real time and in windows', () => {
    const keys = keysOf({ plan: 'free' }, { plan: 'free' }, { plan: 'free' });
    const real = estimateRequests(scenario('probes: all'), keys, ['free']);
    expect(real.durationMs).toBeGreaterThan(60_000);
    expect(real.durationMs).toBeLessThan(2.5 * 60_000);
    expect(describeDuration(real)).toMatch(/^about 1 min \d\d s, [12]\.\d minute windows of the target$/);
    const scaled = estimateRequests(scenario('probes: all'), keys, ['free'], { scale: 60 });
    expect(describeDuration(scaled)).toMatch(/^about \d s of real time \(.* on the 60x clock\)/);
  });

  it('uses the smaller figure of an enterprise key as its minute quota', () => {
    const e = estimateRequests(
      scenario('probes: [enforce]'),
      keysOf({ plan: 'enterprise', perMinute: 500, perDay: 100 }),
      ['enterprise'],
    );
    expect(e.plans[0]!.probes).toBe(101);
  });

  it('counts the ban probe only for a plan with a sacrificial key', () => {
    const s = scenario('probes: [ban]\nrequiresSacrificialKey: true');
    const e = estimateRequests(s, keysOf({ plan: 'free', sacrificial: true }, { plan: 'pro' }), ['free', 'pro']);
    expect(e.plans.map((p) => [p.plan, p.probes])).toEqual([
      // At most 3 refusals (60 accepted, 1 refused, 100 knocks each), 60 requests following the ban, 1 after it.
      ['free', 3 * (61 + 100) + 60 + 1],
      ['pro', 0],
    ]);
  });

  it('gives nothing to a plan without keys', () => {
    const e = estimateRequests(scenario('probes: [list]'), keysOf({ plan: 'free' }), ['free', 'pro']);
    expect(e.plans[1]).toEqual({ plan: 'pro', probes: 0, load: 0, total: 0 });
  });

  it('has a cost for every probe', () => {
    const keys = keysOf(
      { plan: 'free', sacrificial: true },
      { plan: 'free', audit: true },
      { plan: 'free' },
      { plan: 'free' },
      { plan: 'free' },
    );
    const marks: Partial<Record<string, string>> = {
      ban: '\nrequiresSacrificialKey: true',
      'plan-audit': '\nrequiresAuditKey: true',
    };
    for (const probe of PROBE_NAMES) {
      const e = estimateRequests(scenario(`probes: [${probe}]${marks[probe] ?? ''}`), keys, ['free']);
      expect(e.total - 1, probe).toBeGreaterThan(0);
    }
  });
});

describe('estimateRequests: load', () => {
  const load = (phases: string, extra = '') => scenario(`load:\n  phases:\n${phases}${extra}`);

  it.each([
    ['a share of the per-minute limit, per key', '    - { executor: constant-rate, rate: 50%, duration: 1m }', 2, 60],
    [
      'an absolute rate, for the plan whatever its keys',
      '    - { executor: constant-rate, rate: 10/s, duration: 2s }',
      2,
      20,
    ],
    ['a share of the day', '    - { executor: constant-rate, rate: 110%/day, duration: 1d }', 1, 1100],
    [
      'a ramp from 0 to 60/min over a minute, then a minute at 60/min',
      '    - executor: ramping-rate\n      stages: [{ rate: 60/min, duration: 1m }, { rate: 60/min, duration: 1m }]',
      1,
      90,
    ],
    ['a burst of limit+10 (per plan)', '    - { executor: burst, requests: "limit+10" }', 2, 70],
    ['a burst of a count', '    - { executor: burst, requests: 5 }', 1, 5],
    [
      'a closed model with backoff: what the limiter lets through (every window touched)',
      '    - { executor: concurrency, workers: 4, duration: 1m }',
      1,
      120,
    ],
  ])('%s', (_what, phases, nKeys, expected) => {
    const keys = keysOf(...Array.from({ length: nKeys }, () => ({ plan: 'free' })));
    const e = estimateRequests(load(phases), keys, ['free']);
    expect(e.plans[0]!.load).toBe(expected);
    expect(e.unbounded).toEqual([]);
  });

  it('has no bound for saturate or a closed model without backoff, and says why', () => {
    const e = estimateRequests(
      load(
        '    - { executor: saturate, connections: 2, duration: 1s }\n    - { executor: concurrency, workers: 1, duration: 1s }',
        '\n  backoff: { enabled: false }',
      ),
      keysOf({ plan: 'free' }),
      ['free'],
    );
    expect(e.total).toBe(Number.POSITIVE_INFINITY);
    expect(e.unbounded).toEqual([
      'phase 1 (saturate) sends as fast as the target answers',
      'phase 2 (concurrency) runs without backoff, as fast as the target answers',
    ]);
    expect(describeEstimate(e)).toMatch(
      /^about unbounded requests: free unbounded .*no upper bound: phase 1 \(saturate\)/,
    );
  });

  it('caps the whole load section at maxRequests, each plan and all of them', () => {
    const e = estimateRequests(
      load('    - { executor: saturate, connections: 2, duration: 1s }', '\n  maxRequests: 500'),
      keysOf({ plan: 'free' }, { plan: 'pro' }),
      ['free', 'pro'],
    );
    expect(e.plans.map((p) => p.load)).toEqual([500, 500]);
    expect(e.total).toBe(500 + 1);
    expect(e.unbounded).toEqual([]);
  });
});

describe('the shipped scenarios', () => {
  it.each(shippedScenarioNames())('%s has a bounded estimate unless it saturates', (name) => {
    const s = loadScenario(name);
    const keys = keysOf(
      { plan: 'free', sacrificial: true },
      { plan: 'free', audit: true },
      { plan: 'pro' },
      { plan: 'business' },
    );
    const e = estimateRequests(s, keys, ['free', 'pro', 'business']);
    expect(Number.isFinite(e.total)).toBe(!s.load?.phases.some((p) => p.executor === 'saturate'));
    expect(e.total).toBeGreaterThan(1);
  });
});

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [1234.2, '1,235'],
    [Number.POSITIVE_INFINITY, 'unbounded'],
  ])('%d is %s', (n, text) => expect(formatCount(n)).toBe(text));
});
