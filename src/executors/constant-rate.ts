/** constant-rate: open model, a fixed arrival rate per plan, evenly spaced on the run clock. */
import type { Executor } from './phase.js';
import { constantSchedule } from './pacing.js';
import { planRate, runOpenModel } from './open-model.js';

export const constantRate: Executor<'constant-rate'> = {
  throughBackoff: true,
  durationMs: (phase) => phase.duration,
  run: (env, phase) => runOpenModel(env, (lane) => constantSchedule(planRate(phase.rate, lane.keys), phase.duration)),
};
