import { describe, expect, it } from 'vitest';
import { parseRunFlags } from './run-flags.js';
import { parseBanSecondsFlag, parseBanThresholdFlag, parseTimeoutFlag, parseTimeScaleFlag } from './flag-values.js';

describe('--timeout', () => {
  it.each([
    ['1', 1],
    ['10000', 10_000],
    ['600000', 600_000],
  ])('takes %s', (raw, ms) => expect(parseTimeoutFlag(raw)).toBe(ms));
  it.each(['0', '-5', '10s', '1.5', '600001', '', 'abc'])(
    'refuses %j, naming the flag, what it takes and what it found',
    (raw) => {
      expect(() => parseTimeoutFlag(raw)).toThrow(
        `--timeout: expected a whole number of milliseconds from 1 to 600000, such as 10000, found ${JSON.stringify(raw)}`,
      );
    },
  );
});

describe('--time-scale', () => {
  it.each([
    ['1', 1],
    ['0.5', 0.5],
    ['60', 60],
    ['100000', 100_000],
  ])('takes %s', (raw, n) => expect(parseTimeScaleFlag(raw)).toBe(n));
  it.each(['0', '-3', 'fast', '1e3', '100001', ''])('refuses %j', (raw) => {
    expect(() => parseTimeScaleFlag(raw)).toThrow(
      `--time-scale: expected a number above 0 and at most 100000, such as 60, found ${JSON.stringify(raw)}`,
    );
  });
});

describe('--ban-threshold and --ban-seconds', () => {
  it.each([
    ['0', 0],
    ['3', 3],
    ['10000', 10_000],
  ])('--ban-threshold takes %s', (raw, n) => expect(parseBanThresholdFlag(raw)).toBe(n));
  it.each(['-1', '2.5', 'ten', '10001', ''])('--ban-threshold refuses %j', (raw) => {
    expect(() => parseBanThresholdFlag(raw)).toThrow(
      `--ban-threshold: expected a whole number from 0 to 10000, such as 10, found ${JSON.stringify(raw)}`,
    );
  });
  it.each([
    ['120', 120],
    ['0.5', 0.5],
    ['86400', 86_400],
  ])('--ban-seconds takes %s', (raw, n) => expect(parseBanSecondsFlag(raw)).toBe(n));
  it.each(['0', '-5', '15m', '86401', ''])('--ban-seconds refuses %j', (raw) => {
    expect(() => parseBanSecondsFlag(raw)).toThrow(
      `--ban-seconds: expected a number of seconds above 0 and at most 86400, such as 900, found ${JSON.stringify(raw)}`,
    );
  });
});

describe('parseRunFlags: every flag parsed once, typed, at the edge', () => {
  const env = {};
  it("gives the embedded server's settings as its target", () => {
    const flags = parseRunFlags(
      { scenarios: ['compliance'], 'time-scale': '120', fault: ['flaky'], 'count-errors': 'yes', 'ban-seconds': '60' },
      env,
    );
    expect(flags.target).toEqual({
      kind: 'embedded',
      timeScale: 120,
      faults: ['flaky'],
      countErrors: true,
      ban: { seconds: 60 },
    });
    expect(flags.sinks).toEqual({ live: undefined, metricsPort: undefined, metricsHost: undefined, lingerS: 10 });
  });

  it("gives --target's settings as an external target, PETLOAD_TREAT_AS_REMOTE read once", () => {
    const flags = parseRunFlags(
      { scenarios: ['smoke'], target: 'http://127.0.0.1:9/v1', 'allow-quota-exhaustion': true, timeout: '500' },
      { PETLOAD_TREAT_AS_REMOTE: '1' },
    );
    expect(flags.target).toEqual({
      kind: 'external',
      url: 'http://127.0.0.1:9/v1',
      treatAsRemote: true,
      allowQuotaExhaustion: true,
    });
    expect(flags.timeoutMs).toBe(500);
  });

  it("refuses the embedded server's flags with --target, before their values are read", () => {
    expect(() =>
      parseRunFlags({ scenarios: ['smoke'], target: 'http://127.0.0.1:9/v1', 'time-scale': 'fast' }, env),
    ).toThrow('--time-scale applies to the embedded reference server only, not to --target');
  });

  it('refuses a flag given twice with one line naming it', () => {
    expect(() => parseRunFlags({ scenarios: ['smoke'], timeout: ['5', '6'] }, env)).toThrow(
      '--timeout: expected one value, found it given more than once',
    );
  });
});

describe('--check and --probe', () => {
  const parse = (extra: Record<string, unknown>) => parseRunFlags({ scenarios: ['compliance'], ...extra }, {});

  it('give the run its focus, each name once, and none without either flag', () => {
    expect(parse({}).focus).toBeUndefined();
    expect(parse({ check: ['ratelimit.enforced', 'ratelimit.enforced'], probe: ['auth'] }).focus).toEqual({
      checks: ['ratelimit.enforced'],
      probes: ['auth'],
    });
    expect(parse({ probe: ['auth'] }).focus).toEqual({ checks: [], probes: ['auth'] });
  });

  it('refuse an unknown check id or probe name with a did-you-mean (exit 2)', () => {
    expect(() => parse({ check: ['ratelimit.enforce'] })).toThrow(
      '--check: expected a check id (petload list checks), found "ratelimit.enforce" (did you mean "ratelimit.enforced"?)',
    );
    expect(() => parse({ probe: ['auht'] })).toThrow(
      '--probe: expected a probe name (petload list probes), found "auht" (did you mean "auth"?)',
    );
    expect(() => parse({ probe: ['zzzzzzzz'] })).toThrow(
      '--probe: expected a probe name (petload list probes), found "zzzzzzzz"',
    );
    expect(() => parse({ check: ['nope'] })).toThrow(expect.objectContaining({ code: 'E_USAGE', exitCode: 2 }));
  });
});
