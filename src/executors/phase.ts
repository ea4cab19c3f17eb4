/**
 * An executor: a traffic shape, which owns its length, its request estimate, how --rate and --duration change
 * its phase, and how it runs it (its phase's schema is its entry of phases.ts). What it gets to run one phase,
 * and what it gives back.
 */
import type { PlanName } from '../api/plans.js';
import type { Offered } from '../backoff/no-ban.js';
import type { ApiKey } from '../core/api-key.js';
import type { Rate } from '../core/rate.js';
import type { LoadSection, Phase } from './load-schema.js';
import type { ExecutorName } from './names.js';
import type { LaneShared, PlanLane } from './lane.js';

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

/** What autocannon measured on one plan's key in a saturate phase. */
export interface SaturateResult {
  plan: PlanName;
  /** The key's label (never the key). */
  key: string;
  connections: number;
  /** Real seconds autocannon ran. */
  durationS: number;
  /** Requests answered. */
  requests: number;
  requestsPerSecond: number;
  /** Real milliseconds. */
  latencyMs: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number };
  statusCounts: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Why saturate stopped before the phase's duration (an answer's body over the read cap); absent otherwise. */
  stopped?: string;
}

export interface PhaseResult {
  /** Per plan, what the offered traffic asked of the limit (open and closed models), for backoff.no-ban. */
  readonly offered?: ReadonlyMap<PlanName, Offered>;
  /** Per plan, autocannon's measurements (saturate). */
  readonly saturate?: readonly SaturateResult[];
}

export type PhaseOf<N extends ExecutorName> = Extract<Phase, { executor: N }>;

/** `--rate` and `--duration` of `petload run`, parsed (src/config/overrides.ts). */
export interface PhaseOverrides {
  readonly rate?: Rate;
  /** Run-clock ms, above zero. */
  readonly duration?: number;
}

export interface Executor<N extends ExecutorName> {
  /** Whether its traffic goes through the backoff policy, so that backoff.no-ban is judged for it. */
  readonly throughBackoff: boolean;
  /** The phase's length on the run clock for `plans` plans (0 for a burst, which has no duration). */
  durationMs(phase: PhaseOf<N>, plans: number): number;
  /** The requests the phase sends on one plan's `keys`, before retries (src/engine/estimate.ts); Infinity when nothing bounds them. */
  requests(phase: PhaseOf<N>, keys: readonly ApiKey[], load: LoadSection): number;
  /** Why the phase has no upper bound (`sends as fast as the target answers`), or null when it has one. */
  unbounded(load: LoadSection): string | null;
  /** The phase with `--rate` and `--duration` applied (what they change is the executor's to say). */
  override(phase: PhaseOf<N>, o: PhaseOverrides): PhaseOf<N>;
  run(env: PhaseEnv, phase: PhaseOf<N>): Promise<PhaseResult>;
}
