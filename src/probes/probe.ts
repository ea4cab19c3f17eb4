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
  run(ctx: ProbeContext, plan: PlanName | null): Promise<void>;
}
