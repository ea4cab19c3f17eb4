/**
 * The recipes, keyed by check id (a key that is no check id does not compile): one module per family. A check
 * without a recipe gets no script; the report gives the reason (NO_REPLAY, or that none is written) and the probe
 * to re-run instead.
 */
import { CHECKS, type CheckId } from '../../checks/catalogue.js';
import { CONTRACT_RECIPES } from './contract.js';
import type { Failure } from './failure.js';
import { RATE_LIMIT_RECIPES } from './rate-limit.js';
import type { Recipe } from './recipe.js';
import { noReplay, type Reproduction } from './steps.js';

export const RECIPES: Readonly<Partial<Record<CheckId, Recipe>>> = { ...CONTRACT_RECIPES, ...RATE_LIMIT_RECIPES };

/** Defects a replay cannot show, and why. */
export const NO_REPLAY = {
  'ratelimit.no-over-admission':
    'a race: it shows only when many requests arrive at once, which a script of one request after another cannot do',
  'contract.transport': 'an intermittent fault of the connection: a replay meets it only by chance',
  'ratelimit.day-enforced': "it takes a whole day of the key's quota",
  'backoff.respects-retry-after': "it judges petload's own pacing, not the target",
  'backoff.no-ban': "it judges petload's own backoff under load, not one answer of the target",
  'ban.probe': "a ban takes the sacrificial key's minute of refusals and the ban's whole length",
  'load.capacity': 'a figure measured under load, not a defect of one answer',
} as const satisfies Partial<Record<CheckId, string>>;

export const isCheckId = (id: string): id is CheckId => Object.hasOwn(CHECKS, id);

export function reproductionOf(f: Failure): Reproduction {
  const id = f.check.id;
  if (id.startsWith('threshold.'))
    return noReplay("a threshold on the run's measured figures, not a defect of one answer");
  if (!isCheckId(id)) return noReplay('a check this version of petload does not know');
  const recipe = RECIPES[id];
  if (recipe !== undefined) return recipe(f);
  return noReplay(
    (NO_REPLAY as Partial<Record<CheckId, string>>)[id] ??
      'petload writes no replay of this check; its probe judges it again',
  );
}
