/**
 * The plan table (report.json's `planTable`, and the first table of summary.md, report.html and the console): per
 * plan, what was sold against what the run measured, figure by figure, each cell held, not held or not measured
 * and linked to the check that judged it. It is derived from the report alone: each check's outcome for the plan
 * (status, counts, evidence, typed info facts: src/report/check-info.ts), the Retry-After of the plan's 429s
 * (keyTimelines) and the figures sold (`keys[].limits`).
 *
 * A cell is not held when any of its checks failed for the plan (the first one to fail judged it), held when its
 * own check passed, and not measured otherwise (skipped, or no outcome: the reason says which). Only facts that
 * petload composes are quoted from `info` (numbers, and its own wording); text a target sent reaches a cell only
 * through evidence messages and skip reasons, which the ledger has redacted.
 */
import type { PlanName } from '../api/plans.js';
import { describeAdmission, minuteOf } from './admission.js';
import { infoOf } from './check-info.js';
import { keyLimitsOf } from './key-limits.js';
import { legacyAnnouncedLimit } from './legacy.js';
import type {
  CheckResult,
  PlanCellStatus,
  PlanRow,
  PlanTable,
  PlanTableFigure,
  Report,
  SoldFigures,
} from './schema.js';

type Outcome = CheckResult['byPlan'][number];

/** The per-day check (the plan audit's). A string: this layer does not read the catalogue. */
export const DAY_ENFORCED = 'ratelimit.day-enforced';

/** What a cell's measured text keeps of a failure's message: up to its first `; `, at most this long. */
const MEASURED_MAX = 160;

/** The plan's side of the report, as a row reads it. */
interface PlanView {
  readonly plan: PlanName;
  readonly sold: readonly SoldFigures[];
  readonly checks: readonly CheckResult[];
  /** The Retry-After (seconds) of the plan's 429s that had a usable one. */
  readonly waits: readonly number[];
  /** The checks a focused run left out of scope (report.json's `outOfScope`). */
  readonly outOfScope: readonly string[];
}

/** What a passed check says of a figure: the measured text and more, or that it measured nothing after all. */
interface Reading {
  measured: string | null;
  detail: string | null;
  status?: PlanCellStatus;
}

interface RowSpec {
  readonly figure: PlanTableFigure;
  /** The check whose pass holds the cell. */
  readonly check: string;
  /** Other checks of the same figure: a failure of one of them means the figure is not held. */
  readonly also: readonly string[];
  sold(v: PlanView): string | null;
  /** The reading of the check's pass. */
  held(v: PlanView, o: Outcome): Reading;
  /** The measured text of a failure, when the info facts say more than the message. */
  failed?(o: Outcome): string | null;
  /** What was measured all the same when the cell is not measured (some of its checks passed). */
  partial?(v: PlanView): string | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function outcomeOf(v: PlanView, id: string): Outcome | undefined {
  return v.checks.find((c) => c.id === id)?.byPlan.find((o) => o.plan === v.plan);
}

/** `60/min` when the plan's keys share a figure, `60/min or 120/min` when they do not; null when none is known. */
function soldFigure(v: PlanView, pick: (s: SoldFigures) => number, unit: string): string | null {
  const values = [...new Set(v.sold.map(pick))];
  if (values.length === 0) return null;
  return values.map((n) => `${n}${unit}`).join(' or ');
}

/** The plan's one figure, or null when its keys have different ones (or none is known). */
function onlyFigure(v: PlanView, pick: (s: SoldFigures) => number): number | null {
  const values = [...new Set(v.sold.map(pick))];
  return values.length === 1 ? values[0]! : null;
}

const firstMessage = (o: Outcome): string | null => o.evidence[0]?.message ?? null;

/** A failure's message, shortened to its first clause for the cell. */
function clip(message: string | null): string | null {
  if (message === null) return null;
  const first = message.split('; ')[0]!;
  return first.length > MEASURED_MAX ? `${first.slice(0, MEASURED_MAX - 1)}…` : first;
}

function retryAfterPart(seconds: number | null): string {
  return seconds === null ? '' : ` (Retry-After ${seconds} s)`;
}

const PER_MINUTE: RowSpec = {
  figure: 'per-minute limit',
  check: 'ratelimit.enforced',
  also: ['ratelimit.no-over-admission', 'ratelimit.limit-matches-plan'],
  sold: (v) => soldFigure(v, (s) => s.perMinute, '/min'),
  failed(o) {
    const admitted = minuteOf(o);
    if (admitted === null || admitted.accepted <= admitted.sold) return null;
    // The cause where petload named one (several counters answering each key: a fleet that keeps it per instance).
    const cause = str(infoOf('ratelimit.enforced', o).cause);
    return `${describeAdmission(admitted)}${cause === null ? '' : `: ${cause}`}`;
  },
  held(v, o) {
    // Over the figure within the declared tolerance (an approximate limiter): the figure measured, in words.
    const info = infoOf('ratelimit.enforced', o);
    const announced = str(info.limit);
    const admitted = minuteOf(o);
    if (admitted !== null && admitted.accepted > admitted.sold)
      return { measured: describeAdmission(admitted), detail: announced };
    // The enforce probe counts against the Limit the target announces when it is not the plan's (`announcedLimit`;
    // a report of an older version has it only in the words of `limit`).
    const n =
      announced === null
        ? onlyFigure(v, (s) => s.perMinute)
        : (info.announcedLimit ?? legacyAnnouncedLimit(info.limit));
    const figure = n !== null && Number.isFinite(n) ? `${n}/min` : 'the figure sold';
    return { measured: `${figure}, then 429`, detail: announced };
  },
};

const PER_DAY: RowSpec = {
  figure: 'per-day limit',
  check: DAY_ENFORCED,
  also: [],
  sold: (v) => {
    const fromKeys = soldFigure(v, (s) => s.perDay, '/day');
    if (fromKeys !== null) return fromKeys;
    const n = num(infoOf(DAY_ENFORCED, outcomeOf(v, DAY_ENFORCED)).dayLimitSold);
    return n === null ? null : `${n}/day`;
  },
  held(_v, o) {
    const info = infoOf(DAY_ENFORCED, o);
    const accepted = num(info.acceptedInDay);
    const dayEnd = str(info.dayEnd);
    return {
      measured: `${accepted === null ? 'the figure sold' : `${accepted}/day`}, then 429${retryAfterPart(num(info.retryAfterS))}`,
      detail: dayEnd === null ? null : `the day ends at ${dayEnd}`,
    };
  },
  failed(o) {
    const info = infoOf(DAY_ENFORCED, o);
    const accepted = num(info.acceptedInDay);
    return accepted === null ? null : `${accepted} accepted in the day${retryAfterPart(num(info.retryAfterS))}`;
  },
};

const ALGORITHM: RowSpec = {
  figure: 'algorithm',
  check: 'ratelimit.algorithm',
  also: [],
  sold: () => null,
  held(_v, o) {
    const info = infoOf('ratelimit.algorithm', o);
    const shape = str(info.shape);
    const evidence = str(info.evidence);
    if (shape === null || shape === 'unknown')
      return {
        status: 'not measured',
        measured: null,
        detail: `the answers did not tell the limiter's shape${evidence === null ? '' : `: ${evidence}`}`,
      };
    const figures = [
      ['limit', str(info.limit)],
      ['burst', str(info.burst)],
      ['refill', str(info.refillPerSecond) === null ? null : `${str(info.refillPerSecond)}/s`],
    ]
      .filter(([, x]) => x !== null)
      .map(([k, x]) => `${k} ${x}`);
    return { measured: [shape, ...figures].join(', '), detail: evidence };
  },
};

/** ratelimit.what-counts's facts are keyed by status: `counted`, `not counted`, `never charged...`, `not measured: ...`. */
const WHAT_COUNTS: RowSpec = {
  figure: 'what counts',
  check: 'ratelimit.what-counts',
  also: [],
  sold: () => null,
  held(_v, o) {
    const facts = Object.entries(infoOf('ratelimit.what-counts', o)).filter(
      (e): e is [string, string] => /^\d{3}$/.test(e[0]) && !!str(e[1]),
    );
    if (facts.length === 0) return { measured: null, detail: null };
    return {
      measured: facts.map(([status, fact]) => `${status} ${fact.split(/[:;(]/)[0]!.trim()}`).join(', '),
      detail: facts.map(([status, fact]) => `${status}: ${fact}`).join('; '),
    };
  },
};

function waitsText(waits: readonly number[]): string | null {
  if (waits.length === 0) return null;
  const round = (s: number) => Math.round(s * 10) / 10;
  const [lo, hi] = [round(Math.min(...waits)), round(Math.max(...waits))];
  return lo === hi ? `waits ${lo} s` : `waits ${lo}–${hi} s`;
}

/** Retry-After's form (retry-after.syntax: how many 429s had a readable one) and its waits, as far as measured. */
function retryAfterForm(v: PlanView): string[] {
  const syntax = outcomeOf(v, 'retry-after.syntax');
  const form =
    syntax?.status === 'pass'
      ? `well formed on ${syntax.counts.passed} 429${syntax.counts.passed === 1 ? '' : 's'}`
      : null;
  return [form, waitsText(v.waits)].filter((x): x is string => x !== null);
}

const RETRY_AFTER: RowSpec = {
  figure: 'Retry-After',
  check: 'retry-after.honest',
  also: ['retry-after.present', 'retry-after.syntax', 'retry-after.plausible'],
  sold: () => 'on every 429',
  held: (v) => ({
    measured: [...retryAfterForm(v), 'honoured'].join('; '),
    detail: [
      'a request sent once Retry-After had passed was accepted (retry-after.honest)',
      outcomeOf(v, 'retry-after.plausible')?.status === 'pass' ? "no wait ran past the window's Reset" : null,
    ]
      .filter((x) => x !== null)
      .join('; '),
  }),
  partial: (v) => {
    const form = retryAfterForm(v);
    return form.length === 0 ? null : `${form.join('; ')}; accuracy not measured`;
  },
};

const BAN: RowSpec = {
  figure: 'ban',
  check: 'ban.probe',
  also: [],
  sold: () => null,
  held(_v, o) {
    const info = infoOf('ban.probe', o);
    const threshold = num(info.banThreshold);
    const status = num(info.banStatus);
    const seconds = num(info.banDurationSeconds);
    const uncertainty = num(info.banDurationUncertaintySeconds);
    const parts = [
      threshold === null ? 'banned' : `threshold ${threshold} requests inside Retry-After`,
      status === null ? null : `then ${status}`,
      seconds === null ? null : `for ${seconds} s${uncertainty === null ? '' : ` (±${uncertainty} s)`}`,
    ].filter((x): x is string => x !== null);
    const recovered = info.recovered;
    return {
      measured: parts.join(', ') + (recovered === false ? '; not accepted after it' : ''),
      detail: recovered === true ? 'accepted again after the ban' : null,
    };
  },
};

/** The rows of every plan, in the table's order. */
export const PLAN_ROWS: readonly RowSpec[] = [PER_MINUTE, PER_DAY, ALGORITHM, WHAT_COUNTS, RETRY_AFTER, BAN];

/** Why a check has no pass or failure for the plan: its skip reasons, or which outcome the report lacks. */
function whyNotMeasured(v: PlanView, id: string): string {
  const check = v.checks.find((c) => c.id === id);
  if (check === undefined)
    return v.outOfScope.includes(id)
      ? `${id} is out of scope of this focused run`
      : `no outcome of ${id} in this report`;
  const mine = check.byPlan.find((o) => o.plan === v.plan);
  const reasons = (mine ?? check.byPlan.find((o) => o.plan === null))?.reasons ?? [];
  if (reasons.length > 0) return reasons.join('; ');
  return mine === undefined ? `${id} was not judged for the ${v.plan} plan` : `${id} was skipped`;
}

function rowOf(spec: RowSpec, v: PlanView): PlanRow {
  const base = { figure: spec.figure, sold: spec.sold(v) };
  for (const id of [spec.check, ...spec.also]) {
    const o = outcomeOf(v, id);
    if (o?.status !== 'fail') continue;
    const message = firstMessage(o);
    const measured = (id === spec.check ? spec.failed?.(o) : null) ?? clip(message);
    return { ...base, measured, status: 'not held', check: id, detail: message ?? `${id} failed` };
  }
  const o = outcomeOf(v, spec.check);
  if (o?.status === 'pass') {
    const r = spec.held(v, o);
    return { ...base, measured: r.measured, status: r.status ?? 'held', check: spec.check, detail: r.detail };
  }
  return {
    ...base,
    measured: spec.partial?.(v) ?? null,
    status: 'not measured',
    check: spec.check,
    detail: whyNotMeasured(v, spec.check),
  };
}

/** The figures each plan's keys were judged against, from the keys themselves (a run's input). */
export function soldFromKeys(
  keys: readonly { label: string; plan: PlanName; limits: { perMinute: number; perDay: number } }[],
): Partial<Record<PlanName, SoldFigures[]>> {
  const out: Partial<Record<PlanName, SoldFigures[]>> = {};
  for (const k of keys) {
    const list = (out[k.plan] ??= []);
    const same = list.find((s) => s.perMinute === k.limits.perMinute && s.perDay === k.limits.perDay);
    if (same) same.keys.push(k.label);
    else list.push({ perMinute: k.limits.perMinute, perDay: k.limits.perDay, keys: [k.label] });
  }
  return out;
}

/**
 * The same from a report: its keys' figures (`keys[].limits`; in a report of an older version its plan table's, else
 * its notes, read by the legacy path in src/report/legacy.ts).
 */
export function soldFromReport(
  report: Pick<Report, 'planTable' | 'notes' | 'keys'>,
): Partial<Record<PlanName, SoldFigures[]>> {
  // A report written before `keys[].limits` with a plan table: the table's figures, as that version read them.
  if (report.planTable !== undefined && report.keys.some((k) => k.limits === undefined))
    return Object.fromEntries(report.planTable.map((p) => [p.plan, p.sold]));
  return soldFromKeys(keyLimitsOf(report));
}

/** The plan table of a report's plans, from its checks and 429s, against the figures sold. */
export function derivePlanTable(
  report: Pick<Report, 'plans' | 'checks' | 'keyTimelines' | 'outOfScope'>,
  sold: Partial<Record<PlanName, SoldFigures[]>>,
): PlanTable {
  return report.plans.map((plan) => {
    const waits = report.keyTimelines
      .filter((k) => k.plan === plan)
      .flatMap((k) => k.refusals.map(([, s]) => s))
      .filter((s): s is number => s !== null);
    const outOfScope = report.outOfScope ?? [];
    const v: PlanView = { plan, sold: sold[plan] ?? [], checks: report.checks, waits, outOfScope };
    return { plan, sold: v.sold.map((s) => ({ ...s, keys: [...s.keys] })), rows: PLAN_ROWS.map((r) => rowOf(r, v)) };
  });
}

/** The table of each report object (reports are not changed once made): every output of one report derives it once. */
const derived = new WeakMap<Report, PlanTable>();

/**
 * The table the outputs show: derived again from the report they render (redacted, and possibly merged or written
 * by an older petload), against the figures its plan table or its notes record.
 */
export function planTableOf(report: Report): PlanTable {
  let table = derived.get(report);
  if (table === undefined) {
    table = derivePlanTable(report, soldFromReport(report));
    derived.set(report, table);
  }
  return table;
}
