import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { createClock, type Clock } from '../core/clock.js';
import { isPetloadError } from '../core/errors.js';
import { runLoad } from '../executors/run-load.js';
import { headerValue, type Exchange } from '../http/exchange.js';
import { makeKey } from '../reference-server/test-client.js';
import {
  createTestLoadContext,
  parseLoad,
  startLoadTarget,
  type LoadTarget,
  type TestLoadContext,
} from '../testing/load-context.js';

const freeA = makeKey('free-key-aaaa', 'free', PLANS.free);
const freeB = makeKey('free-key-bbbb', 'free', PLANS.free);

const SCALE = 60;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function target(keys: (typeof freeA)[], options: Parameters<typeof startLoadTarget>[2]): Promise<LoadTarget> {
  const t = await startLoadTarget(keys, SCALE, options);
  stops.push(() => t.stop());
  return t;
}

/**
 * Requests sent on a key after a 429 on it was received and before its Retry-After had run out. A request
 * the client had already started when the 429 arrived may reach the socket a moment later: like
 * backoff.respects-retry-after, allow 2 real ms (SCALE * 2 run-clock ms) for it.
 */
function sentInsideRetryAfter(exchanges: readonly Exchange[]): Exchange[] {
  const inside: Exchange[] = [];
  for (const refusal of exchanges.filter((ex) => ex.status === 429)) {
    const from = refusal.timing.done + 2 * SCALE;
    const until = refusal.timing.done + Number(headerValue(refusal.headers, 'retry-after')) * 1000;
    for (const ex of exchanges) {
      if (ex.keyLabel === refusal.keyLabel && ex.timing.sent > from && ex.timing.sent < until) inside.push(ex);
    }
  }
  return inside;
}

const bodyCode = (ex: Exchange) =>
  ex.body.kind === 'json' ? (ex.body.value as { code?: unknown } | null)?.code : undefined;

function expectNoBan(t: TestLoadContext, phase: string): void {
  expect(t.exchanges.some((ex) => bodyCode(ex) === 'key_banned')).toBe(false);
  expect(sentInsideRetryAfter(t.exchanges)).toEqual([]);
  const outcome = (id: string) => t.ledger.all().find((o) => o.id === id && o.plan === 'free');
  expect(outcome('backoff.respects-retry-after')?.failed).toBe(0);
  expect(outcome('backoff.no-ban')).toMatchObject({ passed: 1, failed: 0 });
  const info = outcome('backoff.no-ban')!.info[phase] as { throughput: string; maxAcceptedInAMinuteWindow: number };
  expect(info.throughput).toMatch(/^\d+ accepted, at least \d+ expected/);
  expect(info.maxAcceptedInAMinuteWindow).toBeLessThanOrEqual(60);
}

describe('backoff at 150% of the plan', () => {
  it('gets no ban from a strict ban rule when Retry-After is too short: it waits for Reset', async () => {
    // remaining-off-by-one makes each window end with a 429 (Remaining never shows 0), whose Retry-After is too short.
    const t = await target([freeA], {
      faults: ['retry-after-short', 'remaining-off-by-one'],
      banThreshold: 1,
      banGraceMs: 20,
    });
    const outcome = await runLoad(
      t.ctx,
      parseLoad({ mix: { listPets: 1 }, phases: [{ executor: 'constant-rate', rate: '150%', duration: '3m' }] }),
    );
    const counts = outcome.phases[0]!.plans[0]!;
    expect(outcome.suspectedBans).toEqual([]);
    expect(t.exchanges.filter((ex) => ex.status === 429).length).toBeGreaterThanOrEqual(2);
    // 90 arrivals a minute for three minutes; about 60 a window accepted (expectNoBan: never more), the rest held
    // back while the key waits.
    expect(counts.planned).toBe(270);
    expect(counts.accepted).toBeGreaterThanOrEqual(150);
    expect(counts.heldBack).toBeGreaterThan(60);
    // A send is a request that reached the wire (one the client cancelled unsent is held back, not sent), and
    // every arrival is accounted for once.
    expect(counts.sent).toBe(t.exchanges.length);
    expect(counts.sent - counts.retries + counts.heldBack + counts.dropped).toBe(counts.planned);
    expectNoBan(t, 'phase 1 (constant-rate)');
  });

  it('meets the end of the quota with one request at a time in a closed model, whatever Remaining says', async () => {
    // Remaining one too high lets one request per window through to a 429; it must not take a herd with it.
    const t = await target([freeA], {
      faults: ['retry-after-short', 'remaining-off-by-one'],
      banThreshold: 0,
      banGraceMs: 20,
    });
    const outcome = await runLoad(
      t.ctx,
      parseLoad({ mix: { listPets: 1 }, phases: [{ executor: 'concurrency', workers: 4, duration: '2m' }] }),
    );
    const counts = outcome.phases[0]!.plans[0]!;
    expect(outcome.suspectedBans).toEqual([]);
    // One 429 per window whose quota was met, never a herd: the refusals, grouped by the window their Reset names.
    // (How many windows the four workers fill depends on the machine's speed; at least one always is.)
    const refusals = t.exchanges.filter((ex) => ex.status === 429);
    const perWindow = new Map<string, number>();
    for (const ex of refusals) {
      const w = headerValue(ex.headers, 'x-ratelimit-reset') ?? '?';
      perWindow.set(w, (perWindow.get(w) ?? 0) + 1);
    }
    expect(counts.refused).toBe(refusals.length);
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(
      [...perWindow.values()].every((n) => n === 1),
      JSON.stringify([...perWindow]),
    ).toBe(true);
    expectNoBan(t, 'phase 1 (concurrency)');
  });

  it('shares the plan over its keys round-robin and holds back only when both wait', async () => {
    const t = await target([freeA, freeB], { banThreshold: 0, banGraceMs: 20 });
    const outcome = await runLoad(
      t.ctx,
      parseLoad({ phases: [{ executor: 'constant-rate', rate: '150%', duration: '3m' }] }),
    );
    const counts = outcome.phases[0]!.plans[0]!;
    // A share of the plan is per key: 90 a minute on each of the two keys.
    expect(counts.planned).toBe(540);
    const perKey = [freeA, freeB].map((k) => t.exchanges.filter((ex) => ex.keyLabel === k.label).length);
    expect(Math.abs(perKey[0]! - perKey[1]!)).toBeLessThanOrEqual(perKey[0]! / 10);
    expectNoBan(t, 'phase 1 (constant-rate)');
  });
});

/** A target that refuses every request of `refused` (429, Retry-After 1 s, Remaining 0) and accepts the others. */
async function refusingTarget(clock: Clock, refused: string): Promise<string> {
  const server: Server = createServer((req, res) => {
    const now = clock.now();
    const headers = {
      'content-type': 'application/json',
      date: new Date(now).toUTCString(),
      'x-ratelimit-limit': '60',
      'x-ratelimit-reset': String(Math.ceil(now / 1000) + 1),
    };
    if (req.headers.authorization === `Bearer ${refused}`) {
      res.writeHead(429, { ...headers, 'x-ratelimit-remaining': '0', 'retry-after': '1' });
      res.end('{"code":"rate_limited","message":"slow down","status":429}');
    } else {
      res.writeHead(200, { ...headers, 'x-ratelimit-remaining': '59' });
      res.end('[]');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('a key still refused after Retry-After and Reset', () => {
  const load = parseLoad({
    mix: { listPets: 1 },
    phases: [{ executor: 'constant-rate', rate: '2/s', duration: '1m' }],
  });

  it('is suspected banned: one log line, no more traffic on it, the other key carries on', async () => {
    const clock = createClock(SCALE);
    const baseUrl = await refusingTarget(clock, freeA.secret);
    const t = createTestLoadContext({ baseUrl, keys: [freeA, freeB], clock });
    stops.push(() => t.close());
    const outcome = await runLoad(t.ctx, load);
    expect(outcome.suspectedBans).toEqual([freeA.label]);
    expect(t.keyStates.get(freeA).suspectedBan).toBe(true);
    expect(t.logs.filter((l) => l.includes('suspected banned'))).toHaveLength(1);
    const onA = t.exchanges.filter((ex) => ex.keyLabel === freeA.label);
    // The answer that raised the suspicion is the last one completed when the line was written (the policy hears
    // of an answer before any later one completes). Nothing is sent on the key after it; a request already on its
    // way then (two in flight on a slow machine) is not traffic after the suspicion.
    const line = t.logged.find((l) => l.line.includes('suspected banned'))!;
    const banning = t.exchanges[line.afterExchanges - 1]!;
    expect(banning.keyLabel).toBe(freeA.label);
    expect(onA.filter((ex) => ex.timing.sent > banning.timing.done)).toEqual([]);
    expect(onA.length).toBeLessThan(6);
    expect(t.exchanges.filter((ex) => ex.keyLabel === freeB.label).length).toBeGreaterThan(100);
    const noBan = t.ledger.all().find((o) => o.id === 'backoff.no-ban' && o.plan === 'free')!;
    expect(noBan.failed).toBe(1);
    expect(noBan.evidence[0]!.message).toContain(`key ${freeA.label} suspected banned`);
    expect(JSON.stringify(noBan)).not.toContain(freeA.secret);
  });

  it('aborts the load with E_KEY_BANNED when no key is left', async () => {
    const clock = createClock(SCALE);
    const baseUrl = await refusingTarget(clock, freeA.secret);
    const t = createTestLoadContext({ baseUrl, keys: [freeA], clock });
    stops.push(() => t.close());
    const error = await runLoad(t.ctx, load).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isPetloadError(error) && error.code).toBe('E_KEY_BANNED');
    expect((error as Error).message).toContain(freeA.label);
    expect((error as Error).message).not.toContain(freeA.secret);
    expect(t.ledger.all().find((o) => o.id === 'backoff.no-ban')?.failed).toBe(1);
  });
});
