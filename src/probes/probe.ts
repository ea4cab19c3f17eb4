import type { PlanName } from '../api/plans.js';
import type { CheckId } from '../checks/catalogue.js';
import type { ProbeContext } from './context.js';
import type { ProbeName } from './names.js';

/** An active sequence. `perPlan` probes run once per judged plan; the others once with plan null. */
export interface Probe {
  readonly name: ProbeName;
  /** The checks this probe exists to judge (passive checks judge its exchanges too). */
  readonly checks: readonly CheckId[];
  readonly perPlan: boolean;
  /**
   * What the probe sends on its nominal path (no retry after a 429), when that is a fixed number: requests on
   * the plan's key, and requests without a valid key. The probe planner (src/engine/schedule.ts) lays the
   * schedule out with it. Absent for the probes whose requests follow the key's quota (enforce, burst, ...),
   * which the planner works out from the quota.
   */
  readonly requests?: { readonly keyed: number; readonly unkeyed: number };
  run(ctx: ProbeContext, plan: PlanName | null): Promise<void>;
}
