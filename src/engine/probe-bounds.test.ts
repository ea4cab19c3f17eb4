import { describe, expect, it } from 'vitest';
import { Ledger } from '../checks/ledger.js';
import { createClock } from '../core/clock.js';
import type { Exchange } from '../http/exchange.js';
import {
  buildExchange,
  countsOf,
  FIXED_NOW,
  FIXED_NOW_S,
  outcomeOf,
  rateLimitHeaders,
  runFacts,
  testKey,
  type ExchangeParts,
} from '../testing/exchange-builder.js';
import type { RefusalLookup } from './end-cause.js';
import { PROBE_REGISTRY } from '../probes/index.js';
import { PROBE_NAMES, type ProbeName } from '../probes/names.js';
import { attributeEnd, boundProbe, OWN_WAIT_MS, ProbeEnded, probeDesignMs, probeTimeBoundMs } from './probe-bounds.js';
import { MINUTE_MS } from '../api/plans.js';

const at = (sent: number, parts: ExchangeParts = {}) => buildExchange({ timing: { sent, done: sent + 10 }, ...parts });
const refused = (sent: number, parts: ExchangeParts = {}) => at(sent, { status: 429, ...parts });

function bound(probe: ProbeName = 'list', timeBoundMs = 60_000) {
  const ledger = new Ledger();
  const b = boundProbe(PROBE_REGISTRY[probe], {
    clock: createClock(1),
    ledger,
    signal: new AbortController().signal,
    timeBoundMs,
  });
  return { b, ledger, send: (ex: ReturnType<typeof at>) => b.send(async () => ex) };
}

describe('a probe bound', () => {
  it('ends a probe after 3 failures in a row: its waits end, its next send throws, later verdicts become skips', async () => {
    const { b, ledger, send } = bound();
    await send(refused(0));
    await send(at(100, { status: 503 }));
    expect(b.ended()).toBeNull();
    await send(at(200, { status: null, error: { kind: 'timeout', message: 'timed out' } }));
    expect(b.ended()).toBe(
      '3 requests in a row were refused (429) or got a server error or got no answer; the last GET /pets -> no answer (timeout)',
    );
    expect(b.signal.aborted).toBe(true);
    await expect(send(at(300))).rejects.toBeInstanceOf(ProbeEnded);
    b.ledger.fail('list.schema', 'free', 'judged on a sequence cut short');
    b.ledger.pass('list.limit-respected', 'free');
    const late = { ex: refused(0), message: 'refused by the window after the wait' };
    b.ledger.hold('retry-after.honest', 'free', { kind: 'refused-after-wait', count: 1, first: [late] });
    ledger.resolveDeferrals({ countersOf: () => 1, limiterOf: () => 'still' });
    expect(countsOf(ledger, 'retry-after.honest')).toEqual({ passed: 0, failed: 0, skipped: 1 });
    expect(countsOf(ledger, 'list.schema')).toEqual({ passed: 0, failed: 0, skipped: 1 });
    expect(outcomeOf(ledger, 'list.schema')?.skipReasons[0]).toMatch(/^not judged: the probe ended early \(3 requests/);
    expect(countsOf(ledger, 'list.limit-respected').passed).toBe(0);
    b.dispose();
  });

  it('counts a herd in flight together as one failure, and an answer sent after the last failure ends the streak', async () => {
    const { b, send } = bound();
    // Eight sent together at 0, all refused: one failure.
    for (let i = 0; i < 8; i++) await send(refused(i));
    await send(refused(100));
    await send(at(200));
    await send(refused(300));
    await send(refused(400));
    expect(b.ended()).toBeNull();
    b.dispose();
  });

  it('counts no knock, and no refusal for the ban probe', async () => {
    const { b, send } = bound('ban');
    for (let i = 0; i < 5; i++) await send(refused(i * 100));
    for (let i = 5; i < 10; i++) await send(refused(i * 100, { intent: 'knock', status: 503 }));
    expect(b.ended()).toBeNull();
    b.dispose();
  });

  it('counts no refusal for the probes whose needs say refusals are their business, and server errors for all', async () => {
    const expecting = PROBE_NAMES.filter((p) => PROBE_REGISTRY[p].needs.expectsRefusals === true);
    expect(expecting.sort()).toEqual(['ban', 'plan-audit', 'restore', 'retry-after-honest']);
    for (const p of expecting) {
      const { b, send } = bound(p);
      for (let i = 0; i < 3; i++) await send(refused(i * 100));
      expect(b.ended(), p).toBeNull();
      for (let i = 3; i < 6; i++) await send(at(i * 100, { status: 503 }));
      expect(b.ended(), p).toMatch(/^3 requests in a row got a server error/);
      b.dispose();
    }
    const { b, send } = bound('enforce');
    for (let i = 0; i < 3; i++) await send(refused(i * 100));
    expect(b.ended()).toMatch(/^3 requests in a row were refused \(429\)/);
    b.dispose();
  });

  it('ends a probe at its own time bound', async () => {
    const { b } = bound('list', 20);
    await new Promise((r) => setTimeout(r, 60));
    expect(b.ended()).toBe('its own time bound passed: 0 s of real time');
    expect(b.signal.aborted).toBe(true);
  });

  it('gives a probe its design (planned length, own waits, beyond the plan) and a margin, never less than a minute', () => {
    // The margin: the planned length again and two minute windows.
    expect(probeTimeBoundMs({}, 30_000, 1)).toBe(180_000);
    expect(probeTimeBoundMs({ beyondPlanMs: 3_600_000 }, 30_000, 1)).toBe(3_780_000);
    expect(probeTimeBoundMs({ waits: 2 }, 30_000, 1)).toBe(180_000 + 2 * OWN_WAIT_MS);
    expect(probeTimeBoundMs({}, 30_000, 60)).toBe(60_000);
  });

  it("never ends a probe before its design on a compliant target: the wait-out probes' two waits of a window", () => {
    for (const name of PROBE_NAMES) {
      const needs = PROBE_REGISTRY[name].needs;
      for (const scale of [1, 60])
        for (const planned of [1, 30_000, 2 * MINUTE_MS])
          expect(probeTimeBoundMs(needs, planned, scale) * scale, name).toBeGreaterThan(probeDesignMs(needs, planned));
    }
    // restore and retry-after-honest: a step planned after the window it waits out (1 request time long) waits two
    // windows by itself, 61 s and more each on a real clock (the bound of old, 2 minutes, ended them in the second).
    for (const name of ['restore', 'retry-after-honest'] as const) {
      const needs = PROBE_REGISTRY[name].needs;
      expect(probeDesignMs(needs, 1)).toBeGreaterThanOrEqual(2 * (MINUTE_MS + 1000));
      expect(probeTimeBoundMs(needs, 1, 1)).toBeGreaterThanOrEqual(2 * (MINUTE_MS + 1000) + 2 * MINUTE_MS);
    }
  });
});

/** A 429 answered at `sent` ms (run clock and wall clock alike), promising the quota back in 60 s. */
const promise = (sent: number, parts: ExchangeParts = {}) =>
  at(sent, {
    status: 429,
    localTime: FIXED_NOW + sent + 10,
    headers: { 'retry-after': '60', ...rateLimitHeaders(60, 0, FIXED_NOW_S + Math.ceil(sent / 1000) + 60) },
    ...parts,
  });

/**
 * The key state's record of each 429, as the send path keeps it: each refusal after the one before it, with
 * `answered` other answers between (petload's own requests in the new window).
 */
function chain(refusals: readonly Exchange[], answered = 0): RefusalLookup {
  const key = testKey('free');
  return (ex) => {
    const i = refusals.indexOf(ex);
    if (i < 0) return null;
    return { key, refusal: { ex, before: refusals[i - 1] ?? null, answeredBetween: answered } };
  };
}

/**
 * A bound on the list probe, or on a probe that judges ratelimit.quota-restored and counts its refusals (the restore
 * probe's checks, without its `expectsRefusals`: restore itself judges the refusals after its waits, wait-out.ts).
 */
function boundOn(probe: 'list' | 'restore', refusalOf: RefusalLookup, timeBoundMs = 600_000) {
  const ledger = new Ledger();
  const checks = probe === 'restore' ? (['ratelimit.quota-restored'] as const) : (['list.schema'] as const);
  const needs = { ...PROBE_REGISTRY[probe].needs, expectsRefusals: false };
  const b = boundProbe(
    { name: probe, needs },
    {
      clock: createClock(1),
      ledger,
      signal: new AbortController().signal,
      timeBoundMs,
      checks,
      refusalOf,
    },
  );
  return { b, ledger, checks, send: (ex: Exchange) => b.send(async () => ex) };
}

/** The checks a refusal after a kept wait defers to (src/checks/catalogue.ts, REFUSED_AFTER_WAIT). */
const MAY_OWN = ['ratelimit.enforced', 'ratelimit.key-isolation', 'auth.no-quota-drain'];

describe('a probe ended by what the target did: the check that owns it fails, the probe points at it', () => {
  it('refused again after each Retry-After had passed: retry-after.honest fails with the promise, the wait and the answer', async () => {
    // Each 429 waited out (60.3 s later), and refused again in a window the key had not used.
    const refusals = [promise(0), promise(60_300), promise(120_600)];
    const { b, ledger, checks, send } = boundOn('list', chain(refusals, 0));
    for (const r of refusals) await send(r);
    const cause = b.cause();
    expect(cause?.faults.map((f) => f.owner)).toEqual(['retry-after.honest']);
    b.ledger.fail('list.schema', 'free', 'judged on a sequence cut short');
    attributeEnd(cause!, ledger, checks, 'free');
    ledger.resolveDeferrals(runFacts());
    const honest = outcomeOf(ledger, 'retry-after.honest');
    expect(honest?.failed).toBe(1);
    expect(honest?.evidence[0]?.message).toMatch(
      /^refused again \(429\) after Retry-After had passed, 0 other answers on the key since \(its Limit: 60\); met by the list probe, which ended early; the 429 that promised: Retry-After: 60, .*petload came back 60\.3 s after it.*; the answer then: 429, Retry-After: 60, /,
    );
    expect(honest?.evidence[0]?.status).toBe(429);
    const schema = outcomeOf(ledger, 'list.schema');
    // Marked with the owner and the checks its failure may defer to: a failure of any of them accounts for the skip.
    expect(schema).toMatchObject({ failed: 0, skipped: 2, cutShort: ['retry-after.honest', ...MAY_OWN] });
    expect(schema?.skipReasons).toEqual([
      'not judged: the probe ended early (3 requests in a row were refused (429); the last GET /pets -> 429) (see retry-after.honest)',
    ]);
    b.dispose();
  });

  it("the restore probe's refusal after the refused window had ended is its own check's: ratelimit.quota-restored", async () => {
    // Sent 61.5 s after the 429: its Retry-After and its Reset (+1 s) had both passed.
    const refusals = [promise(0), promise(61_500), promise(123_000)];
    const { b, ledger, checks, send } = boundOn('restore', chain(refusals, 1));
    for (const r of refusals) await send(r);
    attributeEnd(b.cause()!, ledger, checks, 'free');
    ledger.resolveDeferrals(runFacts());
    expect(outcomeOf(ledger, 'ratelimit.quota-restored')).toMatchObject({ failed: 1, skipped: 0 });
    expect(outcomeOf(ledger, 'ratelimit.quota-restored')?.evidence[0]?.message).toMatch(
      /^refused again \(429\) after Retry-After and Reset had passed, 1 other answer on the key since/,
    );
    expect(outcomeOf(ledger, 'retry-after.honest')).toBeUndefined();
    b.dispose();
  });

  it("a refusal after the wait, where other keys' requests were shown to count against a key, is key-isolation's", async () => {
    const refusals = [promise(0), promise(60_300), promise(120_600)];
    const { b, ledger, checks, send } = boundOn('list', chain(refusals, 0));
    for (const r of refusals) await send(r);
    attributeEnd(b.cause()!, ledger, checks, 'free');
    ledger.fail('ratelimit.key-isolation', 'free', "key B refused after key A's requests");
    ledger.resolveDeferrals(runFacts());
    expect(outcomeOf(ledger, 'retry-after.honest')).toMatchObject({
      failed: 0,
      skipped: 1,
      skipReasons: [
        "refused after the wait by a window that may hold the plan's other keys' requests: that defect is ratelimit.key-isolation's",
      ],
    });
    b.dispose();
  });

  it("refusals petload's own requests explain, or sent inside the wait, own nothing: a plain skip, cut short with no owner", async () => {
    for (const [refusals, answered] of [
      [[promise(0), promise(60_300), promise(120_600)], 60], // the new window spent by the key's own 60 answers
      [[promise(0), promise(100), promise(200)], 0], // no wait: each sent 90 ms after the last came back
    ] as const) {
      const { b, ledger, checks, send } = boundOn('list', chain(refusals, answered));
      for (const r of refusals) await send(r);
      expect(b.cause()).toMatchObject({ faults: [], refused: true });
      attributeEnd(b.cause()!, ledger, checks, 'free');
      expect(outcomeOf(ledger, 'retry-after.honest')).toBeUndefined();
      expect(outcomeOf(ledger, 'list.schema')).toMatchObject({ skipped: 1, cutShort: [] });
      expect(outcomeOf(ledger, 'list.schema')?.skipReasons[0]).toMatch(
        /^not judged: the probe ended early \(3 requests/,
      );
      expect(outcomeOf(ledger, 'list.schema')?.skipReasons[0]).not.toMatch(/\(see /);
      b.dispose();
    }
  });

  it('a 429 without a usable Retry-After promised nothing: the skip names the Retry-After check that failed', async () => {
    const refusals = [promise(0), promise(100), promise(200)];
    const { b, ledger, checks, send } = boundOn('list', chain(refusals));
    for (const r of refusals) await send(r);
    ledger.fail('retry-after.present', 'free', 'no Retry-After on a 429');
    attributeEnd(b.cause()!, ledger, checks, 'free');
    expect(outcomeOf(ledger, 'list.schema')).toMatchObject({ cutShort: ['retry-after.present'] });
    expect(outcomeOf(ledger, 'list.schema')?.skipReasons[0]).toMatch(/\(see retry-after\.present\)$/);
    b.dispose();
  });

  it('server errors: contract.no-server-errors owns them, and fails once (the observer failed it already)', async () => {
    const { b, ledger, checks, send } = boundOn('list', chain([]));
    for (const t of [0, 100, 200]) {
      const ex = at(t, { status: 503 });
      ledger.fail('contract.no-server-errors', 'free', 'server error 503', ex); // the observer, on every exchange
      await send(ex);
    }
    attributeEnd(b.cause()!, ledger, checks, 'free');
    expect(countsOf(ledger, 'contract.no-server-errors').failed).toBe(3);
    expect(outcomeOf(ledger, 'list.schema')).toMatchObject({ cutShort: ['contract.no-server-errors'] });
    b.dispose();
  });

  it("silence: no answer is contract.transport's, which fails with it when nothing failed it yet", async () => {
    const { b, ledger, checks, send } = boundOn('list', chain([]));
    for (const t of [0, 100, 200])
      await send(at(t, { status: null, error: { kind: 'timeout', message: 'timed out' } }));
    attributeEnd(b.cause()!, ledger, checks, 'free');
    expect(outcomeOf(ledger, 'contract.transport')?.evidence[0]?.message).toMatch(
      /^no whole HTTP response \(timeout\); met by the list probe, which ended early/,
    );
    expect(outcomeOf(ledger, 'list.schema')?.skipReasons[0]).toMatch(/\(see contract\.transport\)$/);
    b.dispose();
  });

  it('its own time bound: the faults it met before are what kept it, and their owner fails', async () => {
    const refusals = [promise(0), promise(60_300)];
    const { b, ledger, checks, send } = boundOn('list', chain(refusals), 30);
    for (const r of refusals) await send(r);
    expect(b.ended()).toBeNull();
    await new Promise((r) => setTimeout(r, 80));
    expect(b.ended()).toMatch(/^its own time bound passed/);
    attributeEnd(b.cause()!, ledger, checks, 'free');
    ledger.resolveDeferrals(runFacts());
    expect(countsOf(ledger, 'retry-after.honest').failed).toBe(1);
    expect(outcomeOf(ledger, 'list.schema')).toMatchObject({ cutShort: ['retry-after.honest', ...MAY_OWN] });
    b.dispose();
  });
});
