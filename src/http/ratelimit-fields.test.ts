import { describe, expect, it } from 'vitest';
import { ietfFieldNames, ietfTriple, readRateLimitFields } from './ratelimit-fields.js';

const read = (h: Record<string, string>) => readRateLimitFields(h);

describe('the IETF rate-limit fields', () => {
  it("reads draft-11 named policies and limits (as express-rate-limit's draft-8 sends them)", () => {
    const r = read({
      'ratelimit-policy': '"100-in-1min"; q=100; w=60; pk=:ZDM0YjQ=:',
      ratelimit: '"100-in-1min"; r=25; t=5; pk=:ZDM0YjQ=:',
    });
    expect(r).toEqual({
      present: true,
      form: 'draft-11',
      ok: true,
      limits: [{ policy: '100-in-1min', remaining: 25, resetS: 5, quota: null }],
      policies: [{ name: '100-in-1min', quota: 100, windowS: 60 }],
    });
  });

  it('reads several policies, with token names and a quota unit', () => {
    const r = read({
      'ratelimit-policy': 'burst;q=60;w=60, daily;q=1000;w=86400;qu="requests"',
      ratelimit: 'burst;r=59;t=60',
    });
    expect(r.present && r.ok && r.policies.map((p) => [p.name, p.quota, p.windowS])).toEqual([
      ['burst', 60, 60],
      ['daily', 1000, 86400],
    ]);
  });

  it('reads the draft-07 dictionary and its policy list', () => {
    const r = read({ ratelimit: 'limit=100, remaining=25, reset=5', 'ratelimit-policy': '100;w=60' });
    expect(r).toMatchObject({
      form: 'draft-07',
      ok: true,
      limits: [{ quota: 100, remaining: 25, resetS: 5 }],
      policies: [{ quota: 100, windowS: 60 }],
    });
  });

  it('reads the draft-03 separate fields as Envoy sends them, the policies from RateLimit-Limit', () => {
    const r = read({ 'ratelimit-limit': '10, 10;w=1', 'ratelimit-remaining': '9', 'ratelimit-reset': '1' });
    expect(r).toMatchObject({
      form: 'draft-03',
      ok: true,
      limits: [{ quota: 10, remaining: 9, resetS: 1 }],
      policies: [{ quota: 10, windowS: 1 }],
    });
  });

  it.each([
    [{ ratelimit: '"default";t=5' }, 'draft-11', /r of "default" is missing/],
    [{ 'ratelimit-policy': '"default";w=60' }, 'draft-11', /q of "default" is missing/],
    [{ ratelimit: '"default";r=-1' }, 'draft-11', /r of "default" is -1/],
    [{ ratelimit: '"default";r=1.5' }, 'draft-11', /r of "default" is 1.5/],
    [{ ratelimit: '10;r=1' }, 'draft-11', /named by 10, not a string or token/],
    [{ ratelimit: '"a";r=1;;' }, 'draft-11', /not a structured field/],
    [{ ratelimit: 'limit=100, remaining=x' }, 'draft-07', /remaining is the token x/],
    [{ 'ratelimit-limit': '10', 'ratelimit-remaining': '9' }, 'draft-03', /RateLimit-Reset missing/],
  ] as const)('names the form and what is wrong: %j', (h, form, problem) => {
    const r = read(h);
    expect(r).toMatchObject({ present: true, ok: false, form });
    expect(r.present && !r.ok && r.problem).toMatch(problem);
  });

  it('says when there are none, and names the ones there are', () => {
    expect(read({ 'x-ratelimit-limit': '60' })).toEqual({ present: false });
    expect(ietfFieldNames({ ratelimit: '"a";r=1', 'ratelimit-policy': '"a";q=2' })).toEqual([
      'RateLimit',
      'RateLimit-Policy',
    ]);
  });

  it('say what X-RateLimit-* would, for the tightest limit with a quota and a reset, when they are all there is', () => {
    const at = 1_900_000_000_500;
    const h = {
      'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      ratelimit: '"minute";r=10;t=30, "day";r=900;t=3600',
    };
    expect(ietfTriple(h, at)).toEqual({ limit: 60, remaining: 10, reset: 1_900_000_030 });
    expect(ietfTriple({ ratelimit: 'limit=60, remaining=5, reset=20' }, at)).toEqual({
      limit: 60,
      remaining: 5,
      reset: 1_900_000_020,
    });
    // A limit whose quota is not said (no policy field), or fields that are not well formed: nothing to follow.
    expect(ietfTriple({ ratelimit: '"minute";r=10;t=30' }, at)).toBeNull();
    expect(ietfTriple({ ratelimit: '"minute";t=30' }, at)).toBeNull();
  });
});
