/**
 * Rate-limit probes: each starts on a fresh window (an unused key, or after the key's window has ended),
 * waits only as long as the target says (Reset, Retry-After), bounded by the window length, and never sends
 * on a key while a Retry-After it received is running.
 */
import { randomBytes } from 'node:crypto';
import { MINUTE_S, type PlanName } from '../api/plans.js';
import type { CheckId } from '../checks/catalogue.js';
import type { ApiKey } from '../core/api-key.js';
import { retryAfterMs, serverOffset, TOLERANCE_MS } from '../backoff/key-state.js';
import type { Exchange } from '../http/exchange.js';
import {
  cheapList,
  freshKey,
  roomyKey,
  isAccepted,
  keysOf,
  keySpec,
  probeTag,
  sendPatiently,
  skipAll,
  waitUntil,
  type FreshKey,
  type ProbeContext,
} from './context.js';
import type { Probe } from './probe.js';
import { exhaust, HEADER_CHECKS, minuteQuota, openedBefore, refusedInLaterWindow, sameWindow, tripleOf } from './window.js';

const WINDOW_MS = MINUTE_S * 1000;

async function withFreshKey(ctx: ProbeContext, checks: readonly CheckId[], plan: PlanName | null, body: (fk: FreshKey, plan: PlanName) => Promise<void>, pick = freshKey) {
  if (plan === null) return;
  const fk = await pick(ctx, plan);
  if (!fk) return skipAll(ctx, checks, plan, `no usable ${plan} key`);
  await body(fk, plan);
}

/** For probes that need room in a window, not a fresh one: the key the schedule gave them, as it is. */
const withRoomyKey = (ctx: ProbeContext, checks: readonly CheckId[], plan: PlanName | null, body: (fk: FreshKey, plan: PlanName) => Promise<void>) =>
  withFreshKey(ctx, checks, plan, body, roomyKey);

/** Describe a refusal status for messages. */
const refusedAs = (ex: Exchange): string => (ex.status === null ? `no response (${ex.error?.kind ?? 'error'})` : `${ex.status}`);

/** A run that spanned two windows says nothing about one: try again on another fresh key, this many times. */
const ROLLOVER_TRIES = 2;

export const enforceProbe: Probe = {
  name: 'enforce',
  checks: ['ratelimit.enforced', 'ratelimit.remaining-decrements'],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    let why = '';
    for (let attempt = 1; attempt <= ROLLOVER_TRIES; attempt++) {
      const fk = await freshKey(ctx, plan);
      if (!fk) return skipAll(ctx, this.checks, plan, `no usable ${plan} key`);
      const done = await enforceOnce(ctx, plan, fk);
      if (done === true) return;
      why = done;
      ctx.log(`enforce [${plan}]: ${done}; again on a fresh window`);
    }
    skipAll(ctx, this.checks, plan, `${why}, twice; not judged`);
  },
};

/** One decrement-to-Limit+1 sequence; true when judged, else why it proved nothing. */
async function enforceOnce(ctx: ProbeContext, plan: PlanName, fk: FreshKey): Promise<true | string> {
  const { key } = fk;
  const quota = minuteQuota(key);
  const run = await exhaust(ctx, key, probeTag('enforce'), quota);
  const t0 = tripleOf(run.first);
  // With headers on the day window, a key with less than a minute's quota left for the day is refused sooner.
  const expected = fk.how === 'waited' && t0 !== null && t0.limit === key.limits.perDay ? Math.min(quota, t0.remaining + 1) : quota;
  const r = run.refusal;
  if (r?.status === 429) ctx.refusals.push(key, r);
  if (run.rolledOver && run.accepted > expected) return 'the minute window ended before the limit was reached (the target is too slow for the clock; rerun with a smaller --time-scale)';
  if (fk.how === 'unused' && openedBefore(run.first, t0, key)) {
    return `${key.label}'s window was already open and partly spent when petload's first request arrived (another client is using the key)`;
  }
  if (run.lost !== null) {
    skipAll(ctx, ['ratelimit.enforced', 'ratelimit.remaining-decrements'], plan, 'a request got no whole response, so what the target counted is unknown (see contract.transport)');
    return true;
  }
  // "A key's first request in a fresh window shows Limit-1": judgeable when every window is fresh (unused key)
  // or when the headers describe the minute window whose end we waited for.
  if (!isAccepted(run.first)) {
    ctx.ledger.skip('ratelimit.remaining-decrements', plan, 'first request of the window was refused (see ratelimit.enforced)');
  } else if (t0 === null) {
    ctx.ledger.skip('ratelimit.remaining-decrements', plan, `first response has no usable X-RateLimit-* (${HEADER_CHECKS})`);
  } else if (fk.how === 'unused' || t0.limit === key.limits.perMinute) {
    ctx.ledger.judge(
      'ratelimit.remaining-decrements',
      plan,
      t0.remaining === t0.limit - 1,
      () => `first request in a fresh window shows Remaining ${t0.remaining} with Limit ${t0.limit} (expected ${t0.limit - 1})`,
      run.first,
    );
  }
  if (r === null) {
    ctx.ledger.fail('ratelimit.enforced', plan, `${run.accepted} requests accepted in one window; the limit is ${expected}: request ${expected + 1} was not refused`, run.first);
  } else if (run.accepted !== expected) {
    ctx.ledger.fail('ratelimit.enforced', plan, `refused (${refusedAs(r)}) after ${run.accepted} accepted requests; the limit is ${expected}`, r);
  } else {
    ctx.ledger.judge('ratelimit.enforced', plan, r.status === 429, () => `request ${expected + 1} answered ${refusedAs(r)} instead of 429`, r);
  }
  return true;
}

/** A 429 to work with: one left by an earlier probe, or a fresh key exhausted now. */
async function refusalFor(ctx: ProbeContext, plan: PlanName, tag: string): Promise<{ key: ApiKey; ex: Exchange } | null> {
  const left = ctx.refusals.pop(plan);
  if (left) return left;
  const fk = await freshKey(ctx, plan);
  if (!fk) return null;
  const run = await exhaust(ctx, fk.key, tag, minuteQuota(fk.key));
  return run.refusal?.status === 429 ? { key: fk.key, ex: run.refusal } : null;
}

/** When the refused window has certainly ended: Retry-After and (when it is usable for the minute window) Reset. */
function refusedWindowEnd(key: ApiKey, ex: Exchange): number {
  const wait = retryAfterMs(ex);
  let end = ex.localTime + Math.min(wait ?? WINDOW_MS, WINDOW_MS);
  const t = tripleOf(ex);
  if (t && t.limit === key.limits.perMinute) {
    const reset = t.reset * 1000 + serverOffset(ex);
    if (reset >= ex.localTime - TOLERANCE_MS && reset <= ex.localTime + WINDOW_MS + TOLERANCE_MS) end = Math.max(end, reset);
  }
  return Math.min(end, ex.localTime + WINDOW_MS) + TOLERANCE_MS;
}

export const retryAfterHonestProbe: Probe = {
  name: 'retry-after-honest',
  checks: ['retry-after.honest'],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const tag = probeTag('retry-after-honest');
    const r = await refusalFor(ctx, plan, tag);
    if (!r) return ctx.ledger.skip('retry-after.honest', plan, 'no 429 to wait out (see ratelimit.enforced)');
    const wait = retryAfterMs(r.ex);
    if (wait === null) return ctx.ledger.skip('retry-after.honest', plan, 'the 429 has no usable Retry-After (see retry-after.present, retry-after.syntax)');
    // Exactly the given time plus 250 ms; bounded by the window length.
    await waitUntil(ctx, r.ex.localTime + Math.min(wait, WINDOW_MS) + 250);
    const ex = await ctx.send(cheapList(r.key, tag));
    if (refusedInLaterWindow(r.ex, ex, r.key)) {
      ctx.refusals.push(r.key, ex);
      return ctx.ledger.skip('retry-after.honest', plan, `after the wait, ${r.key.label}'s next window was already spent (another client is using the key); not judged`);
    }
    ctx.ledger.judge('retry-after.honest', plan, isAccepted(ex), () => `refused again (${refusedAs(ex)}) after waiting Retry-After (${wait / 1000} s) + 250 ms`, ex);
    if (ex.status === 429) ctx.refusals.push(r.key, ex);
  },
};

export const restoreProbe: Probe = {
  name: 'restore',
  checks: ['ratelimit.quota-restored'],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const tag = probeTag('restore');
    const r = await refusalFor(ctx, plan, tag);
    if (!r) return ctx.ledger.skip('ratelimit.quota-restored', plan, 'no 429 to wait out (see ratelimit.enforced)');
    // Also past every Retry-After the key got (a burst's 429s each carry one, read at slightly different times).
    await waitUntil(ctx, Math.max(refusedWindowEnd(r.key, r.ex), ctx.keyStates.get(r.key).blockedUntil + TOLERANCE_MS));
    const ex = await ctx.send(cheapList(r.key, tag));
    if (refusedInLaterWindow(r.ex, ex, r.key)) {
      return ctx.ledger.skip('ratelimit.quota-restored', plan, `after the refused window ended, ${r.key.label}'s next window was already spent (another client is using the key); not judged`);
    }
    if (!isAccepted(ex)) {
      // Refused after both Retry-After and Reset have passed: a ban is suspected; stop all traffic on the key.
      ctx.keyStates.get(r.key).suspectedBan = true;
      ctx.log(`key ${r.key.label} still refused after its window ended: suspected banned, no more traffic on it`);
      return ctx.ledger.fail('ratelimit.quota-restored', plan, `still refused (${refusedAs(ex)}) after Retry-After and Reset had passed; key suspected banned`, ex);
    }
    const [tr, te] = [tripleOf(r.ex), tripleOf(ex)];
    ctx.ledger.judge(
      'ratelimit.quota-restored',
      plan,
      !(sameWindow(tr, te) && te!.remaining === 0),
      () => 'accepted again, but describes the refused window with Remaining 0',
      ex,
    );
  },
};

/** K in Limit+K: enough to see over-admission, few enough that the refused requests are not "knocking". */
const BURST_EXTRA = 5;

export const burstProbe: Probe = {
  name: 'burst',
  checks: ['ratelimit.no-over-admission'],
  perPlan: true,
  async run(ctx, plan) {
    await withFreshKey(ctx, this.checks, plan, async (fk, plan) => {
      const id = 'ratelimit.no-over-admission';
      const limit = minuteQuota(fk.key);
      const n = limit + BURST_EXTRA;
      const tag = probeTag('burst');
      const results = await ctx.sendSimultaneous(Array.from({ length: n }, () => cheapList(fk.key, tag)));
      const accepted = results.filter(isAccepted);
      const refused = results.filter((e) => e.status === 429).sort((a, b) => b.localTime - a.localTime);
      if (refused[0]) ctx.refusals.push(fk.key, refused[0]);
      const triples = accepted.map(tripleOf);
      const evidence = accepted[accepted.length - 1] ?? results[0];
      if (accepted.length > limit) {
        // Over the limit in total: judge each window the responses describe, since a burst may straddle two.
        const perWindow = new Map<string, number>();
        for (const t of triples) if (t) perWindow.set(`${t.limit}/${t.reset}`, (perWindow.get(`${t.limit}/${t.reset}`) ?? 0) + 1);
        const worst = Math.max(0, ...perWindow.values());
        const span = Math.max(...results.map((e) => e.timing.done)) - Math.min(...results.map((e) => e.timing.sent));
        if (perWindow.size > 1 && worst <= limit) {
          ctx.ledger.pass(id, plan);
          return ctx.ledger.info(id, plan, 'note', 'the burst straddled two windows; each admitted at most the limit');
        }
        if (perWindow.size <= 1 && span >= WINDOW_MS - TOLERANCE_MS) {
          return ctx.ledger.skip(id, plan, 'the burst lasted a whole window; not judged (rerun with a smaller --time-scale)');
        }
      }
      if (!ctx.ledger.judge(id, plan, accepted.length <= limit, () => `${accepted.length} of ${n} simultaneous requests accepted; the limit is ${limit}`, evidence)) return;
      // The accepted responses' Remaining values are distinct (within one window).
      const seen = new Map<string, number>();
      for (const t of triples) if (t) seen.set(`${t.limit}/${t.reset}/${t.remaining}`, (seen.get(`${t.limit}/${t.reset}/${t.remaining}`) ?? 0) + 1);
      const dup = [...seen.entries()].find(([, c]) => c > 1);
      if (dup) ctx.ledger.fail(id, plan, `${dup[1]} accepted responses show the same Remaining (${dup[0].split('/')[2]}): the counter is not atomic`, evidence);
    });
  },
};

export const keyIsolationProbe: Probe = {
  name: 'key-isolation',
  checks: ['ratelimit.key-isolation'],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const id = 'ratelimit.key-isolation';
    if (keysOf(ctx, plan).length < 2) return ctx.ledger.skip(id, plan, `needs two keys of one plan; the keys file has one usable ${plan} key`);
    const a = await roomyKey(ctx, plan);
    if (!a) return ctx.ledger.skip(id, plan, `no usable ${plan} key`);
    const b = await roomyKey(ctx, plan, [a.key]);
    if (!b) return ctx.ledger.skip(id, plan, `needs two keys of one plan; no second usable ${plan} key`);
    const tag = probeTag('key-isolation');
    const before = await sendPatiently(ctx, cheapList(b.key, tag));
    const run = await exhaust(ctx, a.key, tag, minuteQuota(a.key));
    if (run.refusal?.status === 429) ctx.refusals.push(a.key, run.refusal);
    else return ctx.ledger.skip(id, plan, 'key A could not be exhausted (see ratelimit.enforced)');
    const after = await ctx.send(cheapList(b.key, tag));
    if (!isAccepted(after)) return ctx.ledger.fail(id, plan, `after exhausting key ${a.key.label}, key ${b.key.label} is refused (${refusedAs(after)})`, after);
    const [tb, ta] = [tripleOf(before), tripleOf(after)];
    // A new window for B in between: B was accepted, which is all that can be judged.
    if (!sameWindow(tb, ta)) return ctx.ledger.pass(id, plan);
    ctx.ledger.judge(
      id,
      plan,
      ta!.remaining === tb!.remaining - 1,
      () => `key B's Remaining went ${tb!.remaining} → ${ta!.remaining} while key A was exhausted (expected ${tb!.remaining - 1})`,
      after,
    );
  },
};

const DRAIN_REQUESTS = 50;

export const quotaDrainProbe: Probe = {
  name: 'quota-drain',
  checks: ['auth.no-quota-drain'],
  perPlan: true,
  async run(ctx, plan) {
    await withRoomyKey(ctx, this.checks, plan, async (fk, plan) => {
      const id = 'auth.no-quota-drain';
      const tag = probeTag('quota-drain');
      for (let attempt = 0; attempt < 2; attempt++) {
        const first = await sendPatiently(ctx, cheapList(fk.key, tag));
        let sent = 0;
        // Invalid keys may be limited per client address: honour their 429s too, bounded in count.
        for (let i = 0; sent < DRAIN_REQUESTS && i < DRAIN_REQUESTS * 3 && !ctx.signal.aborted; i++) {
          const ex = await ctx.send({
            operation: 'listPets',
            method: 'GET',
            path: '/pets?limit=1',
            auth: { kind: 'raw', header: `Bearer pl-invalid-${randomBytes(8).toString('hex')}`, label: 'unknown key' },
            tag,
          });
          if (ex.status === 429) await waitUntil(ctx, ex.localTime + Math.min(retryAfterMs(ex) ?? WINDOW_MS, WINDOW_MS));
          else sent++;
        }
        const last = await ctx.send(cheapList(fk.key, tag));
        const [t1, t2] = [tripleOf(first), tripleOf(last)];
        if (!isAccepted(last) && isAccepted(first)) {
          return ctx.ledger.fail(id, plan, `after ${sent} requests with invalid keys, the valid key is refused (${refusedAs(last)})`, last);
        }
        if (!t1 || !t2) return ctx.ledger.skip(id, plan, `no usable X-RateLimit-* headers (${HEADER_CHECKS})`);
        if (!sameWindow(t1, t2)) continue; // the window ended in between: try once more
        return void ctx.ledger.judge(
          id,
          plan,
          t2.remaining === t1.remaining - 1,
          () => `Remaining went ${t1.remaining} → ${t2.remaining} across ${sent} invalid-key requests (expected ${t1.remaining - 1})`,
          last,
        );
      }
      ctx.ledger.skip(id, plan, 'the window changed during the sequence twice; not judged');
    });
  },
};

export const whatCountsProbe: Probe = {
  name: 'what-counts',
  checks: ['ratelimit.what-counts'],
  perPlan: true,
  async run(ctx, plan) {
    await withRoomyKey(ctx, this.checks, plan, async (fk, plan) => {
      const id = 'ratelimit.what-counts';
      const tag = probeTag('what-counts');
      const steps: [string, Exchange][] = [];
      const step = async (label: string, ex: Promise<Exchange>) => steps.push([label, await ex]);
      await step('200', ctx.send(cheapList(fk.key, tag)));
      await step('400', ctx.send(keySpec(fk.key, 'createPet', '/pets', tag, '{"categoryId":"not-an-int"}')));
      await step('404', ctx.send(keySpec(fk.key, 'getPet', '/pets/9223372036854775807', tag)));
      await step('200', ctx.send(cheapList(fk.key, tag)));
      const facts: Record<string, string> = {
        '401': 'never charged to a key (requests without a valid key carry no key); see auth.no-quota-drain',
        '429': 'not measured: it would need a request inside a Retry-After, which petload never sends',
      };
      for (let i = 1; i < steps.length; i++) {
        const [label, ex] = steps[i]!;
        const [prevLabel, prev] = steps[i - 1]!;
        const [tp, tc] = [tripleOf(prev), tripleOf(ex)];
        if (label === '200' && prevLabel === '200') continue;
        if (String(ex.status) !== label) {
          facts[label] ??= `not measured: the probe got ${ex.status ?? 'no response'} instead`;
          continue;
        }
        if (!sameWindow(tp, tc)) {
          facts[label] ??= 'not measured: no usable headers in one window';
          continue;
        }
        facts[label] = tp!.remaining - tc!.remaining >= 1 ? 'counted' : 'not counted';
      }
      for (const [k, v] of Object.entries(facts)) ctx.ledger.info(id, plan, k, v);
      ctx.ledger.pass(id, plan);
      ctx.note(`${plan}: quota use by status: ${Object.entries(facts).map(([k, v]) => `${k} ${v.split(':')[0]}`).join(', ')}.`);
    });
  },
};
