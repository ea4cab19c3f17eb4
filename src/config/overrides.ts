/**
 * `--rate` and `--duration` on `petload run`: override the load phases of a scenario, as k6's `--duration` does.
 * What each changes is its executor's to say (`override` in src/executors/<name>.ts): --rate replaces the rate of
 * every constant-rate phase; --duration replaces the duration of every constant-rate, concurrency and saturate
 * phase, and scales the stages of a ramping-rate phase to that total.
 */
import { executorOf } from '../executors/registry.js';
import { PetloadError } from '../core/errors.js';
import { parseDuration } from '../core/duration.js';
import { parseRate } from '../core/rate.js';
import type { Phase, Scenario } from './scenario.js';

export interface LoadOverrides {
  rate?: string;
  duration?: string;
}

function parseFlag<T>(flag: string, text: string, parse: (t: string) => T): T {
  try {
    return parse(text);
  } catch (e) {
    throw new PetloadError('E_USAGE', `${flag} ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
}

export function applyOverrides(scenario: Scenario, o: LoadOverrides): Scenario {
  if (o.rate === undefined && o.duration === undefined) return scenario;
  if (!scenario.load) {
    throw new PetloadError(
      'E_USAGE',
      `--rate and --duration change load phases, and scenario ${scenario.name} has none`,
    );
  }
  const rate = o.rate === undefined ? undefined : parseFlag('--rate', o.rate, parseRate);
  const duration = o.duration === undefined ? undefined : parseFlag('--duration', o.duration, parseDuration);
  if (duration !== undefined && !(duration > 0))
    throw new PetloadError('E_USAGE', `--duration ${JSON.stringify(o.duration)}: expected a duration above zero`);
  const changes = { ...(rate ? { rate } : {}), ...(duration !== undefined ? { duration } : {}) };
  const phases = scenario.load.phases.map((p): Phase => executorOf(p.executor).override(p, changes));
  return Object.freeze({
    ...scenario,
    load: Object.freeze({ ...scenario.load, phases: Object.freeze(phases) }),
  }) as Scenario;
}
