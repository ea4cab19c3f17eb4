/**
 * runLoad: the load section of a scenario, phase after phase, every request through the backoff policy
 * (except saturate's). The engine calls it after the probes and turns an E_KEY_BANNED error into an aborted
 * run. Bounded: each phase by its schedule's count or its duration, the whole section by `maxRequests`, and
 * everything stops at ctx.signal.
 */
import { setMaxListeners } from 'node:events';
import type { PlanName } from '../api/plans.js';
import { judgeNoBan } from '../backoff/no-ban.js';
import { BackoffPolicy } from '../backoff/policy.js';
import type { LoadSection } from './load-schema.js';
import { PetloadError } from '../core/errors.js';
import { Budget } from './budget.js';
import type { LoadContext } from './context.js';
import { PlanLane, type HeldBack, type LaneShared, type PlanCounts } from './lane.js';
import type { ExecutorName } from './names.js';
import type { Executor, PhaseEnv, PhaseResult, SaturateResult } from './phase.js';
import { executorOf } from './registry.js';
import { Traffic } from './traffic.js';

export interface PhaseOutcome {
  /** 1-based position in the scenario's phases. */
  index: number;
  executor: ExecutorName;
  label: string;
  /** Run-clock ms the phase lasted, waiting for its last answers included. */
  durationMs: number;
  /** Local run-clock time the phase began. */
  startedAt: number;
  /** Each plan's counts, and why arrivals were held back (by cause, most first). */
  plans: ({ plan: PlanName; heldBackBy: HeldBack[] } & PlanCounts)[];
  saturate?: SaturateResult[];
}

export interface LoadOutcome {
  phases: PhaseOutcome[];
  /** Labels of the keys suspected banned during the load. */
  suspectedBans: string[];
  /** Why the load stopped before its last phase was done: the run's signal, or maxRequests spent. */
  stopped: 'signal' | 'max-requests' | null;
}

/** Real ms between two progress reports. */
const PROGRESS_EVERY_MS = 1000;

export async function runLoad(ctx: LoadContext, load: LoadSection): Promise<LoadOutcome> {
  const { clock } = ctx;
  const halt = new AbortController();
  const signal = AbortSignal.any([ctx.signal, halt.signal]);
  // Every waiting worker and retry listens to it: more than 10 at once is no leak.
  setMaxListeners(0, signal);
  const current = new Map<PlanName, PlanLane>();
  const suspectedBans: string[] = [];
  const policy = new BackoffPolicy(
    ctx.keyStates,
    clock,
    { enabled: load.backoff.enabled, baseMs: load.backoff.base, capMs: load.backoff.cap },
    (ban) => {
      suspectedBans.push(ban.key.label);
      current.get(ban.key.plan)?.bans.push(ban);
      ctx.log(
        `backoff: ${ban.key.label} suspected banned (refused with ${ban.refusal.status} after the Retry-After and Reset of its first refusal had passed): no more requests on it`,
      );
      if (ctx.keys.every((k) => ctx.keyStates.get(k).suspectedBan)) halt.abort();
    },
  );
  const shared: LaneShared = {
    ctx,
    policy,
    traffic: new Traffic(load.mix, load.unknownGetShare),
    budget: new Budget(load.maxRequests),
    maxTries: load.backoff.enabled ? load.backoff.maxTries : 1,
    maxInFlight: load.maxInFlight,
  };
  const plans = ctx.plans.filter((p) => ctx.keys.some((k) => k.plan === p));
  const phases: PhaseOutcome[] = [];

  for (const [i, phase] of load.phases.entries()) {
    if (signal.aborted || shared.budget.spent) break;
    const executor: Executor<ExecutorName> = executorOf(phase.executor);
    const label = `phase ${i + 1} (${phase.executor})`;
    const durationMs = executor.durationMs(phase, plans.length);
    const startMono = clock.monotonic();
    const startedAt = clock.now();
    const endsAt = startedAt + durationMs;
    const lanes = plans.map(
      (plan) =>
        new PlanLane(shared, {
          plan,
          keys: ctx.keys.filter((k) => k.plan === plan),
          tag: phase.executor,
          phase: label,
          signal,
          endsAt,
        }),
    );
    current.clear();
    for (const lane of lanes) current.set(lane.plan, lane);
    const env: PhaseEnv = { shared, lanes, signal, startMono, endsAt, label };
    const report = () => {
      const elapsedMs = clock.monotonic() - startMono;
      // Past its length, a phase waits for its last answers (and retries): the line says so, not a silent pause.
      const waiting =
        durationMs > 0 && elapsedMs >= durationMs ? { waiting: `its last answers (${ctx.inFlight()} in flight)` } : {};
      ctx.progress({ phase: label, elapsedMs, totalMs: durationMs, ...waiting });
    };
    report();
    const timer = setInterval(report, PROGRESS_EVERY_MS);
    timer.unref();
    let result: PhaseResult;
    try {
      result = await executor.run(env, phase);
      await Promise.all(lanes.map((lane) => lane.idle()));
    } finally {
      clearInterval(timer);
    }
    report();
    if (executor.throughBackoff && load.backoff.enabled) {
      for (const lane of lanes)
        judgeNoBan(ctx.ledger, lane.record, result.offered?.get(lane.plan) ?? { exceededLimit: false }, label);
    }
    phases.push({
      index: i + 1,
      executor: phase.executor,
      label,
      durationMs: clock.monotonic() - startMono,
      startedAt,
      plans: lanes.map((lane) => ({ plan: lane.plan, ...lane.counts, heldBackBy: lane.heldBack() })),
      ...(result.saturate ? { saturate: [...result.saturate] } : {}),
    });
  }

  if (halt.signal.aborted && !ctx.signal.aborted) {
    throw new PetloadError(
      'E_KEY_BANNED',
      `every key is suspected banned (${suspectedBans.join(', ')}); the load stopped`,
    );
  }
  const stopped = ctx.signal.aborted ? 'signal' : shared.budget.spent ? 'max-requests' : null;
  return { phases, suspectedBans, stopped };
}
