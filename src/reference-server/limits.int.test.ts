import { afterEach, describe, expect, it } from 'vitest';
import { ErrorBody } from '../api/schemas.js';
import { PLANS } from '../api/plans.js';
import { createReferenceServer, type ReferenceServer, type ReferenceServerOptions } from './index.js';
import { call, makeKey, manualClock, rate, type Reply } from './test-client.js';

const T0 = Date.UTC(2031, 4, 1, 10, 0, 0) + 400;
const servers: ReferenceServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: ReferenceServerOptions): Promise<ReferenceServer> {
  const s = await createReferenceServer(options);
  servers.push(s);
  return s;
}

const freeA = makeKey('free-key-aaaa', 'free', PLANS.free);
const freeB = makeKey('free-key-bbbb', 'free', PLANS.free);
const pro = makeKey('pro-key-cccc', 'pro', PLANS.pro);
const business = makeKey('business-key-dddd', 'business', PLANS.business);
const ent = makeKey('enterprise-key-eeee', 'enterprise', { perMinute: 5, perDay: 8 });

function expectRefusal(r: Reply, code: 'rate_limited' | 'key_banned'): number {
  expect(r.status).toBe(429);
  expect(ErrorBody.parse(r.json)).toMatchObject({ code, status: 429 });
  const { retryAfter, reset, date } = rate(r);
  expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(reset - date + 1);
  return retryAfter;
}

describe('rate limits on a scaled clock', () => {
  it('counts down from Limit-1, refuses the 61st request, and restores the quota after Retry-After', async () => {
    // A minute of 3 real seconds: the 60 sequential requests fit in the window they start in on a busy machine too.
    const s = await start({ keys: [freeA], timeScale: 20 });
    const first = rate(await call(s.url, '/pets', { auth: freeA }));
    expect(first).toMatchObject({ limit: 60, remaining: 59 });
    expect(first.reset).toBeGreaterThanOrEqual(first.date);
    expect(first.reset).toBeLessThanOrEqual(first.date + 60);
    for (let i = 2; i <= 60; i++) {
      const r = rate(await call(s.url, '/pets', { auth: freeA }));
      expect(r).toMatchObject({ limit: 60, remaining: 60 - i, reset: first.reset });
    }
    const refused = await call(s.url, '/pets', { auth: freeA });
    const wait = expectRefusal(refused, 'rate_limited');
    expect(rate(refused)).toMatchObject({ limit: 60, remaining: 0, reset: first.reset });
    await s.clock.sleep(wait * 1000 + 250);
    const again = rate(await call(s.url, '/pets', { auth: freeA }));
    expect(again.limit).toBe(60);
    expect(again.remaining).toBe(59);
    expect(again.reset).toBeGreaterThanOrEqual(first.reset + 60);
  });
});

describe('rate limits (manual clock)', () => {
  it('shows each plan its own figures, enterprise from the key', async () => {
    const s = await start({ keys: [freeA, pro, business, ent], clock: manualClock(T0), windowReport: 'minute' });
    const limits = [];
    for (const k of [freeA, pro, business, ent]) limits.push(rate(await call(s.url, '/pets', { auth: k })).limit);
    expect(limits).toEqual([60, 300, 1000, 5]);
    const day = await start({ keys: [freeA, ent], clock: manualClock(T0), windowReport: 'day' });
    expect(rate(await call(day.url, '/pets', { auth: freeA })).limit).toBe(1000);
    expect(rate(await call(day.url, '/pets', { auth: ent })).limit).toBe(8);
  });

  it('keeps keys isolated', async () => {
    const s = await start({ keys: [freeA, freeB, pro], clock: manualClock(T0) });
    for (let i = 0; i < 60; i++) await call(s.url, '/pets', { auth: freeA });
    expectRefusal(await call(s.url, '/pets', { auth: freeA }), 'rate_limited');
    expect(rate(await call(s.url, '/pets', { auth: freeB }))).toMatchObject({ limit: 60, remaining: 59 });
    expect(rate(await call(s.url, '/pets', { auth: pro }))).toMatchObject({ limit: 300, remaining: 299 });
  });

  it('refuses on the day window until the day ends, with headers describing the day', async () => {
    for (const windowReport of ['tightest', 'minute', 'day'] as const) {
      const clock = manualClock(T0);
      const s = await start({ keys: [ent], clock, windowReport });
      for (let i = 0; i < 5; i++) expect((await call(s.url, '/pets', { auth: ent })).status).toBe(200);
      expectRefusal(await call(s.url, '/pets', { auth: ent }), 'rate_limited');
      clock.advance(60_000);
      for (let i = 0; i < 3; i++) expect((await call(s.url, '/pets', { auth: ent })).status).toBe(200);
      const refused = await call(s.url, '/pets', { auth: ent });
      const wait = expectRefusal(refused, 'rate_limited');
      const dayEnd = (T0 - 400) / 1000 + 86_400;
      expect(rate(refused)).toMatchObject({ limit: 8, remaining: 0, reset: dayEnd });
      expect(wait).toBe(86_400 - 60);
      clock.advance(wait * 1000);
      expect((await call(s.url, '/pets', { auth: ent })).status).toBe(200);
    }
  });

  it('windowReport picks the window the headers describe', async () => {
    const seen: Record<string, number[]> = {};
    for (const windowReport of ['tightest', 'minute', 'day'] as const) {
      const clock = manualClock(T0);
      const s = await start({ keys: [ent], clock, windowReport });
      const limits: number[] = [];
      for (let i = 0; i < 5; i++) limits.push(rate(await call(s.url, '/pets', { auth: ent })).limit);
      clock.advance(60_000);
      // Minute 2: 5 left in the minute, 3 in the day.
      limits.push(rate(await call(s.url, '/pets', { auth: ent })).limit);
      seen[windowReport] = limits;
    }
    expect(seen).toEqual({ tightest: [5, 5, 5, 5, 5, 8], minute: [5, 5, 5, 5, 5, 5], day: [8, 8, 8, 8, 8, 8] });
  });

  it('windowReport=day answers a minute refusal with the day window, quota left in it', async () => {
    const s = await start({ keys: [freeA], clock: manualClock(T0), windowReport: 'day' });
    for (let i = 0; i < 60; i++) await call(s.url, '/pets', { auth: freeA });
    const refused = await call(s.url, '/pets', { auth: freeA });
    expectRefusal(refused, 'rate_limited');
    expect(rate(refused)).toMatchObject({ limit: 1000, remaining: 940 });
  });

  it.each([false, true])(
    'with countErrors=%s, 4xx answers consume quota only when counted; 401 and 429 never do',
    async (countErrors) => {
      const clock = manualClock(T0);
      const s = await start({ keys: [ent, pro], clock, windowReport: 'minute', countErrors });
      const remaining = async (path: string, init: Parameters<typeof call>[2] = {}) => {
        const r = await call(s.url, path, { auth: pro, ...init });
        return [r.status, rate(r).remaining];
      };
      const steps = [
        await remaining('/pets'),
        await remaining('/pets?limit=0'),
        await remaining('/pets/999999'),
        await remaining('/nowhere'),
        await remaining('/pets', { method: 'DELETE' }),
        await remaining('/pets', { method: 'POST', body: '{"name":1}' }),
        await remaining('/pets', { method: 'POST', body: 'x'.repeat(70_000) }),
        await remaining('/pets'),
      ];
      const n = countErrors ? 1 : 0;
      expect(steps).toEqual([
        [200, 299],
        [400, 299 - n],
        [404, 299 - 2 * n],
        [404, 299 - 3 * n],
        [405, 299 - 4 * n],
        [400, 299 - 5 * n],
        [413, 299 - 6 * n],
        [200, 298 - 6 * n],
      ]);
      // 5 accepted, then 3 refusals and 3 near-miss keys: had those counted, the day's 8 would be spent.
      for (let i = 0; i < 5; i++) await call(s.url, '/pets', { auth: ent });
      for (let i = 0; i < 3; i++) expect((await call(s.url, '/pets', { auth: ent })).status).toBe(429);
      for (let i = 0; i < 3; i++)
        expect((await call(s.url, '/pets', { auth: { header: 'Bearer enterprise-key-eeeX' } })).status).toBe(401);
      clock.advance(60_000);
      expect((await call(s.url, '/pets', { auth: ent })).status).toBe(200);
    },
  );

  it('limits requests without a valid key per address with the Free figures, apart from the keys', async () => {
    const s = await start({ keys: [pro], clock: manualClock(T0) });
    for (let i = 0; i < 60; i++)
      expect((await call(s.url, '/pets', { auth: { header: `Bearer nope-${i}` } })).status).toBe(401);
    const refused = await call(s.url, '/pets');
    expectRefusal(refused, 'rate_limited');
    expect(rate(refused)).toMatchObject({ limit: 60, remaining: 0 });
    expect(rate(await call(s.url, '/pets', { auth: pro }))).toMatchObject({ limit: 300, remaining: 299 });
  });
});

describe('ban', () => {
  it('bans a key that keeps sending during Retry-After, for banSeconds, then lets it back', async () => {
    const clock = manualClock(T0);
    const key = makeKey('ban-key-ffff', 'enterprise', { perMinute: 3, perDay: 1000 });
    const s = await start({ keys: [key], clock, windowReport: 'day', banGraceMs: 0 });
    for (let i = 0; i < 3; i++) expect((await call(s.url, '/pets', { auth: key })).status).toBe(200);
    expectRefusal(await call(s.url, '/pets', { auth: key }), 'rate_limited');
    // Default threshold 10: ten more requests during the wait are tolerated, the eleventh bans.
    for (let i = 0; i < 10; i++) expectRefusal(await call(s.url, '/pets', { auth: key }), 'rate_limited');
    const banned = await call(s.url, '/pets', { auth: key });
    expect(expectRefusal(banned, 'key_banned')).toBe(900);
    expect(rate(banned)).toMatchObject({ limit: 1000, remaining: 0, reset: Math.ceil((T0 + 900_000) / 1000) });
    clock.advance(600_000);
    expect(expectRefusal(await call(s.url, '/pets', { auth: key }), 'key_banned')).toBe(300);
    clock.advance(300_000);
    const back = await call(s.url, '/pets', { auth: key });
    expect(back.status).toBe(200);
    // Only the three accepted requests and this one were counted: refusals and the ban count toward nothing.
    expect(rate(back)).toMatchObject({ limit: 1000, remaining: 996 });
  });

  it('honours banThreshold and banSeconds', async () => {
    const clock = manualClock(T0);
    const key = makeKey('ban-key-gggg', 'enterprise', { perMinute: 1, perDay: 1000 });
    const s = await start({ keys: [key], clock, banGraceMs: 0, banThreshold: 2, banSeconds: 120 });
    await call(s.url, '/pets', { auth: key });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push(ErrorBody.parse((await call(s.url, '/pets', { auth: key })).json).code);
    expect(codes).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'key_banned']);
    clock.advance(120_000);
    expect((await call(s.url, '/pets', { auth: key })).status).toBe(200);
  });

  it('never bans a key that waits out every Retry-After', async () => {
    const clock = manualClock(T0);
    const key = makeKey('ban-key-hhhh', 'enterprise', { perMinute: 2, perDay: 100_000 });
    const s = await start({ keys: [key], clock, banGraceMs: 0, banThreshold: 0 });
    for (let round = 0; round < 15; round++) {
      await call(s.url, '/pets', { auth: key });
      await call(s.url, '/pets', { auth: key });
      const wait = expectRefusal(await call(s.url, '/pets', { auth: key }), 'rate_limited');
      clock.advance(wait * 1000);
    }
  });

  it('does not count requests already in flight when the 429 was sent (grace period)', async () => {
    const key = makeKey('ban-key-iiii', 'enterprise', { perMinute: 1, perDay: 1000 });
    const s = await start({ keys: [key], clock: manualClock(T0), banThreshold: 0, banGraceMs: 60_000 });
    await call(s.url, '/pets', { auth: key });
    const codes = await Promise.all(
      Array.from({ length: 20 }, async () => ErrorBody.parse((await call(s.url, '/pets', { auth: key })).json).code),
    );
    expect(new Set(codes)).toEqual(new Set(['rate_limited']));
  });
});
