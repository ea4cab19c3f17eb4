import { describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { parseRate, resolveRate, type Rate } from './rate.js';

describe('parseRate', () => {
  it.each<[string, Rate]>([
    ['10/s', { kind: 'absolute', perSecond: 10 }],
    ['0.5/s', { kind: 'absolute', perSecond: 0.5 }],
    ['600/min', { kind: 'absolute', perSecond: 10 }],
    ['7200/h', { kind: 'absolute', perSecond: 2 }],
    ['86400/day', { kind: 'absolute', perSecond: 1 }],
    ['10 / s', { kind: 'absolute', perSecond: 10 }],
    ['95%', { kind: 'plan', fraction: 0.95, window: 'minute' }],
    ['150%', { kind: 'plan', fraction: 1.5, window: 'minute' }],
    ['50%/min', { kind: 'plan', fraction: 0.5, window: 'minute' }],
    ['110%/day', { kind: 'plan', fraction: 1.1, window: 'day' }],
  ])('%j', (text, rate) => {
    expect(parseRate(text)).toEqual(rate);
  });

  const EXPECTED =
    'expected a rate such as 10/s, 600/min, 100/h, 1000/day, 95% (of the per-minute limit) or 110%/day, found';
  it.each([
    ['', `${EXPECTED} "" (it is empty)`],
    ['10', `${EXPECTED} "10" (a unit is needed: did you mean "10/s"?)`],
    ['10/sec', `${EXPECTED} "10/sec" (did you mean "10/s"?)`],
    ['10/secs', `${EXPECTED} "10/secs" (did you mean "10/s"?)`],
    ['10/m', `${EXPECTED} "10/m" (did you mean "10/min"?)`],
    ['10/minutes', `${EXPECTED} "10/minutes" (did you mean "10/min"?)`],
    ['10/hour', `${EXPECTED} "10/hour" (did you mean "10/h"?)`],
    ['10/days', `${EXPECTED} "10/days" (did you mean "10/day"?)`],
    ['10/S', `${EXPECTED} "10/S" (did you mean "10/s"?)`],
    ['10/week', `${EXPECTED} "10/week" (the unit is one of s, min, h, day)`],
    ['95%/m', `${EXPECTED} "95%/m" (did you mean "95%/min"?)`],
    ['95%/s', `${EXPECTED} "95%/s" (the unit is one of min, day)`],
    ['0/s', `${EXPECTED} "0/s" (a rate must be above zero)`],
    ['0%', `${EXPECTED} "0%" (a rate must be above zero)`],
    ['-5/s', `${EXPECTED} "-5/s" (a rate cannot be negative)`],
    ['10rps', `${EXPECTED} "10rps"`],
    ['fast', `${EXPECTED} "fast"`],
  ])('%j is refused: %s', (text, message) => {
    expect(() => parseRate(text)).toThrow(new Error(message));
  });
});

describe('resolveRate', () => {
  it.each<[string, keyof typeof PLANS, number]>([
    ['10/s', 'free', 10],
    ['95%', 'free', 0.95],
    ['150%', 'pro', 7.5],
    ['60%/min', 'business', 10],
    ['110%/day', 'free', 1100 / 86_400],
    ['100%/day', 'business', 100_000 / 86_400],
  ])('%j on %s is %d/s', (text, plan, perSecond) => {
    expect(resolveRate(parseRate(text), PLANS[plan])).toBeCloseTo(perSecond, 12);
  });

  it("takes an enterprise plan's figures from its limits", () => {
    expect(resolveRate(parseRate('50%'), { perMinute: 6000, perDay: 1_000_000 })).toBe(50);
  });
});
