import { describe, expect, it } from 'vitest';
import { PetloadError } from '../core/errors.js';
import { parseScenarioText } from './load-scenario.js';
import { applyOverrides } from './overrides.js';

const scenario = parseScenarioText(
  `name: x
description: d
load:
  phases:
    - { executor: constant-rate, rate: 10/s, duration: 1m }
    - { executor: ramping-rate, stages: [{ rate: 1/s, duration: 10s }, { rate: 5/s, duration: 30s }] }
    - { executor: concurrency, workers: 2, duration: 5s }
    - { executor: burst, requests: 5 }
`,
  'x.yaml',
);

describe('applyOverrides', () => {
  it('returns the scenario unchanged without overrides', () => {
    expect(applyOverrides(scenario, {})).toBe(scenario);
  });

  it('replaces the rate of constant-rate phases only', () => {
    const s = applyOverrides(scenario, { rate: '150%' });
    expect(s.load!.phases[0]).toMatchObject({
      executor: 'constant-rate',
      rate: { kind: 'plan', fraction: 1.5 },
      duration: 60_000,
    });
    expect(s.load!.phases[1]).toEqual(scenario.load!.phases[1]);
  });

  it('replaces durations and scales ramping stages to the new total', () => {
    const s = applyOverrides(scenario, { duration: '20s' });
    expect(s.load!.phases[0]).toMatchObject({ duration: 20_000 });
    const ramp = s.load!.phases[1];
    expect(ramp?.executor === 'ramping-rate' && ramp.stages.map((st) => st.duration)).toEqual([5_000, 15_000]);
    expect(s.load!.phases[2]).toMatchObject({ duration: 20_000 });
    expect(s.load!.phases[3]).toEqual(scenario.load!.phases[3]);
  });

  it('names the flag and what was expected on bad input', () => {
    expect(() => applyOverrides(scenario, { rate: '10/sec' })).toThrow(PetloadError);
    expect(() => applyOverrides(scenario, { rate: '10/sec' })).toThrow(/--rate "10\/sec": expected a rate/);
    expect(() => applyOverrides(scenario, { duration: 'soon' })).toThrow(/--duration "soon": expected a duration/);
  });

  it('refuses overrides for a scenario without load', () => {
    const probesOnly = parseScenarioText('name: p\ndescription: d\nprobes: [auth]\n', 'p.yaml');
    expect(() => applyOverrides(probesOnly, { duration: '1m' })).toThrow(/has none/);
  });
});
