import { describe, expect, it } from 'vitest';
import { PetloadError } from '../core/errors.js';
import { substituteEnv } from './env-subst.js';
import { parseScenarioText } from './load-scenario.js';

describe('substituteEnv', () => {
  const env = { RATE: '10/s', KEYS: '3', EMPTY: '', ON: 'true', TENANT: 'acme' };

  it('substitutes values, with defaults for unset or empty variables, and $$ as a literal $', () => {
    const { value, unset } = substituteEnv(
      {
        a: '${RATE}',
        b: 'tenant-${TENANT}-x',
        c: '${MISSING:-5/s}',
        d: '${EMPTY:-fallback}',
        e: '${EMPTY}',
        f: ['$${RATE}', 'cost $$5'],
        '${RATE}': 'keys are never substituted',
      },
      env,
    );
    expect(value).toEqual({
      a: '10/s',
      b: 'tenant-acme-x',
      c: '5/s',
      d: 'fallback',
      e: '',
      f: ['${RATE}', 'cost $5'],
      '${RATE}': 'keys are never substituted',
    });
    expect(unset).toEqual([]);
  });

  it('gives a value that is one reference to a number or boolean its type, and leaves other text as text', () => {
    const { value } = substituteEnv({ n: '${KEYS}', b: '${ON}', t: 'x${KEYS}', d: '${NOPE:-2.5}' }, env);
    expect(value).toEqual({ n: 3, b: true, t: 'x3', d: 2.5 });
  });

  it('names the path of every unset variable without a default', () => {
    const { unset } = substituteEnv({ load: { phases: [{ rate: '${RATE_X}' }] }, d: '${A} ${B:-b}' }, env);
    expect(unset).toEqual([
      { path: ['load', 'phases', 0, 'rate'], variable: 'RATE_X' },
      { path: ['d'], variable: 'A' },
    ]);
  });

  it('keeps a key named __proto__ a key', () => {
    const input = JSON.parse('{"__proto__": {"x": "${RATE}"}}');
    const { value } = substituteEnv(input, env);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toEqual(['__proto__']);
  });
});

describe('a scenario file with environment variables', () => {
  const text = [
    'name: env',
    'description: d',
    'keysPerPlan: ${KEYS:-1}',
    'load:',
    '  phases:',
    '    - { executor: constant-rate, rate: "${RATE}", duration: 10s }',
  ].join('\n');

  it('is validated after the substitution, so that rate: "${RATE}" works', () => {
    const s = parseScenarioText(text, 'env.yaml', { env: { RATE: '7/s', KEYS: '2' } });
    expect(s.keysPerPlan).toBe(2);
    expect(s.load?.phases[0]).toMatchObject({ executor: 'constant-rate', rate: { perSecond: 7 } });
  });

  it('names the file, the line, the path and the unset variable', () => {
    let error: unknown;
    try {
      parseScenarioText(text, 'env.yaml', { env: {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PetloadError);
    expect((error as PetloadError).message).toContain(
      'env.yaml:6:40 load.phases[0].rate: the environment variable RATE is not set (set it, or give a default: ${RATE:-value})',
    );
  });

  it('refuses a substituted value the schema refuses, as if it were written', () => {
    expect(() => parseScenarioText(text, 'env.yaml', { env: { RATE: 'fast' } })).toThrow(/load\.phases\[0\]\.rate/);
  });
});
