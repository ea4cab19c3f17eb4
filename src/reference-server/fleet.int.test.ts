/** The reference server's compliant fleet (`instances`) and sliding log (`minuteLimiter`), over real loopback HTTP. */
import { afterEach, describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { createReferenceServer, type ReferenceServer } from './index.js';
import { call, makeKey, manualClock, rate } from './test-client.js';

const T0 = Date.UTC(2031, 4, 1, 10, 0, 0) + 400;
const free = makeKey('free-key-aaaa', 'free', PLANS.free);

const servers: ReferenceServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('a fleet over one shared counter (instances)', () => {
  it('counts every answer on the one counter; the instances tell Date and Reset a second apart, in turn', async () => {
    const s = await createReferenceServer({ keys: [free], clock: manualClock(T0), instances: 2 });
    servers.push(s);
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(rate(await call(s.url, '/pets?limit=1', { auth: free })));
    expect(replies.map((r) => r.remaining)).toEqual([59, 58, 57, 56]);
    const [a, b] = replies as [ReturnType<typeof rate>, ReturnType<typeof rate>];
    expect([b.date - a.date, b.reset - a.reset]).toEqual([1, 1]);
    expect(replies[2]).toMatchObject({ date: a.date, reset: a.reset });
  });

  it('keeps the limit for the fleet: the figure accepted, then 429 from every instance', async () => {
    const s = await createReferenceServer({ keys: [free], clock: manualClock(T0), instances: 3 });
    servers.push(s);
    const statuses: number[] = [];
    for (let i = 0; i < 63; i++) statuses.push((await call(s.url, '/pets?limit=1', { auth: free })).status);
    expect(statuses.filter((x) => x === 200).length).toBe(60);
    expect(statuses.slice(60)).toEqual([429, 429, 429]);
  });
});

describe('a sliding log for the minute (minuteLimiter)', () => {
  it('moves Reset forward with each request and frees a place as the oldest request slides out', async () => {
    const clock = manualClock(T0);
    const key = makeKey('enterprise-key-eeee', 'enterprise', { perMinute: 2, perDay: 100 });
    const s = await createReferenceServer({ keys: [key], clock, minuteLimiter: 'sliding-log' });
    servers.push(s);
    const first = rate(await call(s.url, '/pets?limit=1', { auth: key }));
    clock.advance(3000);
    const second = rate(await call(s.url, '/pets?limit=1', { auth: key }));
    expect([first.remaining, second.remaining, second.reset - first.reset]).toEqual([1, 0, 3]);
    const refused = await call(s.url, '/pets?limit=1', { auth: key });
    expect(refused.status).toBe(429);
    // Until the first request slides out, 57 s on; Reset is when the whole log has drained.
    expect(rate(refused)).toMatchObject({ retryAfter: 57, reset: second.reset });
    clock.advance(57_000);
    expect(rate(await call(s.url, '/pets?limit=1', { auth: key })).remaining).toBe(0);
  });
});
