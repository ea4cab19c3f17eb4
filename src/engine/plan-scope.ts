/**
 * A run's scope is a contract (docs/scenarios.md, "Scope"): every plan that `--plan` or the scenario's `plans:`
 * names is judged, which needs a key of it. A plan without one stops the run before it sends anything,
 * naming the plan and where its key was expected, unless the run was asked to be partial (`--partial`, or
 * `partial: true` in the scenario); then the plan is listed as not judged, in the report and in its verdict line.
 * Without a list of plans, the run judges the plans its keys have: nothing is missing.
 */
import { PLAN_NAMES, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import { PetloadError } from '../core/errors.js';
import type { Report } from '../report/schema.js';
import { listed } from '../report/verdict.js';

/** A plan named in the scope that the run does not judge, and why (report.json's `notJudged`). */
export type NotJudged = NonNullable<Report['notJudged']>[number];

export interface PlanScope {
  /** The plans the run judges, in the order of PLAN_NAMES. */
  readonly judged: PlanName[];
  /** The plans named but not judged (only ever in a partial run). */
  readonly notJudged: NotJudged[];
}

export interface ScopeAsk {
  /** `--plan`'s plans, if given. */
  readonly flag?: readonly PlanName[] | undefined;
  /** The scenario's `plans:`, if given. */
  readonly scenario?: readonly PlanName[] | undefined;
  /** Whether a plan without a key may be left out (`--partial`, `partial: true`). */
  readonly partial: boolean;
  /** Where the keys were read from, for the refusal: `in the keys file k.json (--keys-file)`. */
  readonly where: string;
}

/** The reason a plan without a key is listed with, in the report and the verdict line. */
export const NO_KEY = 'no key';

/** The plans a run judges and those it leaves out. Throws E_NO_KEYS (exit 2) when a plan named has no key and the run is not partial. */
export function planScope(keys: readonly ApiKey[], ask: ScopeAsk): PlanScope {
  const have = new Set(keys.map((k) => k.plan));
  const wanted = ask.flag ?? ask.scenario;
  if (wanted === undefined) return { judged: PLAN_NAMES.filter((p) => have.has(p)), notJudged: [] };
  const named = PLAN_NAMES.filter((p) => wanted.includes(p));
  const missing = named.filter((p) => !have.has(p));
  if (missing.length > 0 && !ask.partial) {
    const by = ask.flag !== undefined ? '--plan' : "the scenario's plans:";
    const entries = listed(missing.map((p) => `{"plan": "${p}"}`));
    throw new PetloadError(
      'E_NO_KEYS',
      `plan${missing.length === 1 ? '' : 's'} ${listed(missing)} (named by ${by}) ha${missing.length === 1 ? 's' : 've'} no key: expected a key ${entries} ${ask.where}`,
      {
        hint: 'Add a key of the plan where the keys are read, judge fewer plans (--plan), or ask for a partial run (--partial, or partial: true in the scenario): the plan is then listed as not judged.',
      },
    );
  }
  return {
    judged: named.filter((p) => have.has(p)),
    notJudged: missing.map((plan) => ({ plan, reason: NO_KEY })),
  };
}
