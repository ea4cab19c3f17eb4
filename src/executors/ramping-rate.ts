import type { Executor } from './phase.js';
import { rampingSchedule } from './pacing.js';
import { planRate, runOpenModel } from './open-model.js';

export const rampingRate: Executor<'ramping-rate'> = {
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
