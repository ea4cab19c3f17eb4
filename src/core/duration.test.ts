import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['250ms', 250],
    ['1.5s', 1500],
    ['3m', 180_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1m30s', 90_000],
    ['1h0m5s', 3_605_000],
    ['1d12h', 129_600_000],
    ['2s500ms', 2500],
    ['0s', 0],
    ['0.5ms', 0.5],
    ['  30s ', 30_000],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  const EXPECTED = 'expected a duration such as 250ms, 1.5s, 3m, 1m30s, 2h or 1d, found';
  it.each([
    ['', `${EXPECTED} "" (it is empty)`],
    ['30', `${EXPECTED} "30" (a unit is needed: did you mean "30s"?)`],
    ['3min', `${EXPECTED} "3min" (unknown unit "min"; units are d, h, m, s, ms: did you mean "3m"?)`],
    ['1min30s', `${EXPECTED} "1min30s" (unknown unit "min"; units are d, h, m, s, ms: did you mean "1m30s"?)`],
    ['10 seconds', `${EXPECTED} "10 seconds"`],
    ['10seconds', `${EXPECTED} "10seconds" (unknown unit "seconds"; units are d, h, m, s, ms: did you mean "10s"?)`],
    ['5S', `${EXPECTED} "5S" (unknown unit "S"; units are d, h, m, s, ms: did you mean "5s"?)`],
    ['2w', `${EXPECTED} "2w" (unknown unit "w"; units are d, h, m, s, ms)`],
    ['-5s', `${EXPECTED} "-5s" (a duration cannot be negative)`],
    ['30s1m', `${EXPECTED} "30s1m" (units go from the largest to the smallest, each at most once)`],
    ['1m1m', `${EXPECTED} "1m1m" (units go from the largest to the smallest, each at most once)`],
    ['1m30', `${EXPECTED} "1m30" ("30" has no unit)`],
    ['1.5.5s', `${EXPECTED} "1.5.5s"`],
    ['s', `${EXPECTED} "s"`],
    ['.5s', `${EXPECTED} ".5s"`],
    [`${'9'.repeat(20)}d`, `${EXPECTED} "${'9'.repeat(20)}d" (too long)`],
  ])('%j is refused: %s', (text, message) => {
    expect(() => parseDuration(text)).toThrow(new Error(message));
  });
});
