/**
 * The opt-in ban probe (sacrificial keys only): keep sending after a 429 to learn the ban's threshold, status,
 * duration and recovery. Its exchanges are tagged `ban…`, which exempts them from backoff.respects-retry-after.
 * Bounded: at most KNOCKS requests inside Retry-After, and recovery polled for at most RECOVERY_BOUND.
 */
import { MINUTE_S } from '../api/plans.js';
import { retryAfterMs } from '../engine/key-state.js';
import type { Exchange } from '../http/exchange.js';
import { cheapList, isAccepted, probeTag, waitUntil } from './context.js';
import type { Probe } from './probe.js';
import { exhaust, minuteQuota, tripleOf } from './window.js';

const KNOCKS = 30;
const KNOCK_GAP_MS = 200;
const RECOVERY_BOUND_MS = 3_600_000;

const codeOf = (ex: Exchange) =>
  ex.body.kind === 'json' && typeof (ex.body.value as { code?: unknown } | null)?.code === 'string' ? (ex.body.value as { code: string }).code : null;

export const banProbe: Probe = {
  name: 'ban',
  checks: ['ban.probe'],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const id = 'ban.probe';
    const victim = ctx.keyStates.all().find((s) => s.key.plan === plan && s.key.sacrificial && !s.suspectedBan);
    if (!victim) return ctx.ledger.skip(id, plan, `opt-in: needs a ${plan} key marked "sacrificial": true in the keys file`);
    const key = victim.key;
    const tag = probeTag('ban');
    const run = await exhaust(ctx, key, tag, minuteQuota(key));
    if (run.refusal?.status !== 429) return ctx.ledger.skip(id, plan, 'the key could not be brought to a 429 (see ratelimit.enforced)');
    const firstWait = retryAfterMs(run.refusal) ?? MINUTE_S * 1000;
    const windowEnd = run.refusal.localTime + Math.min(firstWait, MINUTE_S * 1000);
    let knocks = 0;
    let changed: Exchange | null = null;
    // Knock inside the Retry-After until the answer changes (status, code, or a wait beyond the window's end).
    while (knocks < KNOCKS && ctx.clock.now() < windowEnd && !ctx.signal.aborted) {
      await ctx.clock.sleep(KNOCK_GAP_MS, ctx.signal);
      const ex = await ctx.send(cheapList(key, tag));
      knocks++;
      const wait = retryAfterMs(ex);
      const beyond = wait !== null && ex.localTime + wait > windowEnd + 2000;
      if (ex.status !== 429 || codeOf(ex) !== codeOf(run.refusal) || beyond) {
        changed = ex;
        break;
      }
    }
    victim.blockedUntil = 0;
    await waitUntil(ctx, windowEnd + 1000);
    const probe = await ctx.send(cheapList(key, tag));
    const banned = !isAccepted(probe);
    ctx.ledger.info(id, plan, 'knocksInsideRetryAfter', knocks);
    ctx.ledger.info(id, plan, 'answerChangedAfter', changed ? `${knocks} knocks: status ${changed.status}, code ${codeOf(changed) ?? 'none'}` : 'never');
    ctx.ledger.info(id, plan, 'refusedAfterWindowEnded', banned);
    if (!banned) {
      ctx.ledger.pass(id, plan);
      return ctx.note(`${plan}: no ban after ${knocks} requests inside Retry-After.`);
    }
    const banWait = retryAfterMs(probe);
    ctx.ledger.info(id, plan, 'banStatus', probe.status);
    ctx.ledger.info(id, plan, 'banCode', codeOf(probe));
    ctx.ledger.info(id, plan, 'banRetryAfterSeconds', banWait === null ? null : banWait / 1000);
    ctx.ledger.info(id, plan, 'banRateLimitHeaders', tripleOf(probe) !== null);
    // Recovery: wait what the ban says (bounded), then one request.
    const start = probe.localTime;
    await waitUntil(ctx, start + Math.min(banWait ?? RECOVERY_BOUND_MS, RECOVERY_BOUND_MS) + 1000);
    const after = await ctx.send(cheapList(key, tag));
    ctx.ledger.info(id, plan, 'recovered', isAccepted(after));
    ctx.ledger.info(id, plan, 'banDurationSeconds', isAccepted(after) ? Math.round((after.localTime - start) / 1000) : null);
    ctx.ledger.pass(id, plan);
    ctx.note(`${plan}: banned after ${knocks} requests inside Retry-After: status ${probe.status}, code ${codeOf(probe) ?? 'none'}, ${isAccepted(after) ? 'recovered' : 'not recovered'} after ${Math.round((after.localTime - start) / 1000)} s.`);
  },
};
