import type { PlanName } from '../api/plans.js';

/** The numbers of one progress line, fed by the engine to whatever shows progress (src/cli/progress.ts). */
export interface ProgressStats {
  /** What is running: a probe, or a load phase such as "phase 1 (constant-rate)". */
  phase: string;
  /** Run-clock ms elapsed, and in all (0 when the length is not known, as for a probe or a burst). */
  elapsedMs: number;
  totalMs: number;
  /** Requests sent so far. */
  sent: number;
  /** Requests per run-clock second, recently. */
  rate: number;
  s2xx: number;
  /** 4xx other than 429. */
  s4xx: number;
  s429: number;
  /** Latency p99 in real ms, null before the first response. */
  p99Ms: number | null;
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
  state: 'start' | 'done';
  /** The probe's place among those this plan runs (1-based), and how many it runs. */
  index: number;
  total: number;
  /** Every plan's requests so far (valid keys only). */
  perPlan: readonly PlanSent[];
}
