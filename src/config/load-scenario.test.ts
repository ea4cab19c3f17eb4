import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PetloadError } from '../core/errors.js';
import { listScenarios, loadScenario, parseScenarioText, shippedScenarioNames } from './load-scenario.js';

const dir = mkdtempSync(join(tmpdir(), 'petload-scenarios-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
/** Writes `text` to a fresh file, loads it and returns the file and the error it must raise. */
function refuse(text: string): { file: string; error: PetloadError } {
  const file = join(dir, `case-${++fileNo}.yaml`);
  writeFileSync(file, text);
  try {
    loadScenario(file);
  } catch (e) {
    if (e instanceof PetloadError) return { file, error: e };
    throw e;
  }
  throw new Error(`${file} was accepted`);
}

const KEYS =
  'name, description, plans, partial, timeScale, keysPerPlan, planLimits, probes, load, thresholds, requiresSacrificialKey, requiresAuditKey, headers';
const PROBES =
  'auth, input, list, create-get, unknown-id, deprecated, enforce, restore, retry-after-honest, burst, key-isolation, quota-drain, what-counts, ban, plan-audit';
const EXECUTORS = 'constant-rate, ramping-rate, concurrency, burst, saturate';
const HEAD = 'name: t\ndescription: d\n';
const LOAD = `${HEAD}load:\n  phases:\n`;

describe('loadScenario refuses a broken file with every problem: file, line:col, path, expected, found', () => {
  it.each<[string, string, string[]]>([
    [
      'misspelt top-level key',
      `${HEAD}probes: [auth]\nplan: [free]\n`,
      [`:4:1 plan: expected one of the keys ${KEYS}, found unknown key "plan" (did you mean "plans"?)`],
    ],
    [
      'plan figures out of range and misspelt',
      `${HEAD}probes: [auth]\nplanLimits:\n  pro: { perMinute: 0 }\n  fre: { perDay: 5 }\n`,
      [
        ':5:21 planLimits.pro.perMinute: expected a whole number of requests per minute above 0, found number 0',
        ':6:3 planLimits.fre: expected one of the keys free, pro, business, enterprise, found unknown key "fre" (did you mean "free"?)',
      ],
    ],
    [
      'misspelt plan',
      `${HEAD}plans: [free, prp]\nprobes: all\n`,
      [':3:15 plans[1]: expected one of free, pro, business, enterprise, found "prp" (did you mean "pro"?)'],
    ],
    [
      'a plan twice',
      `${HEAD}plans: [free, pro, free]\nprobes: all\n`,
      [':3:20 plans[2]: expected each plan once, found "free" again'],
    ],
    [
      'misspelt probe',
      `${HEAD}probes:\n  - auth\n  - enforse\n`,
      [`:5:5 probes[1]: expected one of ${PROBES}, found "enforse" (did you mean "enforce"?)`],
    ],
    [
      'probes neither all nor a list',
      `${HEAD}probes: al\n`,
      [`:3:9 probes: expected all or a list of probe names (${PROBES}), found "al" (did you mean "all"?)`],
    ],
    [
      'missing keys',
      'name: t\nprobes: all\n',
      [':1:1 description: expected a description (one line of text), found nothing (the key is missing)'],
    ],
    [
      'bad name and a number where a string belongs',
      'name: At Limit\ndescription: 42\nprobes: all\n',
      [
        ':1:7 name: expected a name of lower-case letters, digits and dashes, such as at-limit, found "At Limit"',
        ':2:14 description: expected a description (one line of text), found number 42',
      ],
    ],
    [
      'misspelt executor',
      `${LOAD}    - { executor: constant-rat, rate: 95%, duration: 3m }\n`,
      [
        `:5:19 load.phases[0].executor: expected one of ${EXECUTORS}, found "constant-rat" (did you mean "constant-rate"?)`,
      ],
    ],
    [
      'key of another executor',
      `${LOAD}    - { executor: burst, requets: 50 }\n`,
      [
        ':5:7 load.phases[0].requests: expected a number of requests, or "limit" or "limit+K" (the plan\'s per-minute limit plus K), found nothing (the key is missing)',
        ':5:26 load.phases[0].requets: expected one of the keys executor, requests, found unknown key "requets" (did you mean "requests"?)',
      ],
    ],
    [
      'rate and duration typos in a ramp',
      `${LOAD}    - executor: ramping-rate\n      stages:\n        - { rate: 10/sec, duration: 30s }\n        - { rate: 150%, duration: 1min }\n        - { rate: 150%, duration: 30 }\n`,
      [
        ':7:19 load.phases[0].stages[0].rate: expected a rate such as 10/s, 600/min, 100/h, 1000/day, 95% (of the per-minute limit) or 110%/day, found "10/sec" (did you mean "10/s"?)',
        ':8:35 load.phases[0].stages[1].duration: expected a duration such as 250ms, 1.5s, 3m, 1m30s, 2h or 1d, found "1min" (unknown unit "min"; units are d, h, m, s, ms: did you mean "1m"?)',
        ':9:35 load.phases[0].stages[2].duration: expected a duration such as 250ms, 1.5s, 3m, 1m30s, 2h or 1d, found number 30',
      ],
    ],
    [
      'zero duration, bounds',
      `${LOAD}    - { executor: concurrency, workers: 0, duration: 0s }\n  maxInFlight: 1.5\n  unknownGetShare: 2\n`,
      [
        ':5:41 load.phases[0].workers: expected a number >= 1, found number 0',
        ':5:54 load.phases[0].duration: expected a duration above zero, found "0s"',
        ':6:16 load.maxInFlight: expected a whole number, found number 1.5',
        ':7:20 load.unknownGetShare: expected a number <= 1, found number 2',
      ],
    ],
    [
      'burst size',
      `${LOAD}    - { executor: burst, requests: limt+10 }\n    - { executor: burst, requests: 0 }\n`,
      [
        ':5:36 load.phases[0].requests: expected a number of requests, or "limit" or "limit+K" (the plan\'s per-minute limit plus K), found "limt+10" (did you mean "limit+10"?)',
        ':6:36 load.phases[1].requests: expected a number >= 1, found number 0',
      ],
    ],
    [
      'mix and backoff',
      `${HEAD}load:\n  mix: { listPets: 0, getPets: 5 }\n  backoff: { base: 1m, cap: 30s, enabld: false }\n  phases: []\n`,
      [
        ':4:8 load.mix: expected at least one weight above zero, found a mapping',
        ':4:23 load.mix.getPets: expected one of the keys listPets, createPet, getPet, found unknown key "getPets" (did you mean "getPet"?)',
        ':5:29 load.backoff.cap: expected cap to be at least base, found "30s"',
        ':5:34 load.backoff.enabld: expected one of the keys enabled, base, cap, maxTries, found unknown key "enabld" (did you mean "enabled"?)',
        ':6:11 load.phases: expected at least 1 item, found a list',
      ],
    ],
    [
      'missing phases',
      `${HEAD}load:\n  maxRequests: 10\n`,
      [':3:1 load.phases: expected a list, found nothing (the key is missing)'],
    ],
    [
      'thresholds',
      `${HEAD}probes: all\nthresholds:\n  - "p(95) < 250"\n  - { expresion: "count(429) == 0" }\n  - { expression: "count(429) == 0", severity: critcal }\n  - 42\n`,
      [
        ':5:5 thresholds[0]: invalid threshold "p(95) < 250": column 12: expected a time unit (us, ms or s), found end of input',
        ':6:5 thresholds[1].expression: expected a string, found nothing (the key is missing)',
        ':6:7 thresholds[1].expresion: expected one of the keys expression, severity, found unknown key "expresion" (did you mean "expression"?)',
        ':7:48 thresholds[2].severity: expected one of critical, major, minor, advisory, info, found "critcal" (did you mean "critical"?)',
        ':8:5 thresholds[3]: expected a threshold expression such as "p(95) < 250ms", or {expression, severity}, found number 42',
      ],
    ],
    [
      'one rule twice',
      `${HEAD}probes: all\nthresholds: ["count(429) == 0", "count(429)==0"]\n`,
      [':4:33 thresholds[1]: expected each threshold once, found "count(429)==0", the same rule as thresholds[0]'],
    ],
    [
      'ban probe without a sacrificial key',
      `${HEAD}probes: [auth, ban]\nrequiresSacrificialKey: false\n`,
      [
        ':3:16 probes[1]: expected requiresSacrificialKey: true with the ban probe (it may get its key banned), found the ban probe without it',
      ],
    ],
    [
      'plan-audit probe without an audit key',
      `${HEAD}probes: [plan-audit]\n`,
      [
        ":3:10 probes[0]: expected requiresAuditKey: true with the plan-audit probe (it spends its key's whole day), found the plan-audit probe without it",
      ],
    ],
    [
      'neither probes nor load',
      HEAD,
      [':1:1 (top level): expected probes, load or both, found neither (such a scenario would do nothing)'],
    ],
    [
      'YAML syntax errors',
      `${HEAD}name: u\nprobes: [auth\n`,
      [
        ':3:1 YAML syntax: the key name appears twice',
        ':5:1 YAML syntax: Flow sequence in block collection must be sufficiently indented and end with a ]',
      ],
    ],
    [
      'empty file',
      '# nothing here\n',
      [':1:1 (top level): expected a mapping with at least name and description, found an empty document'],
    ],
    ['a list instead of a mapping', '- name: t\n', [':1:1 (top level): expected a mapping, found a list']],
  ])('%s', (_, text, lines) => {
    const { file, error } = refuse(text);
    expect(error.code).toBe('E_SCENARIO');
    expect(error.exitCode).toBe(2);
    const n = lines.length;
    expect(error.message).toBe(
      [`invalid scenario ${file} (${n} problem${n === 1 ? '' : 's'}):`, ...lines.map((l) => `  ${file}${l}`)].join(
        '\n',
      ),
    );
  });

  it('names an unreadable file', () => {
    const missing = join(dir, 'missing.yaml');
    expect(() => loadScenario(missing)).toThrow(`${missing}: cannot read the scenario file (no such file)`);
    const sub = join(dir, 'a-dir.yaml');
    mkdirSync(sub);
    expect(() => loadScenario(sub)).toThrow(`${sub}: cannot read the scenario file (it is a directory)`);
    expect(() => loadScenario(join(dir, 'smoke.yaml'))).toThrow(
      '(no such file) (did you mean the shipped scenario "smoke"?)',
    );
  });

  it('names an unknown shipped scenario, with a did-you-mean and the list', () => {
    const shipped = shippedScenarioNames().join(', ');
    expect(() => loadScenario('at-limt')).toThrow(
      new PetloadError('E_SCENARIO', `unknown scenario "at-limt" (did you mean "at-limit"?); shipped: ${shipped}`),
    );
    expect(() => loadScenario('nothing-like-it')).toThrow(`unknown scenario "nothing-like-it"; shipped: ${shipped}`);
  });

  it('requires a shipped file to be named after itself', () => {
    expect(() =>
      parseScenarioText('name: other\ndescription: d\nprobes: all\n', 'scenarios/smoke.yaml', {
        expectedName: 'smoke',
      }),
    ).toThrow('scenarios/smoke.yaml:1:7 name: expected "smoke" (the file\'s base name), found "other"');
  });
});

describe('loadScenario of a valid file', () => {
  const file = join(dir, 'valid.yaml');
  writeFileSync(
    file,
    [
      'name: my-check',
      'description: A custom check',
      'plans: [pro]',
      'probes: all',
      'load:',
      '  mix: { createPet: 1 }',
      '  backoff: { maxTries: 3 }',
      '  phases:',
      '    - { executor: constant-rate, rate: 95%, duration: 1m30s }',
      '    - { executor: ramping-rate, stages: [{ rate: 10/s, duration: 30s }, { rate: 110%/day, duration: 1h }] }',
      '    - { executor: concurrency, workers: 4, duration: 30s }',
      '    - { executor: burst, requests: "limit+10" }',
      '    - { executor: burst, requests: 5 }',
      '    - { executor: saturate, connections: 10, duration: 10s }',
      'thresholds:',
      '  - "p(95) < 250ms"',
      '  - { expression: "count(429) == 0", severity: critical }',
      '',
    ].join('\n'),
  );

  it('applies the defaults and parses durations, rates and thresholds', () => {
    const s = loadScenario(file);
    expect(s.name).toBe('my-check');
    expect(s.plans).toEqual(['pro']);
    expect(s.timeScale).toBeUndefined();
    expect(s.keysPerPlan).toBe(1);
    expect(s.requiresSacrificialKey).toBe(false);
    expect(s.probes).not.toContain('ban');
    expect(s.probes).toContain('enforce');
    expect(s.load?.mix).toEqual({ listPets: 0, createPet: 1, getPet: 0 });
    expect(s.load?.backoff).toEqual({ enabled: true, base: 500, cap: 30_000, maxTries: 3 });
    expect(s.load?.unknownGetShare).toBe(0.1);
    expect(s.load?.maxInFlight).toBe(64);
    expect(s.load?.maxRequests).toBeUndefined();
    expect(s.load?.phases).toEqual([
      { executor: 'constant-rate', rate: { kind: 'plan', fraction: 0.95, window: 'minute' }, duration: 90_000 },
      {
        executor: 'ramping-rate',
        stages: [
          { rate: { kind: 'absolute', perSecond: 10 }, duration: 30_000 },
          { rate: { kind: 'plan', fraction: 1.1, window: 'day' }, duration: 3_600_000 },
        ],
      },
      { executor: 'concurrency', workers: 4, duration: 30_000 },
      { executor: 'burst', requests: { kind: 'limit', plus: 10 } },
      { executor: 'burst', requests: { kind: 'count', count: 5 } },
      { executor: 'saturate', connections: 10, duration: 10_000 },
    ]);
    expect(s.thresholds.map((t) => [t.expression, t.severity, t.parsed.expression])).toEqual([
      ['p(95) < 250ms', 'major', 'p(95) < 250ms'],
      ['count(429) == 0', 'critical', 'count(429) == 0'],
    ]);
  });

  it('reads planLimits: either figure or both, per plan', () => {
    const s = parseScenarioText(
      `${HEAD}probes: [auth]\nplanLimits:\n  pro: { perMinute: 600 }\n  enterprise: { perMinute: 5000, perDay: 2000000 }\n`,
      'f.yaml',
    );
    expect(s.planLimits).toEqual({ pro: { perMinute: 600 }, enterprise: { perMinute: 5000, perDay: 2_000_000 } });
    expect(parseScenarioText(`${HEAD}probes: [auth]\n`, 'f.yaml').planLimits).toBeUndefined();
  });

  it('freezes the result all the way down', () => {
    const s = loadScenario(file);
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.load?.phases)).toBe(true);
    expect(Object.isFrozen(s.load?.phases[1])).toBe(true);
    expect(Object.isFrozen(s.thresholds[0]?.parsed)).toBe(true);
    expect(() => {
      (s.probes as string[]).push('ban');
    }).toThrow(TypeError);
  });
});

describe('shipped scenarios', () => {
  const names = shippedScenarioNames();

  it('are the documented set', () => {
    expect(names).toEqual([
      'at-limit',
      'ban-probe',
      'burst',
      'capacity',
      'compliance',
      'day-pacing',
      'overload-backoff',
      'plan-audit',
      'smoke',
    ]);
  });

  it.each(names)('%s validates and is named after its file', (name) => {
    expect(loadScenario(name).name).toBe(name);
  });

  it.each(names)('%s lasts at most 30 s of real time at its own time scale', (name) => {
    const s = loadScenario(name);
    const runClockMs = (s.load?.phases ?? []).reduce(
      (sum, p) =>
        sum + ('duration' in p ? p.duration : 'stages' in p ? p.stages.reduce((a, st) => a + st.duration, 0) : 0),
      0,
    );
    expect(runClockMs / (s.timeScale ?? 1)).toBeLessThanOrEqual(30_000);
  });

  it('keep their promises: at-limit, ban-probe, compliance, day-pacing', () => {
    const atLimit = loadScenario('at-limit');
    expect(atLimit.load?.phases).toEqual([
      { executor: 'constant-rate', rate: { kind: 'plan', fraction: 0.95, window: 'minute' }, duration: 180_000 },
    ]);
    expect(atLimit.thresholds.map((t) => t.parsed.expression)).toContain('count(429) == 0');
    const ban = loadScenario('ban-probe');
    expect([ban.probes, ban.requiresSacrificialKey]).toEqual([['ban'], true]);
    const compliance = loadScenario('compliance');
    expect([compliance.keysPerPlan, compliance.timeScale, compliance.load]).toEqual([3, 60, undefined]);
    expect(loadScenario('day-pacing').plans).toEqual(['free']);
    // Its old name, from before it was named for what it proves, still loads it.
    expect(loadScenario('day-quota').name).toBe('day-pacing');
  });

  it('are listed with their descriptions', () => {
    const list = listScenarios();
    expect(list.map((s) => s.name)).toEqual(names);
    for (const s of list) expect(s.description.length).toBeGreaterThan(10);
  });
});
