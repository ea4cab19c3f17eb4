/**
 * The run's deadline: a run's time is bounded as a whole, not only step by step. It is derived before anything is
 * sent from what the run expects to take (the probe schedule's length, every load phase's full length, the longest
 * wait a probe may add beyond its plan), with a margin:
 *
 *   deadline = 2 × expected + 5 minute windows of the target (run clock), and never less than 2 minutes of real time.
 *
 * The factor and the windows leave room for what the plan cannot foresee on a real target (windows already spent
 * by other clients, refusals waited out, a slow target); the real-time floor for a slow machine on a scaled clock.
 * Past it the run stops as an interrupt does (no new sends, requests in flight get the drain's grace), and writes
 * every report with verdict `aborted`, the reason, and exit 3 (E_DEADLINE). docs/safety.md.
 */
import { setMaxListeners } from 'node:events';
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { LoadSection } from '../config/scenario.js';
import { ERRORS, EXIT } from '../core/errors.js';
import { executorOf } from '../executors/registry.js';
import { PROBE_REGISTRY } from '../probes/index.js';
import type { RunEvents } from '../core/run-events.js';
import type { Estimate } from './estimate.js';
import { fmtDuration } from '../core/duration.js';

export const DEADLINE_FACTOR = 2;
/** Minute windows of the target added to twice the expected length. */
export const DEADLINE_MARGIN_WINDOWS = 5;
/** Real ms the deadline is never below. */
export const DEADLINE_FLOOR_REAL_MS = 120_000;

/** The longest delay a timer takes (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DeadlineBasis {
  /** What the run expects to take, run-clock ms: probes, load phases (every plan of a saturate phase), waits allowed beyond the plan. */
  readonly expectedMs: number;
  /** The deadline, real ms from the start of the run's sending. */
  readonly realMs: number;
  /** How it was derived, for people. */
  readonly why: string;
}

/** Run-clock ms every load phase lasts, each for every plan it runs on (saturate runs plan after plan). */
function loadMs(load: LoadSection | undefined, plans: number): number {
  if (!load) return 0;
  return load.phases.reduce((sum, ph) => sum + executorOf(ph.executor).durationMs(ph, Math.max(1, plans)), 0);
}

/** The run's deadline from its estimate (estimate.ts), its load section and the number of plans with keys. */
export function deadlineOf(estimate: Estimate, load: LoadSection | undefined, plans: number): DeadlineBasis {
  const beyond = Math.max(0, ...estimate.schedule.steps.map((st) => PROBE_REGISTRY[st.probe].needs.beyondPlanMs ?? 0));
  const expectedMs = estimate.loadAtMs + loadMs(load, plans) + beyond;
  const clockMs = DEADLINE_FACTOR * expectedMs + DEADLINE_MARGIN_WINDOWS * MINUTE_MS;
  const realMs = Math.max(clockMs / estimate.scale, DEADLINE_FLOOR_REAL_MS);
  const clock = estimate.scale === 1 ? '' : ` on the ${estimate.scale}x clock`;
  const floor =
    realMs > clockMs / estimate.scale ? `, at least ${fmtDuration(DEADLINE_FLOOR_REAL_MS)} of real time` : '';
  const why = `${DEADLINE_FACTOR} × the expected ${fmtDuration(expectedMs)} + ${DEADLINE_MARGIN_WINDOWS} minute windows${clock}${floor}`;
  return { expectedMs, realMs, why };
}

export interface RunDeadline {
  /** Aborts when the caller's signal does, or at the deadline. */
  readonly signal: AbortSignal;
  /** Start the clock: the run stops `realMs` from now. */
  arm(basis: DeadlineBasis): void;
  /** Why the run was stopped, when the deadline stopped it (not the caller's signal); else null. */
  fired(): { reason: string; exitCode: number; hint: string; note?: string } | null;
  dispose(): void;
}

/** The run's signal with its deadline: `outer` (an interrupt) or the deadline, whichever comes first. */
export function runDeadline(outer: AbortSignal): RunDeadline {
  const own = new AbortController();
  const signal = AbortSignal.any([outer, own.signal]);
  // Every waiting probe and worker listens to it: more than 10 at once is no leak.
  setMaxListeners(0, signal);
  let timer: NodeJS.Timeout | undefined;
  let reason: string | null = null;
  return {
    signal,
    arm(basis) {
      if (timer !== undefined) return;
      timer = setTimeout(
        () => {
          if (outer.aborted) return;
          reason = `the run's deadline passed: ${fmtDuration(basis.realMs)} (${basis.why}); it stopped and reported what it had`;
          own.abort();
        },
        Math.min(basis.realMs, MAX_TIMER_MS),
      );
    },
    fired: () => (reason === null ? null : { reason, exitCode: EXIT.aborted, hint: ERRORS.E_DEADLINE.hint }),
    dispose: () => clearTimeout(timer),
  };
}

/**
 * Arm the run's deadline once its estimate is known (`fixedMs`, when given, replaces the derived one: a testing
 * aid), and say it in the report's notes and the log.
 */
export function armDeadline(
  bound: RunDeadline,
  planned: Estimate,
  run: { load: LoadSection | undefined; plans: readonly PlanName[] },
  events: RunEvents,
  fixedMs?: number,
): void {
  const derived = deadlineOf(planned, run.load, run.plans.length);
  const basis = fixedMs === undefined ? derived : { ...derived, realMs: fixedMs, why: 'set by the caller' };
  bound.arm(basis);
  const text = `Deadline: the run stops after ${fmtDuration(basis.realMs)} of real time (${basis.why}).`;
  events.emit({ type: 'note', text });
  events.emit({ type: 'log', text, notice: false });
}
