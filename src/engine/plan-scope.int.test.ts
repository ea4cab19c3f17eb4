/**
 * The scope contract through the programmatic API (runScenario), as the CLI gets it: a plan of the scenario's
 * `plans:` without a key is refused before anything is sent; a partial run judges the others and lists it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../config/load-scenario.js';
import { isPetloadError } from '../core/errors.js';
import { testKey } from '../testing/exchange-builder.js';
import { planScope } from './plan-scope.js';
import { runScenario } from './run.js';

const twoPlans = (extra = '') =>
  parseScenarioText(
    `name: two-plans\ndescription: pro and business\nplans: [pro, business]\nprobes: [list]\n${extra}`,
    'two.yaml',
  );

describe('planScope', () => {
  const where = 'in the keys file k.json (--keys-file)';
  it('judges the plans its keys have when nothing names plans', () => {
    expect(planScope([testKey('pro'), testKey('free')], { partial: false, where })).toEqual({
      judged: ['free', 'pro'],
      notJudged: [],
    });
  });
  it('refuses plans named without a key, naming each and where the keys were read', () => {
    const ask = { scenario: ['free', 'pro', 'business'] as const, partial: false, where };
    expect(() => planScope([testKey('pro')], ask)).toThrow(
      'plans free and business (named by the scenario\'s plans:) have no key: expected a key {"plan": "free"} and {"plan": "business"} in the keys file k.json (--keys-file)',
    );
  });
  it('--plan wins over the scenario, and a partial run lists what it leaves out', () => {
    const ask = { flag: ['business'] as const, scenario: ['pro'] as const, partial: true, where };
    expect(planScope([testKey('pro')], ask)).toEqual({
      judged: [],
      notJudged: [{ plan: 'business', reason: 'no key' }],
    });
  });
});

describe('runScenario: scope', { timeout: 30_000 }, () => {
  it('refuses a plan of the scenario without a key before it sends (E_NO_KEYS, exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-scope-'));
    try {
      const run = runScenario({
        scenario: twoPlans(),
        target: { kind: 'embedded', keys: [testKey('pro')] },
        reportDir: dir,
      });
      const error = await run.then(
        () => null,
        (e: unknown) => e,
      );
      expect(isPetloadError(error) && error.code).toBe('E_NO_KEYS');
      expect(isPetloadError(error) && error.exitCode).toBe(2);
      expect((error as Error).message).toMatch(/^plan business \(named by the scenario's plans:\) has no key/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['partial: true', { scenario: twoPlans('partial: true\n') }],
    ['the partial option', { scenario: twoPlans(), partial: true }],
  ])('judges the other plans of a partial run (%s)', async (_how, given) => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-scope-'));
    try {
      const { report, exitCode } = await runScenario({
        ...given,
        target: { kind: 'embedded', keys: [testKey('pro')] },
        reportDir: dir,
      });
      expect(exitCode).toBe(0);
      expect(report.plans).toEqual(['pro']);
      expect(report.notJudged).toEqual([{ plan: 'business', reason: 'no key' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
