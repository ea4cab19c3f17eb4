/** ramping-rate: open model, stages of {rate, duration}, each ramping linearly from the previous rate (see pacing.ts). */
import type { Executor } from './phase.js';
import { rampingSchedule } from './pacing.js';
import { planRate, runOpenModel } from './open-model.js';

export const rampingRate: Executor<'ramping-rate'> = {
  throughBackoff: true,
  durationMs: (phase) => phase.stages.reduce((sum, s) => sum + s.duration, 0),
  run: (env, phase) =>
    runOpenModel(env, (lane) => rampingSchedule(phase.stages.map((s) => ({ perSecond: planRate(s.rate, lane.keys), durationMs: s.duration })))),
};
