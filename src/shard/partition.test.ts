import { describe, expect, it } from 'vitest';
import type { PLAN_NAMES } from '../api/plans.js';
import { parseKeys } from '../config/keys-file.js';
import { parseScenarioText } from '../config/load-scenario.js';
import { resolveBurstSize } from '../executors/burst.js';
import { isPetloadError } from '../core/errors.js';
import { planRate } from '../executors/open-model.js';
import { probesInOrder } from '../probes/index.js';
import { prepareShard, shardKeys, shardProbes, shardScenario, shareOf } from './partition.js';

const keys = parseKeys(
  {
    keys: [
      ...Array.from({ length: 5 }, (_, i) => ({ key: `k_free_${i}_0123456789abcdef`, plan: 'free' })),
      ...Array.from({ length: 3 }, (_, i) => ({ key: `k_pro_${i}_0123456789abcdef`, plan: 'pro' })),
      { key: 'k_biz_0_0123456789abcdef', plan: 'business' },
    ],
  },
  'test keys',
);

const scenario = parseScenarioText(
  `name: sharding
description: every executor
probes: [auth, list, enforce, key-isolation]
load:
  maxRequests: 1001
  phases:
    - { executor: constant-rate, rate: 30/s, duration: 10s }
    - { executor: constant-rate, rate: 95%, duration: 10s }
    - { executor: ramping-rate, stages: [{ rate: 9/s, duration: 5s }, { rate: 50%, duration: 5s }] }
    - { executor: concurrency, workers: 7, duration: 5s }
    - { executor: burst, requests: 11 }
    - { executor: burst, requests: limit+10 }
    - { executor: saturate, connections: 4, duration: 1s }
`,
  'sharding.yaml',
);

const shards = (count: number) => Array.from({ length: count }, (_, index) => ({ index, count }));

describe('partition', () => {
  it('deals whole numbers out so that the shares add up to the whole', () => {
    for (const total of [0, 1, 2, 7, 100, 1001]) {
      for (const count of [1, 2, 3, 7]) expect(shards(count).reduce((n, s) => n + shareOf(total, s), 0)).toBe(total);
    }
    expect(shards(3).map((s) => shareOf(7, s))).toEqual([3, 2, 2]);
  });

  it('gives each key of a plan to exactly one shard', () => {
    const parts = shards(3).map((s) => shardKeys(keys, ['free', 'pro'], s));
    const all = parts.flat().map((k) => k.label);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(
      keys
        .filter((k) => k.plan !== 'business')
        .map((k) => k.label)
        .sort(),
    );
    for (const part of parts) expect(new Set(part.map((k) => k.plan))).toEqual(new Set(['free', 'pro']));
    expect(parts.map((p) => p.length)).toEqual([3, 3, 2]);
  });

  it('refuses more shards than keys of a plan the run needs, naming the plan', () => {
    expect(shardKeys(keys, ['free'], { index: 4, count: 5 })).toHaveLength(1);
    try {
      shardKeys(keys, ['free', 'pro'], { index: 0, count: 4 });
      throw new Error('expected a refusal');
    } catch (e) {
      expect(isPetloadError(e)).toBe(true);
      expect((e as Error).message).toMatch(/^--shards 4: plan pro has 3 keys, fewer than the shards/);
    }
  });

  it('divides the load: the shards together offer what one process would', () => {
    const parts = shards(3).map((s) => ({
      s,
      sc: shardScenario(scenario, s),
      keys: shardKeys(keys, ['free', 'pro'], s),
    }));
    for (const plan of ['free', 'pro'] as const) {
      const whole = keys.filter((k) => k.plan === plan);
      for (const at of [0, 1]) {
        const p = scenario.load!.phases[at]!;
        const sum = parts.reduce((n, { sc, keys: mine }) => {
          const q = sc.load!.phases[at]!;
          return (
            n +
            (q.executor === 'constant-rate'
              ? planRate(
                  q.rate,
                  mine.filter((k) => k.plan === plan),
                )
              : NaN)
          );
        }, 0);
        expect(sum).toBeCloseTo(p.executor === 'constant-rate' ? planRate(p.rate, whole) : NaN, 9);
      }
    }
    const sumOf = (f: (sc: typeof scenario) => number) => parts.reduce((n, { sc }) => n + f(sc), 0);
    const phase = (sc: typeof scenario, i: number) => sc.load!.phases[i]!;
    expect(
      sumOf((sc) => {
        const p = phase(sc, 2);
        return p.executor === 'ramping-rate' && p.stages[0]!.rate.kind === 'absolute'
          ? p.stages[0]!.rate.perSecond
          : NaN;
      }),
    ).toBeCloseTo(9, 9);
    expect(
      sumOf((sc) => {
        const p = phase(sc, 3);
        return p.executor === 'concurrency' ? p.workers : NaN;
      }),
    ).toBe(7);
    expect(
      sumOf((sc) => {
        const p = phase(sc, 4);
        return p.executor === 'burst' ? resolveBurstSize(p.requests, keys[0]!.limits) : NaN;
      }),
    ).toBe(11);
    expect(
      sumOf((sc) => {
        const p = phase(sc, 5);
        return p.executor === 'burst' ? resolveBurstSize(p.requests, keys[5]!.limits) : NaN;
      }),
    ).toBe(310);
    expect(
      sumOf((sc) => {
        const p = phase(sc, 6);
        return p.executor === 'saturate' ? p.connections : NaN;
      }),
    ).toBe(4);
    expect(sumOf((sc) => sc.load!.maxRequests!)).toBe(1001);
    // A share of the plan is per key: it stays as it is.
    expect(phase(parts[1]!.sc, 1)).toEqual(scenario.load!.phases[1]);
  });

  it('refuses a phase with fewer workers or connections than shards', () => {
    expect(() => shardScenario(scenario, { index: 0, count: 5 })).toThrow(
      /load.phases\[6\] has 4 connections, fewer than the shards/,
    );
  });

  it('runs each probe of each plan on exactly one shard', () => {
    const plans = ['free', 'pro'] as const;
    const parts = shards(3).map((s) => shardProbes(probesInOrder(scenario.probes), plans, s));
    const all = parts[0]!.all;
    expect(all).toEqual([
      'auth',
      'list [free]',
      'list [pro]',
      'enforce [free]',
      'enforce [pro]',
      'key-isolation [free]',
      'key-isolation [pro]',
    ]);
    const mine = parts.flatMap((p) => [...p.mine]);
    expect(mine.sort()).toEqual([...all].sort());
    const prepared = shards(3).map((s) => prepareShard(probesInOrder(scenario.probes), keys, plans, s));
    for (const unit of all) {
      const [name, plan] = unit.includes(' [')
        ? [unit.split(' [')[0]!, unit.slice(unit.indexOf('[') + 1, -1)]
        : [unit, null];
      expect(prepared.filter((p) => p.runsProbe(name, plan as (typeof PLAN_NAMES)[number] | null))).toHaveLength(1);
    }
  });
});
