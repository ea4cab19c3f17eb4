/**
 * The checks of two runs, per check id and plan: what newly fails, what was fixed, what is newly skipped or
 * newly passing, what still fails, what is gone, and how many pairs did not change. A check out of scope of either
 * run (`petload run --check`) is left out of every list and named in `outOfScope`.
 */
import type { CheckResult, Report } from '../report/schema.js';
import type { CheckChange, ChecksDiff, SideStatus } from './schema.js';

type Outcome = CheckResult['byPlan'][number];
type PlanKey = Outcome['plan'];

/** A check's outcomes by plan; a check judged for no plan at all counts as one outcome without a plan. */
function outcomesOf(c: CheckResult): Map<PlanKey, Outcome> {
  const out = new Map<PlanKey, Outcome>();
  if (c.byPlan.length === 0)
    out.set(null, { plan: null, status: c.status, counts: c.counts, evidence: [], reasons: [], info: {} });
  for (const o of c.byPlan) out.set(o.plan, o);
  return out;
}

/** What a run said of a check for a plan: the first evidence of a failure, the reasons of a skip. */
export function detailOf(o: Outcome | undefined): string | null {
  if (o === undefined) return null;
  if (o.status === 'fail') return o.evidence[0]?.message ?? null;
  if (o.status === 'skip') return o.reasons.length > 0 ? o.reasons.join('; ') : null;
  return null;
}

/** What a run said of a check it did not judge for a plan: no outcome, or no such check at all. */
const absence = (check: CheckResult | undefined, plan: PlanKey): string =>
  check === undefined ? 'not in this report' : plan === null ? 'not judged without a plan' : 'not judged for this plan';

/** One check on one plan in two runs: the check in each (absent: not in that report) and its outcome there. */
export interface CheckPair {
  id: string;
  plan: PlanKey;
  before?: CheckResult;
  now?: CheckResult;
  b?: Outcome;
  c?: Outcome;
}

/** What a pair says, as compare.json and rerun.json give it. */
export function changeOf({ id, plan, before, now, b, c }: CheckPair): CheckChange {
  const meta = (now ?? before)!;
  return {
    id,
    title: meta.title,
    severity: meta.severity,
    plan,
    baseline: b?.status ?? 'absent',
    current: c?.status ?? 'absent',
    baselineDetail: b ? detailOf(b) : absence(before, plan),
    currentDetail: c ? detailOf(c) : absence(now, plan),
    failed: { baseline: b?.counts.failed ?? 0, current: c?.counts.failed ?? 0 },
  };
}

/**
 * Where a pair of statuses goes in the diff (`passing` and `skipped`: unchanged, counted). A check not judged for a
 * plan (absent) counts as skipped: a run that no longer judges something has not fixed it.
 */
function bucketOf(
  b: SideStatus,
  c: SideStatus,
): keyof Omit<ChecksDiff, 'unchanged' | 'outOfScope'> | 'passing' | 'skipped' {
  if (c === 'fail') return b === 'fail' ? 'stillFailing' : 'newlyFailing';
  if (c === 'pass') return b === 'fail' ? 'fixed' : b === 'pass' ? 'passing' : 'newlyPassing';
  return b === 'skip' || b === 'absent' ? 'skipped' : 'newlySkipped';
}

const PLAN_ORDER = ['free', 'pro', 'business', 'enterprise'];
const planRank = (p: PlanKey): number => (p === null ? -1 : PLAN_ORDER.indexOf(p));

/**
 * Every check and plan of either run, paired: the current run's checks in its order (the catalogue's), then checks
 * only the baseline has; each check's plans in the plans' order.
 */
export function checkPairs(baseline: Report, current: Report): CheckPair[] {
  const before = new Map(baseline.checks.map((c) => [c.id, c]));
  const now = new Map(current.checks.map((c) => [c.id, c]));
  const ids = [...now.keys(), ...[...before.keys()].filter((id) => !now.has(id))];
  return ids.flatMap((id) => {
    const pair = { id, before: before.get(id), now: now.get(id) };
    const bo = pair.before ? outcomesOf(pair.before) : new Map<PlanKey, Outcome>();
    const co = pair.now ? outcomesOf(pair.now) : new Map<PlanKey, Outcome>();
    const plans = [...new Set([...co.keys(), ...bo.keys()])].sort((x, y) => planRank(x) - planRank(y));
    return plans.map((plan) => ({ ...pair, plan, b: bo.get(plan), c: co.get(plan) }));
  });
}

/** A pair's status in each run (`absent`: the run did not judge the check for the plan). */
export const statusesOf = (p: CheckPair): { b: SideStatus; c: SideStatus } => ({
  b: p.b?.status ?? 'absent',
  c: p.c?.status ?? 'absent',
});

export function diffChecks(baseline: Report, current: Report): ChecksDiff {
  const diff: ChecksDiff = {
    newlyFailing: [],
    fixed: [],
    newlySkipped: [],
    newlyPassing: [],
    stillFailing: [],
    unchanged: { passing: 0, skipped: 0 },
  };
  // A check out of scope of either run (a focused run) is not compared: the focused run did not judge it.
  const outOfScope = new Set([...(baseline.outOfScope ?? []), ...(current.outOfScope ?? [])]);
  if (outOfScope.size > 0) diff.outOfScope = [...outOfScope];
  for (const pair of checkPairs(baseline, current)) {
    if (outOfScope.has(pair.id)) continue;
    const { b, c } = statusesOf(pair);
    const where = bucketOf(b, c);
    if (where === 'passing') diff.unchanged.passing++;
    else if (where === 'skipped') diff.unchanged.skipped++;
    else diff[where].push(changeOf(pair));
  }
  return diff;
}
