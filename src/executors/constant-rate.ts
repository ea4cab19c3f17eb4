import type { Executor } from './phase.js';
import { constantSchedule } from './pacing.js';
import { planRate, runOpenModel } from './open-model.js';

export const constantRate: Executor<'constant-rate'> = {
  throughBackoff: true,
  durationMs: (phase) => phase.duration,
  requests: (phase, keys) => constantSchedule(planRate(phase.rate, keys), phase.duration).count,
  unbounded: () => null,
  override: (phase, o) => ({
    ...phase,
    ...(o.rate ? { rate: o.rate } : {}),
    ...(o.duration !== undefined ? { duration: o.duration } : {}),
  }),
  run: (env, phase) => runOpenModel(env, (lane) => constantSchedule(planRate(phase.rate, lane.keys), phase.duration)),
};
