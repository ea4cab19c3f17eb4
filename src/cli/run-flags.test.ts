import { describe, expect, it } from 'vitest';
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
