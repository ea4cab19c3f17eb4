/**
 * What the engine tells a display while a run goes on (src/cli/progress.ts and src/cli/plan-board.ts show it):
 * during probes, a ProbeProgress at each probe's start and end on a plan; during the load section, ProgressStats
 * about once a second. Shapes only, so that the engine and the displays depend on this file, not on each other.
 */
import type { PlanName } from '../api/plans.js';

/** The numbers of one load progress line (probes report through ProbeProgress instead). */
export interface ProgressStats {
  /** The load phase running, such as "phase 1 (constant-rate)". */
  phase: string;
  /** Run-clock ms elapsed in the phase, and its length (0 when it is not known, as for a burst). */
  elapsedMs: number;
  totalMs: number;
  /** Requests sent so far. */
  sent: number;
  /** Requests per real second, recently (0 on a phase's first line: nothing to measure over yet). */
  rate: number;
  /** How much faster than real time the run clock goes (absent or 1: not scaled); elapsed times are on it. */
  timeScale?: number;
  s2xx: number;
  /** 4xx other than 429. */
  s4xx: number;
  s429: number;
  /** Latency p99 in real ms, null before the first response. */
  p99Ms: number | null;
  /** What the phase waits for once its time is up (its last answers), when it does. */
  waiting?: string;
}

/** Requests sent so far on a plan's keys, and how many were refused (429). */
export interface PlanSent {
  plan: PlanName;
  sent: number;
  refused: number;
}

/** A probe starting or ending on one plan (plan null: a probe that runs once, without a plan). */
export interface ProbeProgress {
  probe: string;
  plan: PlanName | null;
  /** `wait`: the probe (or the schedule before it) waits a real second or more; `waiting` says for what. */
  state: 'start' | 'done' | 'wait';
  /** Whose wait it is (a key's label, or the requests without a key), what for, and how long in real ms. */
  waiting?: { who: string; why: string; realMs: number };
  /** The probe's place among those this plan runs (1-based), and how many it runs. */
  index: number;
  total: number;
  /** Every plan's requests so far (valid keys only). */
  perPlan: readonly PlanSent[];
}
