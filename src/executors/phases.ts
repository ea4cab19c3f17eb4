/**
 * The phase schemas of every executor, keyed by its public name (names.ts): here, apart from the code that runs
 * them, so that reading a scenario (petload validate, k8s, list) loads no load machinery. `PHASE_SCHEMAS` is typed
 * by the executor names, so that a missing or extra entry does not compile; load-schema.ts builds the phase union
 * from it, and each executor (registry.ts) runs the phases of its entry.
 */
import * as z from 'zod';
import { Count, DurationField, parsedString, RateField } from '../core/fields.js';
import type { ExecutorName } from './names.js';

const ConstantRatePhase = z.strictObject({
  executor: z.literal('constant-rate'),
  rate: RateField,
  duration: DurationField,
});

const RampingRatePhase = z.strictObject({
  executor: z.literal('ramping-rate'),
  stages: z.array(z.strictObject({ rate: RateField, duration: DurationField })).min(1),
});

const ConcurrencyPhase = z.strictObject({
  executor: z.literal('concurrency'),
  workers: Count(10_000),
  duration: DurationField,
});

/**
 * How many requests a burst sends: a number, or the plan's per-minute limit plus K (of which a shard of a
 * sharded run sends its share: src/shard/partition.ts).
 */
export type BurstSize =
  | { readonly kind: 'count'; readonly count: number }
  | {
      readonly kind: 'limit';
      readonly plus: number;
      readonly shard?: { readonly index: number; readonly count: number };
    };

const BURST_EXPECTED = 'expected a number of requests, or "limit" or "limit+K" (the plan\'s per-minute limit plus K)';

function parseBurstSize(text: string): BurstSize {
  const m = /^limit\s*(?:\+\s*(\d+))?$/.exec(text.trim());
  if (m) return { kind: 'limit', plus: Number(m[1] ?? 0) };
  const near = /^\s*[a-z]+\s*\+\s*(\d+)\s*$/i.exec(text);
  throw new Error(
    `${BURST_EXPECTED}, found ${JSON.stringify(text)}${near ? ` (did you mean "limit+${near[1]}"?)` : ''}`,
  );
}

const BurstRequests = z.union(
  [
    Count(10_000).transform((count): BurstSize => ({ kind: 'count', count })),
    parsedString(parseBurstSize, BURST_EXPECTED),
  ],
  { error: BURST_EXPECTED },
);

const BurstPhase = z.strictObject({ executor: z.literal('burst'), requests: BurstRequests });

const SaturatePhase = z.strictObject({
  executor: z.literal('saturate'),
  connections: Count(1000),
  duration: DurationField,
});

/** One schema per executor, keyed by its public name: none missing, none extra, each discriminated by its name. */
export const PHASE_SCHEMAS = {
  'constant-rate': ConstantRatePhase,
  'ramping-rate': RampingRatePhase,
  concurrency: ConcurrencyPhase,
  burst: BurstPhase,
  saturate: SaturatePhase,
} as const satisfies { readonly [N in ExecutorName]: z.ZodObject<{ executor: z.ZodLiteral<N> }> };

type PhaseSchema = (typeof PHASE_SCHEMAS)[ExecutorName];

/** The schemas of PHASE_SCHEMAS in its order, as the non-empty list a discriminated union takes. */
export function phaseSchemaList(): [PhaseSchema, ...PhaseSchema[]] {
  const [first, ...rest] = Object.values(PHASE_SCHEMAS);
  if (first === undefined) throw new Error('no executor has a phase schema');
  return [first, ...rest];
}
