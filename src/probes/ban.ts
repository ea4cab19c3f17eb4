/**
 * The opt-in ban probe (sacrificial keys only): bring a key to a 429, then keep sending inside its Retry-After to
 * learn the ban's threshold, status and `code`, its duration on the target's clock, and the recovery.
 *
 * Every request it sends once the key is refused is a deliberate knock (RequestSpec intent `knock`): the client's
 * hold-back lets it out and backoff.respects-retry-after does not count it. Everything is bounded: at most
 * MAX_ROUNDS refusals knocked inside, MAX_KNOCKS knocks in each, MAX_POLLS requests to follow a ban, and a ban
 * is followed for at most RECOVERY_BOUND_MS of the run clock. The figures: ban-measure.ts.
 */
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { InfoKey, InfoValue } from '../checks/catalogue.js';
import type { ApiKey } from '../core/api-key.js';
import { type KeyState, retryAfterMs, TOLERANCE_MS } from '../backoff/key-state.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import { answerOf, banDuration, describeAnswer, nextPoll, sameAnswer, wallAt } from './ban-measure.js';
import { cheapList, isAccepted, probeTag, waitUntil, type ProbeContext } from './context.js';
import type { Probe } from './probe.js';
import { exhaust, minuteQuota, tripleOf } from './window.js';
import { see } from '../checks/skip-reason.js';

const ID = 'ban.probe';
/** Refusals the probe knocks inside at most (each a fresh window brought to a 429). */
const MAX_ROUNDS = 3;
/** Knocks inside one refusal at most. */
const MAX_KNOCKS = 100;
/** Run-clock ms between two knocks. */
const KNOCK_GAP_MS = 200;
/**
 * Before its first knock the probe lets the refusal age by at least PAUSE_MS of the run clock and PAUSE_REAL_MS of
 * real time: a server may forgive requests that were already on their way when it sent the 429 (the reference
 * server forgives 250 real ms), and a forgiven knock would be counted into the threshold.
 */
const PAUSE_MS = 1000;
const PAUSE_REAL_MS = 400;
/** Requests sent to follow a ban to its end at most. */
const MAX_POLLS = 60;
/** Without a usable Retry-After, polls back off from 1 s, doubling up to this gap. */
const MAX_BLIND_GAP_MS = 300_000;
/** The longest ban followed to its end (run-clock ms). */
const RECOVERY_BOUND_MS = 3_600_000;

/**
 * The most requests the probe sends on a key whose minute quota is `quota`: per refusal, the quota and the request
 * refused, then the knocks; then the requests following the ban, and the recovery request.
 */
export const banProbeMaxRequests = (quota: number): number => MAX_ROUNDS * (quota + 1 + MAX_KNOCKS) + MAX_POLLS + 1;

interface Round {
  knocks: number;
  /** The first knock answered differently from the refusal (status, code, or a wait beyond the refusal's end). */
  change: Exchange | null;
  /** A knock that got no answer (transport error): whether it reached the target is unknown. */
  lost: number;
  /** Local time the refusal ends (its Retry-After, bounded by the minute). */
  refusalEnd: number;
}

const knockSpec = (key: ApiKey, tag: string): RequestSpec => ({ ...cheapList(key, tag), intent: 'knock' });

/**
 * Knock inside `refusal`'s Retry-After until the answer changes, the wait is about to end, or MAX_KNOCKS. The target
 * handled each request between its send and its answer, and a Retry-After is rounded up to whole seconds: the
 * refusal ends no earlier than a second before the send plus its wait, and no later than its answer plus its wait.
 */
async function knockInside(ctx: ProbeContext, key: ApiKey, tag: string, refusal: Exchange): Promise<Round> {
  const wait = Math.min(retryAfterMs(refusal) ?? MINUTE_MS, MINUTE_MS + TOLERANCE_MS);
  const refusalEnd = refusal.localTime + wait;
  const stopAt = wallAt(refusal, refusal.timing.sent) + wait - TOLERANCE_MS - KNOCK_GAP_MS;
  const firstAt = refusal.localTime + Math.max(PAUSE_MS, PAUSE_REAL_MS * ctx.clock.scale);
  const round: Round = { knocks: 0, change: null, lost: 0, refusalEnd };
  if (firstAt >= stopAt) return round;
  await waitUntil(ctx, firstAt);
  const refused = answerOf(refusal);
  while (round.knocks < MAX_KNOCKS && ctx.clock.now() < stopAt && !ctx.signal.aborted) {
    const ex = await ctx.send(knockSpec(key, tag));
    round.knocks++;
    if (ex.status === null) round.lost++;
    else if (isAccepted(ex))
      break; // the refusal ended early: no ban in this one
    else {
      // A wait that ends beyond the refusal's latest end, even counted from the knock's send (and rounded up).
      const ra = retryAfterMs(ex);
      const beyond = ra !== null && wallAt(ex, ex.timing.sent) + ra - TOLERANCE_MS > refusalEnd + TOLERANCE_MS;
      if (!sameAnswer(answerOf(ex), refused) || beyond) {
        round.change = ex;
        break;
      }
    }
    await ctx.clock.sleep(KNOCK_GAP_MS, ctx.signal);
  }
  return round;
}

interface Followed {
  /** The first answer that is not the ban's, or null if none came within the bounds. */
  end: Exchange | null;
  /** The last answer that still was the ban's. */
  lastBanned: Exchange;
  polls: number;
}

/** Follow a ban to its end: wait what it says (nextPoll), then knock until the answer is not the ban's. */
async function followBan(ctx: ProbeContext, key: ApiKey, tag: string, ban: Exchange): Promise<Followed> {
  const banned = answerOf(ban);
  const deadline = ban.localTime + RECOVERY_BOUND_MS;
  let blindGap = 1000;
  let next = nextPoll(ban, blindGap, ctx.clock.scale);
  const followed: Followed = { end: null, lastBanned: ban, polls: 0 };
  while (followed.polls < MAX_POLLS && !ctx.signal.aborted) {
    await waitUntil(ctx, Math.min(next, deadline), {
      who: key.label,
      for: 'its ban to end (ban)',
    });
    if (ctx.signal.aborted) break;
    const ex = await ctx.send(knockSpec(key, tag));
    followed.polls++;
    if (ex.status !== null && !sameAnswer(answerOf(ex), banned)) {
      followed.end = ex;
      break;
    }
    if (ex.status !== null) followed.lastBanned = ex;
    if (ctx.clock.now() >= deadline) break;
    if (ex.status === null || retryAfterMs(ex) === null) blindGap = Math.min(blindGap * 2, MAX_BLIND_GAP_MS);
    next = nextPoll(ex, blindGap, ctx.clock.scale);
  }
  return followed;
}

/**
 * After the ban: accepted already, or refused otherwise (a minute window still used up): then wait what that
 * answer and the key's state say (bounded by the minute) and send one ordinary request.
 */
async function recover(ctx: ProbeContext, key: ApiKey, tag: string, end: Exchange): Promise<Exchange> {
  if (isAccepted(end)) return end;
  const wait = Math.min(retryAfterMs(end) ?? MINUTE_MS, MINUTE_MS + TOLERANCE_MS);
  const bound = ctx.clock.now() + MINUTE_MS + 2000;
  await waitUntil(ctx, Math.min(Math.max(end.localTime + wait, ctx.keyStates.get(key).blockedUntil), bound), {
    who: key.label,
    for: 'the end of the wait its 429 asked for, to see it recover (ban)',
  });
  return ctx.send(cheapList(key, tag));
}

/** What the rounds of knocking came to. */
interface Knocking {
  knocks: number;
  lost: number;
  /** Attempts to bring the key to a 429 (each a window used up). */
  rounds: number;
  /** Refusals knocked inside. */
  refusals: number;
  /** Attempts that brought no 429: the window ended before the quota was used up. */
  rolledOver: number;
  /** The last round of knocks (its `change`: the ban's first answer). */
  round: Round | null;
}

/**
 * Knock inside a refusal; if it ends (or is too short to knock in) without a change, try a fresh one. An attempt that
 * brings no 429 (the window rolled over while the quota was being used up) counts as a round too.
 */
async function knockRounds(ctx: ProbeContext, victim: KeyState, tag: string): Promise<Knocking> {
  const key = victim.key;
  const k: Knocking = { knocks: 0, lost: 0, rounds: 0, refusals: 0, rolledOver: 0, round: null };
  for (let i = 0; i < MAX_ROUNDS && !ctx.signal.aborted; i++) {
    // Start on a key that may be sent on: past the previous refusal and any Retry-After it got (bounded).
    const bound = ctx.clock.now() + MINUTE_MS + 2000;
    await waitUntil(ctx, Math.min(Math.max(k.round?.refusalEnd ?? 0, victim.blockedUntil), bound), {
      who: key.label,
      for: 'its window to restart before the next round of knocks (ban)',
    });
    const run = await exhaust(ctx, key, tag, minuteQuota(key));
    k.rounds++;
    if (run.refusal === null && run.rolledOver) k.rolledOver++;
    if (run.refusal?.status !== 429) continue;
    k.refusals++;
    const round = await knockInside(ctx, key, tag, run.refusal);
    k.round = round;
    k.knocks += round.knocks;
    k.lost += round.lost;
    if (round.change !== null) break;
  }
  return k;
}

const infoOf =
  (ctx: ProbeContext, plan: PlanName) =>
  <K extends InfoKey<typeof ID>>(name: K, value: InfoValue<typeof ID, K>) =>
    ctx.ledger.info(ID, plan, name, value);

/**
 * The ban `ban` (the first answer that changed, after `knocks` knocks): its threshold, status and code; then followed
 * to its end, and the recovery after it.
 */
async function measureBan(
  ctx: ProbeContext,
  plan: PlanName,
  victim: KeyState,
  tag: string,
  ban: Exchange,
  knocks: number,
): Promise<void> {
  const key = victim.key;
  const info = infoOf(ctx, plan);
  // The threshold: the knocks the target answered like the refusal, before the one that changed the answer.
  info('knocksUntilChange', knocks);
  info('banThreshold', knocks - 1);
  info('banStatus', ban.status);
  info('banCode', answerOf(ban).code);
  const banWait = retryAfterMs(ban);
  info('banRetryAfterSeconds', banWait === null ? null : Math.round(banWait / 100) / 10);
  info('banRateLimitHeaders', tripleOf(ban) !== null);

  const followed = await followBan(ctx, key, tag, ban);
  info('pollsFollowingBan', followed.polls);
  if (followed.end === null) {
    victim.suspectedBan = true;
    info('banEnded', false);
    ctx.note(
      `${plan}: banned after ${knocks} knocks inside Retry-After (${describeAnswer(ban)}); the ban did not end within ${followed.polls} requests and ${RECOVERY_BOUND_MS / 1000} s.`,
    );
    return ctx.ledger.skip(
      ID,
      plan,
      `the ban (${describeAnswer(ban)}) did not end within the bound (${followed.polls} requests, ${RECOVERY_BOUND_MS / 1000} s): its duration and recovery were not measured`,
    );
  }
  const d = banDuration(ban, followed.lastBanned, followed.end);
  info('banEnded', true);
  info('banDurationSeconds', d.seconds);
  info('banDurationUncertaintySeconds', d.uncertaintySeconds);
  info('banDurationClock', d.clock);
  info('answerAfterBan', describeAnswer(followed.end));
  const after = await recover(ctx, key, tag, followed.end);
  const recovered = isAccepted(after);
  info('recovered', recovered);
  info('recoveryStatus', after.status);
  ctx.ledger.pass(ID, plan);
  ctx.note(
    `${plan}: banned after ${knocks} knocks inside Retry-After (${describeAnswer(ban)}) for ${d.seconds} s (${d.clock}); ${recovered ? 'accepted again after it' : `not accepted after it (${after.status ?? 'no answer'})`}.`,
  );
}

export const banProbe: Probe = {
  name: 'ban',
  // A window of knocking and polling, and the rounding of Reset and Retry-After on either side.
  needs: {
    sends: 'on-time',
    window: 'sacrificial',
    because: 'it may get its key banned',
    requests: banProbeMaxRequests,
    holdsMs: MINUTE_MS + 2000,
    beyondPlanMs: RECOVERY_BOUND_MS + MAX_ROUNDS * 2 * (MINUTE_MS + 2000),
    expectsRefusals: true,
  },
  checks: [ID],
  perPlan: true,
  async run(ctx, plan) {
    if (plan === null) return;
    const victim = ctx.keyStates.all().find((s) => s.key.plan === plan && s.key.sacrificial && !s.suspectedBan);
    if (!victim)
      return ctx.ledger.skip(ID, plan, `opt-in: needs a ${plan} key marked "sacrificial": true in the keys file`);
    const tag = probeTag('ban');
    const info = infoOf(ctx, plan);
    // On a scaled clock (the embedded server), real time is what runs short: say which knob gives more of it.
    const slower =
      ctx.clock.scale > 1
        ? `; the clock runs ${ctx.clock.scale} times faster than real time, and a smaller --time-scale leaves more real time in each window`
        : '';
    const { knocks, lost, rounds, refusals, rolledOver, round } = await knockRounds(ctx, victim, tag);
    if (refusals === 0) {
      const none = `the key could not be brought to a 429 in ${rounds} attempt(s)`;
      const why =
        rolledOver > 0
          ? `${none}: ${rolledOver} window(s) ended before the quota was used up${slower}`
          : see(none, 'ratelimit.enforced');
      return ctx.ledger.skip(ID, plan, why);
    }
    info('knocks', knocks);
    info('refusalsKnockedInside', refusals);
    if (lost > 0) info('knocksWithoutAnswer', lost);
    const ban = round?.change ?? null;
    if (ban === null) {
      if (knocks === 0) {
        return ctx.ledger.skip(
          ID,
          plan,
          `sent no knock: in ${refusals} refusal(s) the Retry-After left too little time to knock inside it${slower}`,
        );
      }
      ctx.note(`${plan}: no ban seen after ${knocks} knocks inside ${refusals} Retry-After wait(s).`);
      return ctx.ledger.skip(
        ID,
        plan,
        `no change within the bound: ${knocks} knocks inside ${refusals} Retry-After wait(s) (at most ${MAX_KNOCKS} each, ${KNOCK_GAP_MS} ms apart) were all answered like the refusal${knocks < MAX_KNOCKS * refusals ? slower : ''}`,
      );
    }
    await measureBan(ctx, plan, victim, tag, ban, round!.knocks);
  },
};
