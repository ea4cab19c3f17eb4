/**
 * The plan audit (`ratelimit.day-enforced`, opt-in: the plan-audit scenario, a key marked "audit": true). The key is
 * driven at its plan's per-minute figure, waiting out every minute's 429 as its Retry-After says, until the target
 * refuses it for the day. Then: exactly the day figure was accepted (counted, as enforce counts); the day's refusal
 * is a 429 whose Retry-After reaches the end of the day window (within a minute) and whose X-RateLimit-* describe
 * the day window; no minute window accepted more than the minute figure; the key was never banned.
 */
import { MINUTE_MS, MINUTE_S, type PlanName } from '../api/plans.js';
import { retryAfterMs, serverTimeOf, TOLERANCE_MS } from '../backoff/key-state.js';
import type { InfoKey, InfoValue } from '../checks/catalogue.js';
import type { ApiKey } from '../core/api-key.js';
import { fmtDuration } from '../core/duration.js';
import type { Exchange } from '../http/exchange.js';
import { cheapList, isAccepted, probeTag, type ProbeContext, waitUntil } from './context.js';
import type { KeyFigures, Probe } from './probe.js';
import { type Triple, tripleOf } from './window.js';

const ID = 'ratelimit.day-enforced';
/** A refusal that asks for more than this is the day's; a minute's asks for at most a minute. */
const DAY_REFUSAL_MS = MINUTE_MS + 2 * TOLERANCE_MS;
/** How close Retry-After must bring a client to the day window's end. */
const DAY_END_SLACK_MS = MINUTE_MS;

/** The audit's upper bound of requests: the day, a refusal per minute on the way, and a few more. */
const auditRequests = (f: KeyFigures): number => f.perDay + Math.ceil(f.perDay / f.perMinute) + 8;
/** Its run-clock length: the day at the minute figure, and two minutes for the windows' edges. */
const auditMs = (f: KeyFigures): number => (f.perDay / f.perMinute + 2) * MINUTE_MS;
/** When it gives up: twice that and five minutes more (a slow machine sends below the minute figure). */
const auditBoundMs = (f: KeyFigures): number => 2 * auditMs(f) + 5 * MINUTE_MS;

export interface Audit {
  accepted: number;
  minuteRefusals: number;
  /** Accepted answers per minute window the target described (by its Reset), for the minute figure. */
  readonly perMinuteWindow: Map<number, number>;
  /** Answers that were neither accepted nor a 429 (a ban, an error), with their status. */
  readonly others: Exchange[];
  dayRefusal: Exchange | null;
  /** The day windows the accepted answers described (their Reset, to the minute): more than one, the day rolled over. */
  readonly dayResets: Set<number>;
}

/** What the first answer says of the key's day: spent already when its headers describe the day window. */
function spentBefore(ex: Exchange, perDay: number): number | null {
  const t = tripleOf(ex);
  if (t === null || t.limit !== perDay || !isAccepted(ex)) return null;
  const spent = perDay - t.remaining - 1;
  return spent > 0 ? spent : null;
}

function noteAccepted(a: Audit, ex: Exchange, { perMinute, perDay }: KeyFigures): void {
  a.accepted++;
  const t = tripleOf(ex);
  if (t !== null && t.limit === perMinute) a.perMinuteWindow.set(t.reset, (a.perMinuteWindow.get(t.reset) ?? 0) + 1);
  if (t !== null && t.limit === perDay && t.limit !== perMinute) a.dayResets.add(Math.round(t.reset / MINUTE_S));
}

/**
 * The audit's progress, in real time (the run clock beside it when it is scaled): `plan-audit [free]: 301 of 1000
 * accepted today, 305 sent, about 28 s left (11 min 39 s on the 60x clock)`. `sent`: the requests sent on the key.
 */
export function progressLine(plan: PlanName, a: Audit, f: KeyFigures, sent: number, scale: number): string {
  const leftMs = (Math.max(0, f.perDay - a.accepted) / f.perMinute) * MINUTE_MS;
  const clock = scale === 1 ? '' : ` (${fmtDuration(leftMs)} on the ${scale}x clock)`;
  return `plan-audit [${plan}]: ${a.accepted} of ${f.perDay} accepted today, ${sent} sent, about ${fmtDuration(leftMs / scale)} left${clock}`;
}

/** Drive the key at the minute figure until the day's refusal, a bound, or the run's end. */
async function drive(ctx: ProbeContext, key: ApiKey, plan: PlanName, a: Audit): Promise<Exchange | null> {
  const { perMinute, perDay } = key.limits;
  const spacing = MINUTE_MS / perMinute;
  const until = ctx.clock.now() + auditBoundMs(key.limits);
  const tag = probeTag('plan-audit');
  let next = ctx.clock.now();
  let lastLog = next;
  let first: Exchange | null = null;
  for (let i = 0; i < auditRequests(key.limits) && ctx.clock.now() < until && !ctx.signal.aborted; i++) {
    await waitUntil(ctx, next);
    const ex = await ctx.send(cheapList(key, tag));
    first ??= ex;
    if (i === 0 && spentBefore(ex, perDay) !== null) return first;
    next = Math.max(next + spacing, ctx.clock.now());
    if (isAccepted(ex)) noteAccepted(a, ex, key.limits);
    else if (ex.status === 429) {
      const wait = retryAfterMs(ex);
      if (wait !== null && wait > DAY_REFUSAL_MS) {
        a.dayRefusal = ex;
        return first;
      }
      a.minuteRefusals++;
      // The backoff: nothing on the key until the refusal's Retry-After (or its minute) has passed.
      next = Math.max(next, ctx.clock.now() + (wait ?? MINUTE_MS) + TOLERANCE_MS / 4);
    } else a.others.push(ex);
    if (ctx.clock.now() - lastLog >= MINUTE_MS) {
      lastLog = ctx.clock.now();
      ctx.log(progressLine(plan, a, key.limits, i + 1, ctx.clock.scale));
    }
  }
  return first;
}

/** What is wrong with the day's refusal: its status, its Retry-After against the day's end, its headers. */
function refusalProblems(ex: Exchange, perDay: number): string[] {
  const problems: string[] = [];
  const t: Triple | null = tripleOf(ex);
  const now = serverTimeOf(ex);
  const wait = retryAfterMs(ex);
  if (t === null) problems.push('its X-RateLimit-* headers are missing or unusable (see ratelimit.headers-present)');
  else if (t.limit !== perDay || t.remaining !== 0 || t.reset * 1000 - now <= DAY_REFUSAL_MS)
    problems.push(
      `its X-RateLimit-* do not describe the day window (Limit ${t.limit}, Remaining ${t.remaining}, Reset in ${Math.round((t.reset * 1000 - now) / 1000)} s; the day's would be Limit ${perDay}, Remaining 0, Reset at the day's end)`,
    );
  if (wait === null) problems.push('it has no usable Retry-After (see retry-after.present, retry-after.syntax)');
  else if (t !== null && t.limit === perDay && Math.abs(now + wait - t.reset * 1000) > DAY_END_SLACK_MS)
    problems.push(
      `its Retry-After (${Math.round(wait / 1000)} s) does not reach the day window's end (Reset in ${Math.round((t.reset * 1000 - now) / 1000)} s) within a minute`,
    );
  return problems;
}

function judge(ctx: ProbeContext, key: ApiKey, plan: PlanName, a: Audit): void {
  const { perMinute, perDay } = key.limits;
  const info = <K extends InfoKey<typeof ID>>(name: K, value: InfoValue<typeof ID, K>) =>
    ctx.ledger.info(ID, plan, name, value);
  info('dayLimitSold', perDay);
  info('acceptedInDay', a.accepted);
  info('minuteRefusals', a.minuteRefusals);
  const wait = a.dayRefusal ? retryAfterMs(a.dayRefusal) : null;
  info('retryAfterS', wait === null ? null : Math.round(wait / 1000));
  const t = a.dayRefusal ? tripleOf(a.dayRefusal) : null;
  info('dayEnd', t !== null && t.limit === perDay ? new Date(t.reset * 1000).toISOString() : null);
  const problems: string[] = [];
  if (a.dayRefusal === null)
    problems.push(`no refusal for the day came: ${a.accepted} requests accepted (the plan sells ${perDay} a day)`);
  else if (a.accepted !== perDay)
    problems.push(`${a.accepted} requests accepted in the day window; the plan sells ${perDay} a day`);
  if (a.dayRefusal !== null) problems.push(...refusalProblems(a.dayRefusal, perDay).map((p) => `the day's 429: ${p}`));
  const over = [...a.perMinuteWindow.values()].filter((n) => n > perMinute);
  if (over.length > 0)
    problems.push(`${over.length} minute window(s) accepted more than ${perMinute} (at most ${Math.max(...over)})`);
  if (a.others.length > 0)
    problems.push(
      `answers other than 2xx or 429 on the way: ${[...new Set(a.others.map((e) => e.status ?? 'no answer'))].join(', ')} (a ban?)`,
    );
  if (ctx.keyStates.get(key).suspectedBan) problems.push('the key was suspected banned on the way');
  if (problems.length === 0) return ctx.ledger.pass(ID, plan);
  ctx.ledger.fail(ID, plan, problems.join('; '), a.dayRefusal ?? a.others[0]);
}

export const planAuditProbe: Probe = {
  name: 'plan-audit',
  checks: [ID],
  perPlan: true,
  needs: {
    sends: 'on-time',
    window: 'audit',
    because: "it spends its key's whole day",
    requests: auditRequests,
    holdsMs: auditMs,
    expectsRefusals: true,
  },
  async run(ctx, plan) {
    if (plan === null) return;
    const key = ctx.keyStates.all()[0]?.key;
    if (!key) return ctx.ledger.skip(ID, plan, `no ${plan} key marked "audit": true`);
    const a: Audit = {
      accepted: 0,
      minuteRefusals: 0,
      perMinuteWindow: new Map(),
      others: [],
      dayRefusal: null,
      dayResets: new Set(),
    };
    const first = await drive(ctx, key, plan, a);
    const spent = first ? spentBefore(first, key.limits.perDay) : null;
    if (spent !== null)
      return ctx.ledger.skip(
        ID,
        plan,
        `the key had spent ${spent} of its day before the audit (Remaining said so): the audit needs a key whose day is unspent`,
      );
    if (ctx.signal.aborted) return ctx.ledger.skip(ID, plan, 'the run ended before the day was spent');
    if (a.dayRefusal === null && a.accepted <= key.limits.perDay)
      return ctx.ledger.skip(
        ID,
        plan,
        `the day was not spent within the audit's bound (${a.accepted} of ${key.limits.perDay} accepted, ${a.minuteRefusals} minute refusals): too slow to send at the minute figure`,
      );
    if (a.dayResets.size > 1)
      return ctx.ledger.skip(
        ID,
        plan,
        `the target's day window ended during the audit (after ${a.accepted} accepted): the count is void; run it again at the start of a day window`,
      );
    judge(ctx, key, plan, a);
  },
};
