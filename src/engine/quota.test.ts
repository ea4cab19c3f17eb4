import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { buildExchange, FIXED_NOW_S, rateLimitHeaders } from '../testing/exchange-builder.js';
import type { Estimate } from './estimate.js';
import { decideQuota, readDayQuota, type DayQuota } from './quota.js';

const [free, pro] = parseKeys(
  {
    keys: [
      { key: 'quota-free-0123456789', plan: 'free' },
      { key: 'quota-pro-0123456789', plan: 'pro' },
    ],
  },
  'test',
);

describe('readDayQuota', () => {
  it('reads Remaining when the headers describe the day window', () => {
    const ex = buildExchange({ headers: rateLimitHeaders(1000, 412, FIXED_NOW_S + 3600) });
    expect(readDayQuota(free!, ex)).toEqual({ key: free!.label, plan: 'free', perDay: 1000, remaining: 412 });
  });

  it('says the day is unknown when the headers describe the minute window', () => {
    const q = readDayQuota(free!, buildExchange({ headers: rateLimitHeaders(60, 59, FIXED_NOW_S + 30) }));
    expect(q.remaining).toBeNull();
    expect(q.unknownBecause).toBe('its rate-limit headers describe the minute window');
  });

  it.each([
    [
      'no headers',
      { 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined },
    ],
    ['a Limit of neither window', rateLimitHeaders(77, 5, FIXED_NOW_S + 30)],
    ['a malformed Remaining', rateLimitHeaders(1000, 'lots', FIXED_NOW_S + 30)],
  ])('says the day is unknown with %s', (_what, headers) => {
    const q = readDayQuota(free!, buildExchange({ headers }));
    expect(q.remaining).toBeNull();
    expect(q.unknownBecause).toBe('its rate-limit headers do not describe the day window');
  });

  it('says the day is unknown when nothing came back', () => {
    const q = readDayQuota(
      free!,
      buildExchange({ status: null, error: { kind: 'reset', message: 'reset' }, headers: {} }),
    );
    expect(q.unknownBecause).toBe('no response (reset)');
  });
});

const estimate = (plans: [string, number][]): Pick<Estimate, 'plans' | 'unkeyed' | 'total' | 'unbounded'> => ({
  plans: plans.map(([plan, total]) => ({ plan: plan as 'free', probes: 0, load: total, total })),
  unkeyed: 1,
  total: plans.reduce((s, [, t]) => s + t, 1),
  unbounded: [],
});
const known = (remaining: number, key = free!): DayQuota => ({
  key: key.label,
  plan: key.plan,
  perDay: key.limits.perDay,
  remaining,
});
const unknown = (key = free!): DayQuota => ({
  key: key.label,
  plan: key.plan,
  perDay: key.limits.perDay,
  remaining: null,
  unknownBecause: 'its rate-limit headers describe the minute window',
});

describe('decideQuota', () => {
  it('goes ahead when the estimate fits what is left, with a line per key', () => {
    const d = decideQuota(
      estimate([
        ['free', 400],
        ['pro', 9000],
      ]),
      [known(412), known(9500, pro)],
      false,
    );
    expect(d.proceed).toBe(true);
    expect(d.lines).toEqual([
      `${free!.label}: 412 of 1,000 requests left today`,
      `${pro!.label}: 9,500 of 10,000 requests left today`,
    ]);
  });

  it('stops when a plan needs more than its keys have left, naming the plan and the figures', () => {
    const d = decideQuota(
      estimate([
        ['free', 413],
        ['pro', 10],
      ]),
      [known(412), known(9500, pro)],
      false,
    );
    expect(d.proceed).toBe(false);
    expect(d.problem).toBe(
      "the run would use up a key's daily quota: free needs 413 requests, more than the 412 left today on its key",
    );
  });

  it('adds up what the keys of a plan have left', () => {
    const other = parseKeys({ keys: [{ key: 'quota-free-2-0123456789', plan: 'free' }] }, 'test')[0]!;
    expect(decideQuota(estimate([['free', 700]]), [known(400), known(300, other)], false).proceed).toBe(true);
    expect(decideQuota(estimate([['free', 701]]), [known(400), known(300, other)], false).proceed).toBe(false);
  });

  it('goes ahead with --allow-quota-exhaustion, saying what it goes ahead despite', () => {
    const d = decideQuota(estimate([['free', 2000]]), [known(10)], true);
    expect(d.proceed).toBe(true);
    expect(d.lines.at(-1)).toMatch(
      /^going ahead anyway \(--allow-quota-exhaustion\): the run would use up a key's daily quota: free needs 2,000/,
    );
  });

  it('counts an unknown day at its whole quota: a run that cannot fit even then stops', () => {
    const d = decideQuota(estimate([['free', 1001]]), [unknown()], false);
    expect(d.proceed).toBe(false);
    expect(d.problem).toMatch(/free needs 1,001 requests, more than at most 1,000 left today on its key/);
    expect(d.lines[0]).toBe(
      `${free!.label}: today's remaining quota is unknown (its rate-limit headers describe the minute window)`,
    );
  });

  it('goes ahead when only an unknown day stands between the run and the limit, and says so', () => {
    const d = decideQuota(estimate([['free', 500]]), [unknown()], false);
    expect(d.proceed).toBe(true);
    expect(d.lines.at(-1)).toBe(
      'free: whether the keys have the 500 more requests the run needs left today is unknown',
    );
  });

  it('stops an unbounded run on a key whose day is known', () => {
    const d = decideQuota(estimate([['free', Number.POSITIVE_INFINITY]]), [known(1000)], false);
    expect(d.proceed).toBe(false);
    expect(d.problem).toMatch(/free needs unbounded requests/);
  });

  it('ignores plans that send nothing', () => {
    expect(decideQuota(estimate([['free', 0]]), [known(0)], false).proceed).toBe(true);
  });
});
