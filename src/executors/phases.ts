/**
 * The phase schemas of the executors that need more than a few lines of code to run: here, apart from that code,
 * so that reading a scenario (petload validate, k8s, list) loads no load machinery. Each executor's file uses its
 * schema from here; burst's, which needs nothing heavy, stays in burst.ts.
 */
import * as z from 'zod';
import { Count, DurationField, RateField } from '../core/fields.js';

export const ConstantRatePhase = z.strictObject({
  executor: z.literal('constant-rate'),
  rate: RateField,
  duration: DurationField,
});

export const RampingRatePhase = z.strictObject({
  executor: z.literal('ramping-rate'),
  stages: z.array(z.strictObject({ rate: RateField, duration: DurationField })).min(1),
});

export const ConcurrencyPhase = z.strictObject({
  executor: z.literal('concurrency'),
  workers: Count(10_000),
  duration: DurationField,
});

export const SaturatePhase = z.strictObject({
  executor: z.literal('saturate'),
  connections: Count(1000),
  duration: DurationField,
});
