/**
 * Open-model pacing: when each arrival is due, and a timer loop that waits for it.
 *
 * Intended times are computed from the phase start for each arrival (t0 + i / rate for a constant rate), never
 * by adding gaps, so rounding never accumulates into drift. Arrivals are evenly spaced within the second.
 * The wait sleeps with a timer until about SPIN_MS of real time before the arrival (Node timers fire up to a
 * millisecond or so late), then yields with setImmediate until it is due: accurate to tens of microseconds
 * while other I/O keeps being served.
 */
import type { Clock } from '../core/clock.js';

/** Arrivals of one plan over one phase, on the run clock. */
export interface Schedule {
  /** How many arrivals the schedule has. */
  readonly count: number;
  readonly durationMs: number;
  /** Run-clock ms from the phase start at which arrival `i` (0-based) is due; non-decreasing in i. */
  at(i: number): number;
  /** The offered rate at `t` ms from the phase start, in requests per run-clock ms. */
  rateAt(t: number): number;
}

/** Rounding slack when counting the arrivals that fall before a phase's end. */
const EPSILON = 1e-9;

/** `perSecond` requests per run-clock second for `durationMs`: arrival i at i / rate. */
export function constantSchedule(perSecond: number, durationMs: number): Schedule {
  const perMs = perSecond / 1000;
  const count = perMs > 0 ? Math.max(0, Math.ceil(perMs * durationMs - EPSILON)) : 0;
  return { count, durationMs, at: (i) => i / perMs, rateAt: () => perMs };
}

export interface Stage {
  readonly perSecond: number;
  readonly durationMs: number;
}

interface Segment {
  readonly startMs: number;
  readonly durationMs: number;
  /** Rates at the segment's start and end, per ms. */
  readonly r0: number;
  readonly r1: number;
  /** Arrivals (a real number) before the segment. */
  readonly before: number;
}

/**
 * Stages of a ramping rate, as k6's ramping-arrival-rate: each stage moves the rate linearly from the previous
 * stage's target (0 before the first stage) to its own over its duration. A stage that repeats the previous
 * rate holds it. Arrival i is due when the integral of the rate reaches i.
 */
export function rampingSchedule(stages: readonly Stage[]): Schedule {
  const segments: Segment[] = [];
  let start = 0;
  let before = 0;
  let r = 0;
  for (const s of stages) {
    const r1 = s.perSecond / 1000;
    segments.push({ startMs: start, durationMs: s.durationMs, r0: r, r1, before });
    before += ((r + r1) / 2) * s.durationMs;
    start += s.durationMs;
    r = r1;
  }
  const count = Math.max(0, Math.ceil(before - EPSILON));
  let cursor = 0;
  const segmentOfArrival = (i: number): Segment => {
    // Arrivals are asked for in order: move forward from the last segment used (back to the start otherwise).
    if (cursor >= segments.length || segments[cursor]!.before > i) cursor = 0;
    while (cursor < segments.length - 1 && segments[cursor + 1]!.before <= i) cursor++;
    return segments[cursor]!;
  };
  return {
    count,
    durationMs: start,
    at(i) {
      const s = segmentOfArrival(i);
      const x = i - s.before;
      if (x <= 0) return s.startMs;
      const a = (s.r1 - s.r0) / (2 * s.durationMs);
      // r0*t + a*t^2 = x, solved in the form that stays exact when a is 0 or tiny.
      const t = (2 * x) / (s.r0 + Math.sqrt(Math.max(0, s.r0 * s.r0 + 4 * a * x)));
      return s.startMs + Math.min(t, s.durationMs);
    },
    rateAt(t) {
      const s = segments.find((g) => t < g.startMs + g.durationMs) ?? segments[segments.length - 1];
      if (s === undefined) return 0;
      const f = Math.min(1, Math.max(0, (t - s.startMs) / s.durationMs));
      return s.r0 + (s.r1 - s.r0) * f;
    },
  };
}

const INTEGRAL_STEPS = 4096;

/** The integral of min(rate, capPerMs) over [0, untilMs): the requests a limit lets through of the schedule. */
export function cappedIntegral(schedule: Schedule, capPerMs: number, untilMs: number): number {
  const end = Math.min(untilMs, schedule.durationMs);
  if (end <= 0) return 0;
  const step = end / INTEGRAL_STEPS;
  let sum = 0;
  for (let k = 0; k < INTEGRAL_STEPS; k++) sum += Math.min(schedule.rateAt((k + 0.5) * step), capPerMs);
  return sum * step;
}

/** Whether the schedule's rate exceeds `capPerMs` at some time before `untilMs`. */
export function exceeds(schedule: Schedule, capPerMs: number, untilMs: number): boolean {
  const end = Math.min(untilMs, schedule.durationMs);
  for (let k = 0; k <= INTEGRAL_STEPS; k++) if (schedule.rateAt((k / INTEGRAL_STEPS) * end) > capPerMs) return true;
  return false;
}

/** Real milliseconds before a due time spent yielding instead of sleeping on a timer. */
const SPIN_MS = 2;

function immediate(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Wait until the clock's monotonic time reaches `target` (run-clock ms), or the signal aborts. */
export async function sleepUntil(clock: Clock, target: number, signal: AbortSignal): Promise<void> {
  for (;;) {
    const leftReal = (target - clock.monotonic()) / clock.scale;
    if (leftReal <= 0 || signal.aborted) return;
    if (leftReal > SPIN_MS) await clock.sleep((leftReal - SPIN_MS) * clock.scale, signal);
    else await immediate();
  }
}

/**
 * Run a schedule from `startMono`: call `arrive(intended)` at each arrival's intended time (monotonic run-clock
 * ms). Stops at the signal, or when `arrive` returns false. Bounded by the schedule's count and its duration.
 */
export async function pace(
  clock: Clock,
  schedule: Schedule,
  startMono: number,
  signal: AbortSignal,
  arrive: (intended: number) => boolean,
): Promise<void> {
  for (let i = 0; i < schedule.count; i++) {
    const intended = startMono + schedule.at(i);
    if (clock.monotonic() < intended) await sleepUntil(clock, intended, signal);
    if (signal.aborted || !arrive(intended)) return;
  }
}
