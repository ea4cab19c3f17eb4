/**
 * The burst probe: Limit+K requests at once on a fresh window; no more than the limit may be accepted
 * (ratelimit.no-over-admission).
 */
import { allowedWithTolerance, MINUTE_MS, MINUTE_S, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { isRateLimitRefusal } from '../checks/passive/contract.js';
import { TOLERANCE_MS } from '../backoff/key-state.js';
import type { Exchange } from '../http/exchange.js';
import { cheapList, type FreshKey, freshKey, isAccepted, probeTag, type ProbeContext, waitUntil } from './context.js';
import type { Probe } from './probe.js';
import { announcedMinuteLimit, minuteQuota, sameWindow, tripleOf } from './window.js';
import { withFreshKey } from './with-key.js';
import { SERVICE_MS } from './in-flight.js';
import { see, type SkipReason, prefixed } from '../checks/skip-reason.js';
import { NO_WHOLE_RESPONSE } from './reasons.js';

/**
 * How many requests beyond the limit the burst probe sends at once: enough to see over-admission, few enough that
 * the refused requests are not "knocking".
 */
export const BURST_EXTRA = 5;

const ID = 'ratelimit.no-over-admission';

interface Burst {
  key: ApiKey;
  limit: number;
  results: Exchange[];
  accepted: Exchange[];
}

async function burstOnce(ctx: ProbeContext, key: ApiKey, limit: number, tag: string): Promise<Burst> {
  const results = await ctx.sendSimultaneous(Array.from({ length: limit + BURST_EXTRA }, () => cheapList(key, tag)));
  const refused = results.filter((e) => e.status === 429).sort((a, b) => b.localTime - a.localTime);
  if (refused[0]) ctx.refusals.push(key, refused[0]);
  return { key, limit, results, accepted: results.filter(isAccepted) };
}

/**
 * Whether the target refuses sequential requests beyond its limit: the precondition of judging a burst's
 * over-admission (a target that does not enforce its limit at all is ratelimit.enforced's failure). A refusal in
 * the burst shows it; else one or two requests after it: a refusal shows it, an acceptance with Remaining above 0
 * shows a counter that missed the concurrent requests (a concurrency defect), two acceptances with nothing left show
 * no enforcement.
 */
async function enforcesAfter(
  ctx: ProbeContext,
  b: Burst,
  tag: string,
): Promise<{ enforces: true; note: string } | { enforces: false; reason: SkipReason }> {
  if (b.results.some(isRateLimitRefusal)) return { enforces: true, note: '' };
  const last = [...b.accepted].sort((x, y) => x.timing.done - y.timing.done).at(-1);
  const window = last === undefined ? null : tripleOf(last);
  for (let i = 0; i < 2; i++) {
    const ex = await ctx.send(cheapList(b.key, tag));
    if (ex.error !== null)
      return { enforces: false, reason: prefixed('the request after the burst got ', NO_WHOLE_RESPONSE) };
    if (isRateLimitRefusal(ex)) return { enforces: true, note: '; a request sent afterwards was refused' };
    const t = tripleOf(ex);
    if (window !== null && t !== null && !sameWindow(window, t)) {
      return {
        enforces: false,
        reason:
          'the window ended before a request after the burst could show whether the target enforces its limit; not judged',
      };
    }
    if (isAccepted(ex) && t !== null && t.remaining > 0) {
      return {
        enforces: true,
        note: `; a request sent afterwards was accepted with Remaining ${t.remaining}: the counter missed requests of the burst`,
      };
    }
  }
  return {
    enforces: false,
    reason: see(
      'the target accepts sequential requests beyond its limit, so a burst cannot show over-admission',
      'ratelimit.enforced',
    ),
  };
}

const announcedLimit = (announced: number) => `the target announces Limit ${announced}, not the plan's figure`;

/** Resets that moved with the requests while the burst ran (`realMs`): a refill admitted too, enforced's defect. */
const refilledDuring = (accepted: string, realMs: number) =>
  see(
    `${accepted} while the burst lasted ${(realMs / 1000).toFixed(1)} s, under Resets that moved with the requests: a limiter that refills admits its refill too, an over-admission judged elsewhere`,
    'ratelimit.enforced',
    'ratelimit.algorithm',
  );

/**
 * What a limiter that refills at the Limit a minute gives back while a burst lasts `spanMs` (target-clock ms): its
 * refill over that time, and one under way.
 */
const refillWhile = (limit: number, spanMs: number) => Math.floor((spanMs * limit) / MINUTE_MS) + 1;

const refillAdmitted = (accepted: string, refill: number, realMs: number) =>
  `${accepted} while the burst lasted ${(realMs / 1000).toFixed(1)} s, under Resets that moved with the requests: no more beyond the limit than the ${refill} its refill gave back meanwhile`;

/**
 * Bursts the probe takes at most, each on a fresh window: a burst whose answers straddled two windows with nothing
 * refused (as a busy machine on a fast clock may stretch one) offered no window more than its limit and showed
 * nothing, so it is taken again; what the target did is judged on the one that sampled a window.
 */
export const MAX_BURSTS = 3;

/** What one burst made of the check: recorded (undefined), or a reason it sampled no window (`again`). */
type Judged = { again: SkipReason } | undefined;

/** One burst on `fk`'s fresh window, and its judgement (burstOnce again with the Limit the target announces). */
async function burstAndJudge(ctx: ProbeContext, fk: FreshKey, plan: PlanName, tag: string): Promise<Judged> {
  let b = await burstOnce(ctx, fk.key, minuteQuota(fk.key), tag);
  if (b.accepted.length > b.limit) {
    // A target that announces another Limit for the minute (limit-matches-plan's defect) is judged by what it
    // announces: burst again, on another fresh key, with that Limit.
    const announced = Math.max(0, ...b.accepted.map((e) => announcedMinuteLimit(e, fk.key, fk.how === 'unused') ?? 0));
    const limit = Math.min(announced, fk.key.limits.perDay);
    if (limit > b.limit) {
      const again = await freshKey(ctx, plan);
      if (!again)
        return void ctx.ledger.skip(
          ID,
          plan,
          see(
            `${announcedLimit(announced)}, and no fresh ${plan} key is left to burst with it`,
            'ratelimit.limit-matches-plan',
          ),
        );
      ctx.ledger.info(ID, plan, 'announcedLimit', limit);
      ctx.ledger.info(
        ID,
        plan,
        'limit',
        `judged against the Limit the target announces (${limit}), not the plan's figure (see ratelimit.limit-matches-plan)`,
      );
      b = await burstOnce(ctx, again.key, limit, tag);
    }
  }
  return judgeBurst(ctx, b, plan, tag);
}

/**
 * A burst within the limit holds; over it in total, each window the responses describe is judged, since a burst may
 * straddle two.
 */
async function judgeBurst(ctx: ProbeContext, b: Burst, plan: PlanName, tag: string): Promise<Judged> {
  const { results, accepted } = b;
  const allowed = allowedWithTolerance(b.limit, b.key.limits);
  if (accepted.length <= allowed) return void held(ctx, b, plan);
  const triples = accepted.map(tripleOf);
  const perWindow = new Map<string, number>();
  for (const t of triples)
    if (t) perWindow.set(`${t.limit}/${t.reset}`, (perWindow.get(`${t.limit}/${t.reset}`) ?? 0) + 1);
  const worst = Math.max(0, ...perWindow.values());
  const span = Math.max(...results.map((e) => e.timing.done)) - Math.min(...results.map((e) => e.timing.sent));
  const resets = triples.flatMap((t) => (t ? [t.reset] : []));
  const [first, last] = resets.length === 0 ? [0, 0] : [Math.min(...resets), Math.max(...resets)];
  const spread = last - first;
  // A fixed window's answers carry its Reset (one, or two a window apart when the burst straddled two), give or
  // take the second they are rounded to; a bucket's "full again" moves with every request, Resets all over.
  const fixed = resets.every((r) => r - first <= 1 || last - r <= 1);
  const label = `${accepted.length} of ${results.length} accepted`;
  // Resets that move with the requests: a limiter that refills, whose refill while the burst lasted is admitted too.
  // No more than that refill beyond the limit: held. More: an over-admission enforced is to judge.
  if (perWindow.size > 1 && spread > 1 && (spread < MINUTE_S - 1 || !fixed)) {
    const refill = refillWhile(b.limit, span);
    if (accepted.length > allowed + refill)
      return void ctx.ledger.skip(ID, plan, refilledDuring(label, span / ctx.clock.scale));
    ctx.ledger.pass(ID, plan);
    return void ctx.ledger.info(ID, plan, 'note', refillAdmitted(label, refill, span / ctx.clock.scale));
  }
  if (perWindow.size > 1 && worst <= allowed) {
    // Nothing refused, across two windows a window apart: no window was offered more than its limit, so the burst
    // showed nothing (taken again). Resets a second apart are two counters at once (a fleet's replicas, enforced's
    // to judge): a burst taken again would split alike.
    if (!results.some((e) => e.status === 429) && spread >= MINUTE_S - 1) return { again: straddled(label) };
    ctx.ledger.pass(ID, plan);
    return void ctx.ledger.info(ID, plan, 'note', 'the burst straddled two windows; each admitted at most the limit');
  }
  if (perWindow.size <= 1 && span >= MINUTE_MS - TOLERANCE_MS) {
    const slower =
      ctx.clock.scale > 1
        ? ` (the clock runs ${ctx.clock.scale} times faster than real time: a smaller --time-scale leaves more real time in each window)`
        : '';
    return void ctx.ledger.skip(ID, plan, `the burst lasted a whole window; not judged${slower}`);
  }
  const pre = await enforcesAfter(ctx, b, tag);
  if (!pre.enforces) return void ctx.ledger.skip(ID, plan, pre.reason);
  const declared = allowed > b.limit ? ` (${allowed} with the declared tolerance)` : '';
  const evidence = accepted[accepted.length - 1] ?? results[0];
  return void ctx.ledger.fail(
    ID,
    plan,
    `${label.replace(' accepted', ' simultaneous requests accepted')}; the limit is ${b.limit}${declared}${pre.note}`,
    evidence,
  );
}

/** A burst held: the pass, and repeated Remaining values among the accepted answers (within one window) as a fact. */
function held(ctx: ProbeContext, b: Burst, plan: PlanName): void {
  ctx.ledger.pass(ID, plan);
  // A server may read Remaining after several increments have landed: a fact, not a failure.
  const seen = new Map<string, number>();
  for (const t of b.accepted.map(tripleOf))
    if (t)
      seen.set(`${t.limit}/${t.reset}/${t.remaining}`, (seen.get(`${t.limit}/${t.reset}/${t.remaining}`) ?? 0) + 1);
  const repeated = [...seen.values()].filter((c) => c > 1).reduce((a, c) => a + c, 0);
  ctx.ledger.info(
    ID,
    plan,
    'repeatedRemaining',
    repeated === 0
      ? 'every accepted answer showed its own Remaining'
      : `${repeated} accepted answers shared a Remaining value with another`,
  );
}

/** A burst whose answers straddled two windows with nothing refused: no window was offered more than its limit. */
const straddled = (accepted: string) =>
  `${accepted} over two windows with nothing refused: no window was offered more than its limit; not judged`;

export const burstProbe: Probe = {
  name: 'burst',
  // Limit+K requests over four connections' worth of time, and two round trips (a connection each, then the request).
  needs: {
    sends: 'alone',
    window: 'fresh',
    slot: 1,
    requests: (q) => q + BURST_EXTRA,
    span: (q, requestMs) => ((q + BURST_EXTRA) / 4) * SERVICE_MS + 2 * requestMs,
    // A burst taken again waits a minute after the one before it first.
    beyondPlanMs: (MAX_BURSTS - 1) * (MINUTE_MS + TOLERANCE_MS),
  },
  checks: [ID],
  perPlan: true,
  async run(ctx, plan) {
    await withFreshKey(ctx, this.checks, plan, async (first, plan) => {
      const tag = probeTag('burst');
      let last: SkipReason = '';
      let n = 0;
      for (let fk = first; n < MAX_BURSTS && !ctx.signal.aborted; fk = { key: fk.key, how: 'waited' }) {
        const judged = await burstAndJudge(ctx, fk, plan, tag);
        if (judged === undefined) return;
        last = judged.again;
        // The next on a fresh window: every answer of this one is back, so any window it opened ends within a
        // minute (whether or not the headers describe the minute window: they may give the day's).
        const fresh = ctx.clock.now() + MINUTE_MS + TOLERANCE_MS;
        if (++n < MAX_BURSTS) {
          ctx.again(
            `burst [${plan}]: ${fk.key.label}'s burst split across two windows with nothing refused; again on a fresh window`,
          );
          await waitUntil(ctx, fresh, { who: fk.key.label, for: 'a fresh window to burst again (burst)' });
        }
      }
      ctx.ledger.skip(ID, plan, prefixed(`none of ${n} bursts on fresh windows sampled one; the last: `, last));
    });
  },
};
