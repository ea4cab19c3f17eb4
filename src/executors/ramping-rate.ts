/** ramping-rate: open model, stages of {rate, duration}, each ramping linearly from the previous rate (see pacing.ts). */
import { z } from 'zod';
import { DurationField, RateField } from '../core/fields.js';
import type { Executor } from './phase.js';
import { rampingSchedule } from './pacing.js';
import { planRate, runOpenModel } from './open-model.js';

export const RampingRatePhase = z.strictObject({
  executor: z.literal('ramping-rate'),
  stages: z.array(z.strictObject({ rate: RateField, duration: DurationField })).min(1),
});

export const rampingRate: Executor<'ramping-rate'> = {
  schema: RampingRatePhase,
  throughBackoff: true,
  durationMs: (phase) => phase.stages.reduce((sum, s) => sum + s.duration, 0),
  requests: (phase, keys) =>
    rampingSchedule(phase.stages.map((s) => ({ perSecond: planRate(s.rate, keys), durationMs: s.duration }))).count,
  unbounded: () => null,
  // --rate leaves a ramp alone; --duration scales its stages to that total.
  override(phase, o) {
    if (o.duration === undefined) return phase;
    const total = phase.stages.reduce((a, s) => a + s.duration, 0);
    const duration = o.duration;
    return { ...phase, stages: phase.stages.map((s) => ({ ...s, duration: (s.duration * duration) / total })) };
  },
  run: (env, phase) =>
    runOpenModel(env, (lane) =>
      rampingSchedule(phase.stages.map((s) => ({ perSecond: planRate(s.rate, lane.keys), durationMs: s.duration }))),
    ),
};
