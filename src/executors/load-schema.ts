/**
 * The load section of a scenario: the operation mix, the backoff policy, the phases. Each phase's schema is
 * its executor's entry of PHASE_SCHEMAS (phases.ts); this file builds their union, and src/config/scenario.ts
 * puts the load section into a scenario.
 */
import * as z from 'zod';
import { PET_OPERATION_IDS, type PetOperationId } from '../api/operations.js';
import { Count, DurationField } from '../core/fields.js';
import type { DeepReadonly } from '../core/readonly.js';
import { phaseSchemaList } from './phases.js';

/** A phase: one of the executors' schemas (phases.ts), told apart by `executor`. */
const PhaseSchema = z.discriminatedUnion('executor', phaseSchemaList());

const Weight = z.number().min(0).default(0);
/** Operation weights. Given, an operation left out weighs 0; not given, the default mix. */
const Mix = z
  .strictObject({ listPets: Weight, createPet: Weight, getPet: Weight } satisfies Record<PetOperationId, z.ZodType>)
  .refine((m) => PET_OPERATION_IDS.some((op) => m[op] > 0), 'expected at least one weight above zero')
  .default({ listPets: 80, createPet: 15, getPet: 5 });

const Backoff = z
  .strictObject({
    enabled: z.boolean().default(true),
    base: DurationField.default(500),
    cap: DurationField.default(30_000),
    maxTries: Count(100).default(6),
  })
  .refine((b) => b.base <= b.cap, { path: ['cap'], message: 'expected cap to be at least base' })
  .prefault({});

export const LoadSchema = z.strictObject({
  mix: Mix,
  /** Share of getPet requests sent for ids never created. */
  unknownGetShare: z.number().min(0).max(1).default(0.1),
  /** Concurrent requests at most; open-model sends beyond it are dropped (and counted). */
  maxInFlight: Count(10_000).default(64),
  backoff: Backoff,
  phases: z.array(PhaseSchema).min(1),
  /** A hard cap on the requests of the whole load section. */
  maxRequests: Count(100_000_000).optional(),
});

export type LoadSection = DeepReadonly<z.output<typeof LoadSchema>>;
export type Phase = LoadSection['phases'][number];
export type OperationMix = LoadSection['mix'];
export type BackoffSettings = LoadSection['backoff'];
