/**
 * A run's focus (`petload run --check ID --probe NAME`, docs/cli.md "Focus"): the checks it judges, and the part of
 * the scenario that judges them; every other check is out of scope (report.json's `focus` and `outOfScope`). Pure:
 * the scenario in, the focused scenario out, so that the estimate, the schedule, the deadline and `--dry-run` all
 * follow the smaller run without knowing of a focus. `petload rerun` reuses it.
 *
 * What a named check keeps, in this order (the first that gives something wins):
 * 1. judged by the backoff or the saturate executor: the scenario's load, when it has a load that judges it;
 * 2. the scenario's probes whose `checks` name it (src/probes/*.ts);
 * 3. the scenario's probes its catalogue entry says exercise it (`exercisedBy`: a passive check's traffic);
 * 4. a check the observer judges: the scenario's load, which it judges too;
 * otherwise it is outside the scenario: refused (exit 2), naming the shipped scenarios in which it is not.
 * A named probe keeps itself (it must be one of the scenario's); the checks in scope are its `checks`.
 */
import { CATALOGUE, CHECK_IDS, CHECKS, type CheckId, type Judge } from '../checks/catalogue.js';
import { thresholdCheckId } from '../checks/thresholds.js';
import { PetloadError } from '../core/errors.js';
import { focusFlags } from '../report/verdict.js';
import { PROBE_REGISTRY, probesInOrder } from '../probes/index.js';
import { PROBE_NAMES, type ProbeName } from '../probes/names.js';
import { loadScenario, shippedScenarioNames } from './load-scenario.js';
import type { Scenario } from './scenario.js';

/** What a run is asked to judge: check ids and probe names (report.json's `focus`). Both empty: no focus. */
export interface Focus {
  readonly checks: readonly CheckId[];
  readonly probes: readonly ProbeName[];
}

/** The probe names of the catalogue's `exercisedBy`, held to the probes' at compile time. */
type Exercisers = {
  [Id in CheckId]: (typeof CATALOGUE)[Id] extends { readonly exercisedBy: readonly (infer P)[] } ? P : never;
}[CheckId];
const exercisersAreProbes: [Exercisers] extends [ProbeName] ? true : never = true;
void exercisersAreProbes;

const judgedBy = (id: CheckId, judge: Judge): boolean => (CATALOGUE[id].judgedBy as readonly Judge[]).includes(judge);

/** The probes that judge a check (their `checks` name it), else those that exercise it (catalogue `exercisedBy`). */
export function probesFor(check: CheckId): ProbeName[] {
  const judging = PROBE_NAMES.filter((p) => PROBE_REGISTRY[p].checks.includes(check));
  if (judging.length > 0) return judging;
  return [...((CHECKS[check].exercisedBy ?? []) as readonly ProbeName[])];
}

/** Whether the scenario's load judges a check of the backoff or the saturate executor. */
function loadJudges(scenario: Scenario, check: CheckId): boolean {
  const load = scenario.load;
  if (!load) return false;
  if (judgedBy(check, 'saturate')) return load.phases.some((ph) => ph.executor === 'saturate');
  if (judgedBy(check, 'backoff')) return load.backoff.enabled;
  return false;
}

/** What one check keeps of the scenario: probes, the load, or nothing (outside the scenario). */
function keptFor(scenario: Scenario, check: CheckId): { probes: ProbeName[]; load: boolean } | null {
  if (judgedBy(check, 'backoff') || judgedBy(check, 'saturate'))
    return loadJudges(scenario, check) ? { probes: [], load: true } : null;
  const judging = scenario.probes.filter((p) => PROBE_REGISTRY[p].checks.includes(check));
  if (judging.length > 0) return { probes: judging, load: false };
  const exercising = scenario.probes.filter((p) => probesFor(check).includes(p));
  if (exercising.length > 0) return { probes: exercising, load: false };
  if (judgedBy(check, 'observer') && scenario.load) return { probes: [], load: true };
  return null;
}

/** A run's focus applied to its scenario. */
export interface Focused {
  /** The scenario with only the probes and the load that judge the checks in scope. */
  readonly scenario: Scenario;
  /** The focus asked (what report.json's `focus` says). */
  readonly focus: Focus;
  /** The catalogue's checks the run judges, in catalogue order. */
  readonly inScope: CheckId[];
  /** Every other check of the run (the scenario's thresholds among them, by their ids), in catalogue order. */
  readonly outOfScope: string[];
}

/** What a focus asks that the scenario cannot give: named checks and probes (empty: nothing). */
export interface Outside {
  readonly checks: CheckId[];
  readonly probes: ProbeName[];
}

/** Whether a focus asks anything (an empty one is the whole scenario). */
export const isFocused = (focus: Focus | undefined): focus is Focus =>
  focus !== undefined && (focus.checks.length > 0 || focus.probes.length > 0);

/** The checks a focus puts in scope: the checks named, and the `checks` of the probes named, in catalogue order. */
export function checksOf(focus: Focus): CheckId[] {
  const named = new Set<CheckId>([...focus.checks, ...focus.probes.flatMap((p) => PROBE_REGISTRY[p].checks)]);
  return CHECK_IDS.filter((id) => named.has(id));
}

/** The focus applied, or what of it lies outside the scenario. Pure. */
export function selectFocus(scenario: Scenario, focus: Focus): Focused | { outside: Outside } {
  const outside: Outside = { checks: [], probes: focus.probes.filter((p) => !scenario.probes.includes(p)) };
  const probes = new Set<ProbeName>(focus.probes);
  let load = false;
  for (const check of focus.checks) {
    const kept = keptFor(scenario, check);
    if (kept === null) outside.checks.push(check);
    else {
      for (const p of kept.probes) probes.add(p);
      load ||= kept.load;
    }
  }
  if (outside.checks.length > 0 || outside.probes.length > 0) return { outside };
  const { load: _dropped, ...rest } = scenario;
  const focused: Scenario = {
    ...rest,
    probes: probesInOrder([...probes]).map((p) => p.name),
    ...(load && scenario.load ? { load: scenario.load } : {}),
  };
  const inScope = checksOf(focus);
  const thresholds = scenario.thresholds.map((t) => thresholdCheckId(t.parsed));
  const outOfScope = [...CHECK_IDS.filter((id) => !inScope.includes(id)), ...thresholds];
  return { scenario: focused, focus, inScope, outOfScope };
}

/** What a focused run judges, in one line: the focus, the probes and load it kept, how many checks are out. */
export function describeFocus({ focus, scenario, inScope, outOfScope }: Focused): string {
  const n = scenario.probes.length;
  const kept = [
    ...(n > 0 ? [`probe${n === 1 ? '' : 's'} ${scenario.probes.join(', ')}`] : []),
    ...(scenario.load ? ['the load'] : []),
  ];
  const judged = `${inScope.length} check${inScope.length === 1 ? '' : 's'} judged by ${kept.join(' and ')}`;
  return `Focus (${focusFlags(focus)}): ${judged}; ${outOfScope.length} out of scope`;
}

/** The checks a focus judges on a scenario (throws as focusScenario does). */
export function checksInScope(scenario: Scenario, focus: Focus): CheckId[] {
  return focusScenario(scenario, focus).inScope;
}

/** The scenarios a focus on one check or probe would run in (for the refusal's words). */
export type Elsewhere = (focus: Focus) => string[];

/** The shipped scenarios (scenarios/*.yaml) in which a focus would run. */
export const shippedScenariosWith: Elsewhere = (focus) =>
  shippedScenarioNames().filter((name) => !('outside' in selectFocus(loadScenario(name), focus)));

/** The refusal of a focus that lies outside the scenario: what, and where it is not (exit 2). */
function outsideError(scenario: Scenario, outside: Outside, elsewhere: Elsewhere): PetloadError {
  const where = (focus: Focus) => {
    const names = elsewhere(focus);
    return names.length === 0 ? '' : `; it is in the scenario${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
  };
  const lines = [
    ...outside.checks.map(
      (c) =>
        `--check ${c} is outside the scenario ${scenario.name}: none of its probes or load judges it${where({ checks: [c], probes: [] })}`,
    ),
    ...outside.probes.map(
      (p) =>
        `--probe ${p} is outside the scenario ${scenario.name}: it is not one of its probes${where({ checks: [], probes: [p] })}`,
    ),
  ];
  return new PetloadError('E_USAGE', lines.join('\n'), {
    hint: 'Name checks and probes the scenario runs (petload list checks, petload list probes), or run the scenario named.',
  });
}

/**
 * The scenario focused on what `focus` names: its probes and load cut to those that judge it. Throws E_USAGE (exit
 * 2) when a named check or probe is outside the scenario, naming the scenarios that have it (default: the shipped).
 */
export function focusScenario(scenario: Scenario, focus: Focus, elsewhere: Elsewhere = shippedScenariosWith): Focused {
  const selected = selectFocus(scenario, focus);
  if ('outside' in selected) throw outsideError(scenario, selected.outside, elsewhere);
  return selected;
}
