/**
 * Runs a probe schedule (schedule.ts): every step as soon as the steps before it on its lanes are done — a lane
 * per key, one for requests without a key, one for the exact counts on fresh windows — so steps on different keys and plans
 * run side by side and their waits overlap. Each probe sees only the keys its step was given, and the 429 left
 * on its key by the step before. Probes wait for their windows themselves (freshKey, Retry-After, Reset); the
 * runner adds only what the schedule assumed of the address window. Counts what each key really sent.
 */
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import { skipAll, waitUntil, type ProbeContext, type WaitReason } from '../probes/context.js';
import { PROBE_REGISTRY } from '../probes/index.js';
import type { ProbeName } from '../probes/names.js';
import type { Refusals } from '../probes/window.js';
import { countsSideBySide, RoundTrips } from '../probes/in-flight.js';
import { SendTurns, type TurnScope } from './send-turns.js';
import type { KeyState, KeyView } from '../backoff/key-state.js';
import { STRADDLE_MARGIN_MS, type Schedule, type Step } from './schedule.js';
import {
  attributeEnd,
  boundProbe,
  type EndCause,
  ProbeEnded,
  probeTimeBoundMs,
  type ProbeBound,
} from './probe-bounds.js';
import type { RefusalLookup } from './end-cause.js';

export interface StepResult {
  readonly id: number;
  readonly probe: string;
  readonly plan: PlanName | null;
  /** Actual start and end, run-clock ms from the start of the schedule. */
  readonly at: number;
  readonly ends: number;
  /** Requests it sent, on keys and without one. */
  readonly sent: number;
  /** What it took again beyond its plan, and why (ProbeContext.again). */
  readonly again: readonly string[];
}

export interface ScheduleOutcome {
  /** Run-clock ms from the first step's start to the last step's end. */
  readonly durationMs: number;
  readonly requestsByKey: Readonly<Record<string, number>>;
  readonly unkeyed: number;
  readonly steps: readonly StepResult[];
}

/** The keys a step was given, in the step's order (the key a `pair` exhausts first). */
function keyView(all: KeyView, labels: readonly string[]): KeyView {
  const mine = (): KeyState[] =>
    labels.map((l) => all.all().find((s) => s.key.label === l)).filter((s): s is KeyState => s !== undefined);
  return { get: (k) => all.get(k), all: mine, blockedNow: (l, now) => all.blockedNow(l, now) };
}

/** The latest 429 on each key; a step gets the one on its own key (shared by the steps that wait it out). */
class LatestRefusals {
  private readonly byKey = new Map<string, { key: ApiKey; ex: Exchange }>();
  scoped(labels: readonly string[]): Pick<Refusals, 'push' | 'pop'> {
    const self = this;
    return {
      push(key: ApiKey, ex: Exchange) {
        self.byKey.set(key.label, { key, ex });
      },
      pop(plan: PlanName) {
        for (const l of labels) {
          const r = self.byKey.get(l);
          if (r && r.key.plan === plan) return r;
        }
        return undefined;
      },
    };
  }
}

/**
 * A step's lanes. The exact counts of a plan run one after another; across plans the turns (SendTurns) keep them
 * apart on loopback, and let them overlap on a long link. The probes of a plan that send alone take their turns in
 * the schedule's order: a quota-drain that waits across an address window in its turn would otherwise hold a
 * key-isolation planned before it for most of a window.
 */
const lanesOf = (s: Step): string[] => [
  ...s.keys.map((k) => `key:${k}`),
  ...(s.unkeyed > 0 ? ['address'] : []),
  ...(s.exact ? [`exact:${s.plan ?? '-'}`] : []),
  ...(s.plan !== null && PROBE_REGISTRY[s.probe].needs.sends === 'alone' ? [`alone:${s.plan}`] : []),
];

/** Told as each step starts and ends (a progress display); without it, one log line per step. */
/** A wait of a step: until when (run clock) and what for. */
export interface StepWait {
  untilLocal: number;
  reason: WaitReason;
}

/** A step's start and end, and (`wait`) a wait of a real second or more. */
export type StepEvents = (
  probe: ProbeName,
  plan: PlanName | null,
  state: 'start' | 'done' | 'wait',
  wait?: StepWait,
) => void;

/** Every probe's requests, counted as they are handed to the send path and as they settle. */
class RequestCounts {
  sent = 0;
  settled = 0;
  unkeyed = 0;
  readonly byKey: Record<string, number> = {};
  /** The address window the target is assumed to count requests without a key in: the reachability check opened it. */
  addressOpen: number;

  constructor(private readonly clock: ProbeContext['clock']) {
    this.addressOpen = clock.now();
  }

  count(spec: RequestSpec): void {
    this.sent++;
    if (spec.auth.kind === 'key') {
      this.byKey[spec.auth.key.label] = (this.byKey[spec.auth.key.label] ?? 0) + 1;
    } else {
      this.unkeyed++;
      const now = this.clock.now();
      if (now >= this.addressOpen + MINUTE_MS) this.addressOpen = now;
    }
  }
}

/** What the steps of one schedule share. */
interface Shared {
  readonly base: ProbeContext;
  readonly counts: RequestCounts;
  readonly turns: SendTurns;
  readonly refusals: LatestRefusals;
  /** The round trip as the probes' answers show it. */
  readonly trips: RoundTrips;
}

/** A step's probe context: its keys, its key's 429, and sends that take turns as the probe's needs say. */
function stepContext(
  step: Step,
  { base, counts, turns, refusals, trips }: Shared,
  bound: ProbeBound,
  onStep?: StepEvents,
): { ctx: ProbeContext; endTurn(): Promise<void>; sent(): number; again: readonly string[] } {
  // What the probe says of its requests (src/probes/probe.ts SendMode).
  const sends = PROBE_REGISTRY[step.probe].needs.sends;
  const alone = sends === 'alone';
  const direct = sends !== 'shared';
  // Taken once, at the first request (requests sent together share it); everyone's once widened (widenTurn).
  let turn: Promise<() => void> | null = null;
  let wide = false;
  let scope: TurnScope = 'all';
  // A plan's count shares the wire with other plans' where the link is long; a step of no plan (auth's requests
  // without a key) excludes everyone. A plan's quota-drain, whose turn lasts across its wait for the next address
  // window, would otherwise hold every plan's counts for most of a window.
  const scopeNow = (): TurnScope =>
    wide || step.plan === null || !countsSideBySide(trips.ms() ?? 0) ? 'all' : step.plan;
  // Others' requests settled when this probe's turn began: a measurement begun before the turn counts from there.
  let othersSettledAtTurn = 0;
  let ownSent = 0;
  let ownSettled = 0;
  const again: string[] = [];
  const takeTurn = () =>
    (turn ??= turns.exclusive((scope = scopeNow())).then((end) => {
      othersSettledAtTurn = counts.settled - ownSettled;
      return end;
    }));
  // Counted as sent when handed to the send path (not while held for another probe's turn), settled when back.
  const out = async <T>(specs: readonly RequestSpec[], send: () => Promise<T>): Promise<T> => {
    for (const spec of specs) counts.count(spec);
    ownSent += specs.length;
    try {
      return await send();
    } finally {
      counts.settled += specs.length;
      ownSettled += specs.length;
    }
  };
  const via = async <T>(specs: readonly RequestSpec[], send: () => Promise<T>): Promise<T> => {
    if (alone) await takeTurn();
    return direct ? out(specs, send) : turns.shared(step.plan ?? 'all', () => out(specs, send));
  };
  const noted = (ex: Exchange): Exchange => {
    trips.note(ex);
    return ex;
  };
  // Every request of the step is the probe's traffic, measured apart from the load's (src/metrics/recorder.ts).
  const traffic = { class: 'probes', name: step.probe } as const;
  const own = (spec: RequestSpec): RequestSpec => ({ ...spec, traffic });
  const ctx: ProbeContext = {
    ...base,
    // Others' requests in flight at the mark (sent, not settled) and those sent after it: however busy the
    // machine, a request that another probe had out when the measurement began is not missed.
    othersMark: () => {
      const settledAtMark = counts.settled - ownSettled;
      return () => counts.sent - ownSent - Math.max(settledAtMark, othersSettledAtTurn);
    },
    keyStates: keyView(base.keyStates, step.keys),
    refusals: refusals.scoped(step.keys),
    ...(onStep
      ? {
          waiting: (untilLocal: number, reason: WaitReason) =>
            onStep(step.probe, step.plan, 'wait', { untilLocal, reason }),
        }
      : {}),
    signal: bound.signal,
    ledger: bound.ledger,
    send: (spec) => bound.send(() => via([spec], () => base.send(own(spec)).then(noted))),
    sendSimultaneous: (specs) =>
      bound.sendMany(() => via(specs, () => base.sendSimultaneous(specs.map(own)).then((all) => all.map(noted)))),
    again: (why) => {
      again.push(why);
      base.log(why);
    },
    roundTripMs: () => trips.ms(),
    widenTurn: async () => {
      if (!alone || wide) return false;
      wide = true;
      if (turn === null) return false;
      const narrow = scope !== 'all';
      (await turn)();
      turn = null;
      return narrow;
    },
  };
  return {
    ctx,
    endTurn: async () => {
      if (turn) (await turn)();
    },
    sent: () => ownSent,
    again,
  };
}

/** What the schedule assumed of the address window, before a step with requests without a key. */
async function waitForAddress(step: Step, ctx: ProbeContext, { base, counts }: Shared, t0: number): Promise<void> {
  const { clock } = base;
  // The address lane follows the plan's times: a drain started early would meet a spent address window.
  const what = `${step.probe}${step.plan ? ` [${step.plan}]` : ''}`;
  if (step.unkeyed > 0) {
    await waitUntil(ctx, Math.min(t0 + step.at, clock.now() + MINUTE_MS + 2000), {
      who: 'requests without a key',
      for: `the client address's window the schedule gave them (${what})`,
    });
  }
  if (step.straddle) {
    // It lasts across the address window's end: start on a key window opened well after that window began.
    const s = base.keyStates.all().find((k) => k.key.label === step.keys[0]);
    const keyFresh = s?.used ? Math.max(s.minuteWindowEndsBy ?? 0, s.blockedUntil) : 0;
    const bound = clock.now() + MINUTE_MS + 2000;
    await waitUntil(ctx, Math.min(bound, Math.max(counts.addressOpen + STRADDLE_MARGIN_MS, keyFresh)), {
      who: step.keys[0] ?? 'requests without a key',
      for: `a window of its own that lasts across the client address's window (${what})`,
    });
  }
}

/**
 * A probe its bounds ended (probe-bounds.ts): the reason in the notes and the log; what the target did fails the
 * check that owns it, and the probe's checks skip naming it.
 */
function endedEarly(base: ProbeContext, step: Step, cause: EndCause | null): void {
  if (cause === null) return;
  const text = `probe ${step.probe}${step.plan ? ` [${step.plan}]` : ''} ended early: ${cause.reason}`;
  base.note(text);
  base.log(text);
  attributeEnd(cause, base.ledger, PROBE_REGISTRY[step.probe].checks, step.plan);
}

/** The key state's record of a 429 of the run (end-cause.ts reads whether the wait before it was kept). */
function refusalIn(keyStates: ProbeContext['keyStates']): RefusalLookup {
  return (ex) => {
    const s = ex.keyLabel === null ? undefined : keyStates.all().find((k) => k.key.label === ex.keyLabel);
    return s?.refusal ? { key: s.key, refusal: s.refusal } : null;
  };
}

/**
 * A step the run stopped before or during (an interrupt, a wrong target, the deadline): its checks skip saying so,
 * not with the catalogue's advice to run a scenario that runs the probe (the run that stopped may be that very one).
 */
function notRun(base: ProbeContext, step: Step, when: 'before' | 'during'): void {
  const why = when === 'before' ? `before the ${step.probe} probe ran` : `during the ${step.probe} probe`;
  skipAll(base, PROBE_REGISTRY[step.probe].checks, step.plan, `the run stopped ${why}`);
}

/** Plans without a key, and probes the keys cannot serve: their checks skip with the reason. */
function skipUnserved(
  schedule: Schedule,
  base: ProbeContext,
  plans: readonly PlanName[],
  probes: readonly ProbeName[],
) {
  for (const plan of plans) {
    if (schedule.keysPerPlan[plan] && schedule.keysPerPlan[plan]!.have > 0) continue;
    for (const probe of probes) {
      if (PROBE_REGISTRY[probe].perPlan) skipAll(base, PROBE_REGISTRY[probe].checks, plan, `no usable ${plan} key`);
    }
  }
  for (const sk of schedule.skipped) skipAll(base, PROBE_REGISTRY[sk.probe].checks, sk.plan, sk.reason);
}

export async function runSchedule(
  schedule: Schedule,
  base: ProbeContext,
  plans: readonly PlanName[],
  probes: readonly ProbeName[],
  onStep?: StepEvents,
): Promise<ScheduleOutcome> {
  const clock = base.clock;
  const t0 = clock.now();
  const shared: Shared = {
    base,
    counts: new RequestCounts(clock),
    turns: new SendTurns(),
    refusals: new LatestRefusals(),
    trips: new RoundTrips(clock.scale),
  };
  const results: StepResult[] = [];
  const done = new Map<number, Promise<void>>();
  const lastOnLane = new Map<string, Promise<void>>();
  skipUnserved(schedule, base, plans, probes);

  let stopped = false;
  const runStep = async (step: Step) => {
    if (base.signal.aborted || stopped) return notRun(base, step, 'before');
    const probe = PROBE_REGISTRY[step.probe];
    const timeBoundMs = probeTimeBoundMs(probe.needs, step.ends - step.at, clock.scale);
    const bound = boundProbe(probe, {
      clock,
      ledger: base.ledger,
      signal: base.signal,
      timeBoundMs,
      checks: probe.checks,
      refusalOf: refusalIn(base.keyStates),
    });
    const { ctx, endTurn, sent, again } = stepContext(step, shared, bound, onStep);
    await waitForAddress(step, ctx, shared, t0);
    if (base.signal.aborted) {
      bound.dispose();
      await endTurn();
      return notRun(base, step, 'before');
    }
    const start = clock.now();
    onStep?.(step.probe, step.plan, 'start');
    try {
      try {
        await probe.run(ctx, step.plan);
      } finally {
        bound.dispose();
        await endTurn();
      }
    } catch (e) {
      if (!(e instanceof ProbeEnded)) {
        stopped = true; // an interrupt, an unreachable target, a banned key: nothing more is started
        notRun(base, step, 'during');
        throw e;
      }
      // Its own bounds ended it: the others go on, unless the run is stopping (its signal says why).
      if (base.signal.aborted) {
        stopped = true;
        return;
      }
    }
    endedEarly(base, step, bound.cause());
    const end = clock.now();
    results.push({
      id: step.id,
      probe: step.probe,
      plan: step.plan,
      at: start - t0,
      ends: end - t0,
      sent: sent(),
      again,
    });
    if (onStep) onStep(step.probe, step.plan, 'done');
    else
      base.log(
        `probe ${step.probe}${step.plan ? ` [${step.plan}]` : ''} done in ${((end - start) / clock.scale / 1000).toFixed(2)} s`,
      );
  };

  for (const step of schedule.steps) {
    const before = lanesOf(step).map((l) => lastOnLane.get(l) ?? Promise.resolve());
    const p = Promise.all(before).then(() => runStep(step));
    done.set(step.id, p);
    for (const l of lanesOf(step))
      lastOnLane.set(
        l,
        p.catch(() => {}),
      );
  }
  // Every step settles (a failing one does not stop the others on other lanes); the first error is rethrown.
  const settled = await Promise.allSettled(done.values());
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  const end = Math.max(0, ...results.map((r) => r.ends));
  const { byKey: requestsByKey, unkeyed } = shared.counts;
  return { durationMs: end, requestsByKey, unkeyed, steps: results.sort((a, b) => a.id - b.id) };
}
