/**
 * The target's rate-limit contract per plan, as each run saw it, and what drifted between them. Everything is
 * read from report.json:
 * - the Limit values sent: keyTimelines (each key's [t, Remaining, Limit] samples, with the key's plan);
 * - the figures the run judged against: `keys[].limits` (a report of an older version: src/report/key-limits.ts);
 * - the limiter's shape: ratelimit.algorithm's typed info (shape, limit, evidence) or its skip reason;
 * - what counts: ratelimit.what-counts's info (status -> fact);
 * - Retry-After: every 429 in keyTimelines with its Retry-After in seconds (an HTTP-date made a delay, null
 *   when absent or unreadable), and the retry-after.* checks (form: syntax; accuracy: plausible, honest);
 * - the ban: ban.probe's info when it measured one;
 * - the admission: report.json's `admission` (accepted within a minute, a day, against the figure sold).
 */
import type { PlanName } from '../api/plans.js';
import { CATALOGUE, type CheckId } from '../checks/catalogue.js';
import { describeAdmission } from '../report/admission.js';
import { infoOf } from '../report/check-info.js';
import { keyLimitsOf } from '../report/key-limits.js';
import type { CheckResult, Report } from '../report/schema.js';
import { detailOf } from './checks.js';
import { promiseFigures } from './promises.js';
import type { ContractSide, Drift, PlanContract, SideStatus } from './schema.js';

type Outcome = CheckResult['byPlan'][number];

/** The checks that judge the contract, in catalogue order. */
const CONTRACT_CHECKS = (Object.keys(CATALOGUE) as CheckId[]).filter(
  (id) => CATALOGUE[id].family === 'ratelimit' || CATALOGUE[id].family === 'retry-after' || id === 'ban.probe',
);

function outcome(report: Report, id: string, plan: PlanName): Outcome | undefined {
  return report.checks.find((c) => c.id === id)?.byPlan.find((o) => o.plan === plan);
}

const text = (v: unknown): string | null => (v === undefined || v === null ? null : String(v));

/** The figures of the plan's first key that has them (null when the report records none). */
function figuresOf(report: Report, plan: PlanName): ContractSide['figures'] {
  return keyLimitsOf(report).find((k) => k.plan === plan)?.limits ?? null;
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function retryAfterOf(report: Report, plan: PlanName): ContractSide['retryAfter'] {
  const waits = report.keyTimelines.filter((k) => k.plan === plan).flatMap((k) => k.refusals.map(([, s]) => s));
  const usable = waits.filter((s): s is number => s !== null);
  return {
    refusals: waits.length,
    unusable: waits.length - usable.length,
    minSeconds: usable.length > 0 ? Math.min(...usable) : null,
    medianSeconds: median(usable),
    maxSeconds: usable.length > 0 ? Math.max(...usable) : null,
  };
}

/** What one run showed of a plan's contract; null when the run did not judge the plan. */
export function contractSide(report: Report, plan: PlanName): ContractSide | null {
  if (!report.plans.includes(plan) && !report.keyTimelines.some((k) => k.plan === plan)) return null;
  const limits = new Set<number>();
  for (const k of report.keyTimelines) if (k.plan === plan) for (const [, , limit] of k.remaining) limits.add(limit);
  const checks: Record<string, SideStatus> = {};
  for (const id of CONTRACT_CHECKS) checks[id] = outcome(report, id, plan)?.status ?? 'absent';
  const algo = outcome(report, 'ratelimit.algorithm', plan);
  const counts = outcome(report, 'ratelimit.what-counts', plan);
  const ban = outcome(report, 'ban.probe', plan);
  const whatCounts: Record<string, string> = {};
  for (const [k, v] of Object.entries(infoOf('ratelimit.what-counts', counts)))
    whatCounts[k] = typeof v === 'string' ? v : JSON.stringify(v);
  const shape = infoOf('ratelimit.algorithm', algo);
  const banInfo = infoOf('ban.probe', ban);
  return {
    limitsSeen: [...limits].sort((a, b) => a - b),
    figures: figuresOf(report, plan),
    checks,
    algorithm: {
      status: algo?.status ?? 'absent',
      shape: text(shape.shape),
      limit: text(shape.limit),
      evidence: text(shape.evidence),
      reason: algo?.status === 'skip' ? detailOf(algo) : null,
    },
    whatCounts,
    retryAfter: retryAfterOf(report, plan),
    ban: ban?.status === 'pass' && Object.keys(banInfo).length > 0 ? { ...banInfo } : null,
    admission: (report.admission ?? []).filter((a) => a.plan === plan).map(describeAdmission),
  };
}

const orNone = (s: string | null): string => s ?? 'not named';

/** The limiter in a few words: its shape and limit, or why it was not named. */
function limiterWords(a: ContractSide['algorithm']): string {
  if (a.shape !== null) return `${a.shape}${a.limit === null ? '' : ` (limit ${a.limit})`}`;
  return a.reason === null ? 'not named' : `not named: ${a.reason}`;
}

/** The ban's facts, compared only when both runs measured one. */
function banDrifts(b: ContractSide, c: ContractSide): Drift[] {
  if (b.ban === null && c.ban === null) return [];
  if (b.ban === null || c.ban === null)
    return [
      { field: 'ban', baseline: b.ban ? 'measured' : 'not measured', current: c.ban ? 'measured' : 'not measured' },
    ];
  const out: Drift[] = [];
  for (const k of new Set([...Object.keys(b.ban), ...Object.keys(c.ban)])) {
    const x = JSON.stringify(b.ban[k] ?? null);
    const y = JSON.stringify(c.ban[k] ?? null);
    if (x !== y) out.push({ field: `ban ${k}`, baseline: x, current: y });
  }
  return out;
}

/**
 * The contract's facts that differ (the checks' statuses are the checks diff's to tell). A fact read from a check
 * out of scope of either run (a focused run) is not compared: that run did not measure it.
 */
function sideDrifts(b: ContractSide, c: ContractSide, judged: (id: CheckId) => boolean): Drift[] {
  const out: Drift[] = [];
  const pair = (field: string, x: string, y: string) => {
    if (x !== y) out.push({ field, baseline: x, current: y });
  };
  pair('Limit sent', b.limitsSeen.join(', ') || 'none', c.limitsSeen.join(', ') || 'none');
  const fig = (f: ContractSide['figures']) =>
    f === null
      ? 'not recorded'
      : `${f.perMinute}/min, ${f.perDay}/day${f.tolerancePercent === undefined ? '' : ` (tolerance ${f.tolerancePercent} %)`}`;
  if (b.figures !== null && c.figures !== null) pair('figures judged', fig(b.figures), fig(c.figures));
  if (b.algorithm.shape !== null && c.algorithm.shape !== null) {
    pair('limiter shape', b.algorithm.shape, c.algorithm.shape);
    pair('limiter limit', orNone(b.algorithm.limit), orNone(c.algorithm.limit));
  } else if (judged('ratelimit.algorithm')) pair('limiter', limiterWords(b.algorithm), limiterWords(c.algorithm));
  const counted = judged('ratelimit.what-counts')
    ? new Set([...Object.keys(b.whatCounts), ...Object.keys(c.whatCounts)])
    : [];
  for (const k of counted)
    pair(`what counts: ${k}`, b.whatCounts[k] ?? 'not measured', c.whatCounts[k] ?? 'not measured');
  const unusable = (r: ContractSide['retryAfter']) =>
    r.refusals === 0
      ? 'no 429'
      : r.unusable === 0
        ? 'usable on every 429'
        : `unusable on ${r.unusable} of ${r.refusals}`;
  if (b.retryAfter.refusals > 0 && c.retryAfter.refusals > 0)
    pair('Retry-After', unusable(b.retryAfter), unusable(c.retryAfter));
  if (b.admission.length > 0 && c.admission.length > 0)
    pair('admission', b.admission.join('; '), c.admission.join('; '));
  return [...out, ...(judged('ban.probe') ? banDrifts(b, c) : [])];
}

export function diffContract(baseline: Report, current: Report): PlanContract[] {
  const outOfScope = new Set([...(baseline.outOfScope ?? []), ...(current.outOfScope ?? [])]);
  const judged = (id: CheckId) => !outOfScope.has(id);
  const plans = (['free', 'pro', 'business', 'enterprise'] as const).filter(
    (p) => baseline.plans.includes(p) || current.plans.includes(p),
  );
  return plans.map((plan) => {
    const b = contractSide(baseline, plan);
    const c = contractSide(current, plan);
    const drifts =
      b && c
        ? sideDrifts(b, c, judged)
        : [{ field: 'plan', baseline: b ? 'judged' : 'not judged', current: c ? 'judged' : 'not judged' }];
    return { plan, baseline: b, current: c, drifts, promises: b && c ? promiseFigures(baseline, current, plan) : [] };
  });
}
