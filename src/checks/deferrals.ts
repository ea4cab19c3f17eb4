/**
 * Declared dependencies between checks (one defect, one failure: docs/attribution.md). A check whose failures may
 * only echo a defect another check owns declares it in its catalogue entry (`defersTo`); the ledger resolves the
 * deferrals once, at the end of the run (`Ledger.resolveDeferrals`), check by check in `DEFERRAL_ORDER`: a check
 * after every check it defers to, whatever order the judges finished in. The skip reason is the declaration's
 * `because` and the name of the check that owns the defect (or, for a limiter's truthful movement, reads the limiter).
 * A skip that waits on no other check's outcome, and only points at the check that judges what kept this one from
 * judging, names it with a typed reference instead (src/checks/skip-reason.ts).
 */
import type { PlanName } from '../api/plans.js';
import { overTheFigureSold } from '../report/admission.js';
import {
  CHECKS,
  type CheckId,
  type CheckMeta,
  type Deferral,
  type DeferralCondition,
  type HeldKind,
} from './catalogue.js';

/**
 * What ratelimit.algorithm read of a plan's limiter: a shape whose truthful headers move within what a fixed window
 * calls one (a token bucket, a sliding window told by its Reset), a sliding log whose Remaining rose by exactly the
 * key's own requests that slid out (`log`), a shape the answers could not tell, or another (a fixed window).
 */
export type LimiterReading = 'moves' | 'log' | 'unknown' | 'still';

/** The facts of the run the conditions read besides the outcomes (the observer's readings of the answers). */
export interface RunFacts {
  /** How many independent counters answer a key of the plan (1: one, or not known). */
  countersOf(plan: PlanName | null): number;
  /** What ratelimit.algorithm read of the plan's limiter. */
  limiterOf(plan: PlanName | null): LimiterReading;
}

/** What a condition reads: the outcomes as resolved so far (every check deferred to is final), and the run's facts. */
export interface DeferralView extends RunFacts {
  outcome(id: CheckId, plan: PlanName | null): { failed: number; info: Record<string, unknown> } | undefined;
  /** Whether the check failed on any plan. */
  failedInRun(id: CheckId): boolean;
}

type Condition = (v: DeferralView, check: CheckId, plan: PlanName | null) => boolean;

const failed: Condition = (v, check, plan) => (v.outcome(check, plan)?.failed ?? 0) > 0;
const overTheFigure: Condition = (v, check, plan) => {
  const o = v.outcome(check, plan);
  return o !== undefined && (o.failed > 0 || overTheFigureSold(o.info));
};

const CONDITIONS: Record<DeferralCondition, Condition> = {
  failed,
  'failed-in-run': (v, check) => v.failedInRun(check),
  'over-the-figure': overTheFigure,
  'per-counter': (v, check, plan) => v.countersOf(plan) >= 2 && overTheFigure(v, check, plan),
  'refills-or-slides': (v, _check, plan) => ['moves', 'log'].includes(v.limiterOf(plan)),
  'refills-or-slides-by-reset': (v, _check, plan) => v.limiterOf(plan) === 'moves',
  'may-slide': (v, _check, plan) => v.limiterOf(plan) !== 'still',
  'shape-unknown': (v, _check, plan) => v.limiterOf(plan) === 'unknown',
};

/** Conditions on what a check read of the limiter, not on a defect it found. */
const READINGS: ReadonlySet<DeferralCondition> = new Set([
  'refills-or-slides',
  'refills-or-slides-by-reset',
  'may-slide',
  'shape-unknown',
]);

/** A condition holds of a check on the plan. */
export const conditionHolds = (v: DeferralView, when: DeferralCondition, check: CheckId, plan: PlanName | null) =>
  CONDITIONS[when](v, check, plan);

/** A deferral's condition holds on the plan. */
export const holds = (v: DeferralView, d: Deferral<CheckId>, plan: PlanName | null): boolean =>
  conditionHolds(v, d.when, d.check, plan);

/** The skip reason a deferral gives: what the judgements echo, and the check that owns the defect (or reads it). */
export const reasonOf = (d: Deferral): string =>
  READINGS.has(d.when) ? `${d.because} (as ${d.check} reads the limiter)` : `${d.because}: that defect is ${d.check}'s`;

/** The deferrals of a check that excuse its plain failures (`kind` null), or its judgements held as `kind`, in order. */
export function deferralsOf(id: CheckId, kind: HeldKind | null): readonly Deferral<CheckId>[] {
  const all = CHECKS[id].defersTo ?? [];
  return all.filter((d) => (kind === null ? d.of === undefined : (d.of?.includes(kind) ?? false)));
}

/**
 * The checks that declare deferrals, each after every check it defers to (ties in catalogue order). Refuses a
 * deferral to a check the catalogue does not hold, and a cycle (which check would judge first is then unknown).
 */
export function deferralOrder<Id extends string>(entries: Readonly<Record<Id, Pick<CheckMeta, 'defersTo'>>>): Id[] {
  const ids = Object.keys(entries) as Id[];
  const after = new Map<Id, Id[]>(ids.map((id) => [id, []]));
  const waits = new Map<Id, number>(ids.map((id) => [id, 0]));
  const held = (t: string): t is Id => after.has(t as Id);
  for (const id of ids) {
    const targets = new Set((entries[id]!.defersTo ?? []).map((d) => d.check));
    for (const t of targets) {
      if (!held(t)) throw new Error(`the check ${id} defers to ${t}, which the catalogue does not hold`);
      after.get(t)!.push(id);
      waits.set(id, waits.get(id)! + 1);
    }
  }
  const order: Id[] = [];
  const ready = ids.filter((id) => waits.get(id) === 0);
  while (ready.length > 0) {
    const id = ready.shift()!;
    order.push(id);
    for (const next of after.get(id)!) {
      waits.set(next, waits.get(next)! - 1);
      if (waits.get(next) === 0) ready.push(next);
    }
    ready.sort((a, b) => ids.indexOf(a) - ids.indexOf(b));
  }
  if (order.length < ids.length) {
    const stuck = ids.filter((id) => !order.includes(id));
    throw new Error(`the deferrals between checks form a cycle: ${stuck.join(', ')}`);
  }
  return order.filter((id) => (entries[id]!.defersTo ?? []).length > 0);
}

/** The catalogue's checks that defer, in the order the ledger resolves them. */
export const DEFERRAL_ORDER: readonly CheckId[] = deferralOrder(CHECKS);
