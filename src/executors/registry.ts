/**
 * The executors by public name (names.ts): a plain object, so a missing or extra executor is a type error.
 * Adding one: its own file (length, estimate, overrides, run), a line in names.ts, a line here, its phase schema
 * in PHASE_SCHEMAS (phases.ts, from which load-schema.ts builds the phase union), and its part of docs/load.md.
 */
import { burst } from './burst.js';
import { concurrency } from './concurrency.js';
import { constantRate } from './constant-rate.js';
import type { ExecutorName } from './names.js';
import type { Executor } from './phase.js';
import { rampingRate } from './ramping-rate.js';
import { saturate } from './saturate.js';

export const EXECUTOR_REGISTRY: { readonly [N in ExecutorName]: Executor<N> } = {
  'constant-rate': constantRate,
  'ramping-rate': rampingRate,
  concurrency,
  burst,
  saturate,
};

/** The executor of a phase, typed by its name. */
export function executorOf<N extends ExecutorName>(name: N): Executor<N> {
  return EXECUTOR_REGISTRY[name];
}
