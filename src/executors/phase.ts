/** What an executor gets to run one phase, and what it gives back. */
import type { PlanName } from '../api/plans.js';
import type { Offered } from '../backoff/no-ban.js';
import type { Phase } from '../config/scenario.js';
import type { ExecutorName } from './names.js';
import type { LaneShared, PlanLane } from './lane.js';
import type { SaturateResult } from './saturate.js';

export interface PhaseEnv {
  readonly shared: LaneShared;
  /** One lane per plan with keys. */
  readonly lanes: readonly PlanLane[];
  /** Aborts at the run's signal, or when every key is suspected banned. */
  readonly signal: AbortSignal;
  /** Monotonic run-clock ms at which the phase started. */
  readonly startMono: number;
  /** Local run-clock time (epoch ms) at which the phase ends. */
  readonly endsAt: number;
  /** Names the phase in logs, evidence and info, e.g. "phase 2 (constant-rate)". */
  readonly label: string;
}

export interface PhaseResult {
  /** Per plan, what the offered traffic asked of the limit (open and closed models), for backoff.no-ban. */
  readonly offered?: ReadonlyMap<PlanName, Offered>;
  /** Per plan, autocannon's measurements (saturate). */
  readonly saturate?: readonly SaturateResult[];
}

export type PhaseOf<N extends ExecutorName> = Extract<Phase, { executor: N }>;

export interface Executor<N extends ExecutorName> {
  /** Whether its traffic goes through the backoff policy, so that backoff.no-ban is judged for it. */
  readonly throughBackoff: boolean;
  /** The phase's length on the run clock for `plans` plans (0 for a burst, which has no duration). */
  durationMs(phase: PhaseOf<N>, plans: number): number;
  run(env: PhaseEnv, phase: PhaseOf<N>): Promise<PhaseResult>;
}
