/**
 * window.ts's exhaust against a scripted loopback target, on the probes' real context
 * (src/testing/probe-harness.ts withProbeContext): eight at a time then the sequential tail, strictly one at a time,
 * the overshoot past the cap, the first request given, a refused first request, a count that outlives its minute
 * (stopped, or not), a limiter restarting a minute on, and a request with no answer.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ProbeContext } from './context.js';
import { cheapList } from './context.js';
import { LOOPBACK_IN_FLIGHT } from './in-flight.js';
import { type Exhaustion, type ExhaustOptions, exhaust } from './window.js';
import {
  type Answer,
  figuresKey,
  fixedWindow,
  type Received,
  type Script,
  withProbeContext,
} from '../testing/probe-harness.js';

const key = figuresKey('free', 1, { perMinute: 20, perDay: 1000 });

/** The script, counting how many requests it held at once (each answer held `holdMs` real ms). */
function measured(script: Script, holdMs = 2) {
  let inFlight = 0;
  const seen = { most: 0 };
  const s: Script = async (r) => {
    seen.most = Math.max(seen.most, ++inFlight);
    await sleep(holdMs);
    inFlight--;
    return script(r);
  };
  return Object.assign(s, { seen });
}

async function exhausted(
  script: Script,
  cap: number | ((first: ReturnType<ProbeContext['send']> extends Promise<infer E> ? E : never) => number),
  opts: (ctx: ProbeContext) => Promise<ExhaustOptions> | ExhaustOptions = () => ({}),
): Promise<{ run: Exhaustion; received: readonly Received[] }> {
  let run: Exhaustion | null = null;
  const { received } = await withProbeContext({ keys: [key], script }, async (ctx) => {
    run = await exhaust(ctx, key, 'test', cap, await opts(ctx));
  });
  return { run: run!, received };
}

describe('exhaust', () => {
  // Eight in flight, as on loopback (in-flight.test.ts holds the sizing from the round trip: on a busy machine the
  // round trip measured here can pass 4 ms, and the default would rightly keep more in flight).
  it('a window of 20: 12 eight at a time, then the tail one by one, up to the 429', async () => {
    const s = measured(fixedWindow([key]));
    const { run, received } = await exhausted(s, 20, () => ({ parallel: LOOPBACK_IN_FLIGHT }));
    expect(run).toMatchObject({ accepted: 20, rolledOver: false, lost: null, concurrent: true });
    expect(run.refusal?.status).toBe(429);
    expect(received).toHaveLength(21);
    expect(s.seen.most).toBeGreaterThan(1);
    expect(s.seen.most).toBeLessThanOrEqual(8);
  });

  it('parallel 1: strictly one after another', async () => {
    const s = measured(fixedWindow([key]));
    const { run } = await exhausted(s, 20, () => ({ parallel: 1 }));
    expect(run).toMatchObject({ accepted: 20, concurrent: false });
    expect(s.seen.most).toBe(1);
  });

  it('a window that never refuses: the cap and the overshoot of 8 accepted, then it stops', async () => {
    const { run, received } = await exhausted(fixedWindow([key], { limit: () => 1000, announced: () => 20 }), 20);
    expect(run).toMatchObject({ accepted: 29, refusal: null, rolledOver: false });
    expect(received).toHaveLength(29);
  });

  it('the cap read from the first answer, which is given and not sent again', async () => {
    const { run, received } = await exhausted(
      fixedWindow([key], { limit: () => 5 }),
      (first) => Number(first.headers['x-ratelimit-limit']),
      async (ctx) => ({ first: await ctx.send(cheapList(key, 'test')) }),
    );
    expect(run).toMatchObject({ accepted: 5, concurrent: false });
    expect(received).toHaveLength(6);
  });

  it('a first answer refused: nothing more is sent', async () => {
    const refused: Script = () => ({ status: 429, headers: { 'Retry-After': '30' } });
    const { run, received } = await exhausted(refused, 20);
    expect(run).toMatchObject({ accepted: 0, concurrent: false });
    expect(run.refusal?.status).toBe(429);
    expect(received).toHaveLength(1);
  });

  it('answers too slow for a minute: rolled over; with stopOnRollover it stops at the minute', async () => {
    const limiter = fixedWindow([key], { limit: () => 1000, announced: () => 20 });
    const slow: Script = async (r) => {
      await sleep(150); // 9 s of the run clock
      return limiter(r);
    };
    const plain = await exhausted(slow, 8, () => ({ parallel: 1 }));
    expect(plain.run).toMatchObject({ rolledOver: true, refusal: null });
    expect(plain.received).toHaveLength(17);
    const stopped = await exhausted(slow, 8, () => ({ parallel: 1, stopOnRollover: true }));
    expect(stopped.run.rolledOver).toBe(true);
    expect(stopped.received.length).toBeLessThan(10);
  });

  it('a limiter that restarts a minute on, with as much left: rolled over', async () => {
    const limiter = fixedWindow([key], { limit: () => 5 });
    let n = 0;
    const restarting: Script = (r): Answer => {
      const a = limiter(r);
      if (++n !== 4) return a;
      const reset = Number(a.headers!['X-RateLimit-Reset']) + 60;
      return { ...a, headers: { ...a.headers, 'X-RateLimit-Remaining': '4', 'X-RateLimit-Reset': String(reset) } };
    };
    const { run } = await exhausted(restarting, 5, () => ({ parallel: 1 }));
    expect(run.rolledOver).toBe(true);
    expect(run.accepted).toBe(5);
  });

  it('a request with no answer: the count is lost, and it ends the sequence', async () => {
    const limiter = fixedWindow([key]);
    const { run, received } = await exhausted((r) => (r.n === 3 ? { status: 200, drop: true } : limiter(r)), 5);
    expect(run.lost?.status).toBeNull();
    expect(run.refusal).toBe(run.lost);
    expect(received).toHaveLength(3);
  });
});
