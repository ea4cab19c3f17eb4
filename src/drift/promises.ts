/**
 * The promises a plan's limiter makes, compared between two runs: a figure that moved beyond its noise is drift, and
 * a regression (docs/compare.md, "Promises"). Read from report.json only:
 * - Retry-After against the wait its answer's Reset gives: every 429 in keyTimelines, `[t, Retry-After, Reset's
 *   wait]` (the third absent in reports of older versions: the Retry-After values alone then);
 * - accepted within a minute and within a day from a fresh start: `admission` (derived from the checks' facts for a
 *   report without it), against the figure sold and its declared tolerance;
 * - the ban's threshold and length: ban.probe's info.
 */
import type { PlanName } from '../api/plans.js';
import { deriveAdmission } from '../report/admission.js';
import { infoOf } from '../report/check-info.js';
import type { Admission, Report } from '../report/schema.js';
import type { PromiseFigure } from './schema.js';

/** Retry-After, Reset and Date are whole seconds: each may be up to 1 s off the instant it names. */
export const RETRY_AFTER_NOISE_S = 2;
/** Without Reset's waits, the Retry-After values themselves: beyond RETRY_AFTER_NOISE_S and this share of them. */
export const RETRY_AFTER_RELATIVE = 0.25;
/** A count (accepted, a ban's threshold) may move by one request at a window's edge. */
export const COUNT_NOISE = 1;
/** The ban's length: beyond both runs' stated uncertainty and the clock's resolution, 1 s. */
export const BAN_LENGTH_NOISE_S = 1;

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
const seconds = (x: number): string => `${round1(x)} s`;

interface Waits {
  /** Retry-After of the plan's 429s that had a usable one. */
  retryAfter: number[];
  /** [Retry-After, Reset's wait] of the 429s that had both. */
  pairs: [number, number][];
}

function waitsOf(report: Report, plan: PlanName): Waits {
  const refusals = report.keyTimelines.filter((k) => k.plan === plan).flatMap((k) => k.refusals);
  const retryAfter = refusals.flatMap(([, ra]) => (ra === null ? [] : [ra]));
  const pairs = refusals.flatMap(([, ra, reset]): [number, number][] =>
    ra === null || reset === null || reset === undefined ? [] : [[ra, reset]],
  );
  return { retryAfter, pairs };
}

/** "Retry-After 58 s of Reset's 58 s, 0 s short (7 429s)": the medians over the 429s that gave both. */
function pairsWords(pairs: readonly [number, number][]): { short: number; text: string } {
  const ra = median(pairs.map(([r]) => r))!;
  const reset = median(pairs.map(([, w]) => w))!;
  const short = median(pairs.map(([r, w]) => w - r))!;
  const n = pairs.length;
  return {
    short,
    text: `Retry-After ${seconds(ra)} of Reset's ${seconds(reset)}, ${short < 0 ? `${seconds(-short)} over` : `${seconds(short)} short`} (${n} 429${n === 1 ? '' : 's'})`,
  };
}

function retryAfterFigure(b: Waits, c: Waits): PromiseFigure | null {
  if (b.pairs.length > 0 && c.pairs.length > 0) {
    const x = pairsWords(b.pairs);
    const y = pairsWords(c.pairs);
    return {
      figure: 'Retry-After against Reset',
      baseline: x.text,
      current: y.text,
      noise: `the median shortfall of Retry-After from the same answer's Reset moved more than ${RETRY_AFTER_NOISE_S} s`,
      drift: Math.abs(y.short - x.short) > RETRY_AFTER_NOISE_S,
    };
  }
  const x = median(b.retryAfter);
  const y = median(c.retryAfter);
  if (x === null || y === null) return null;
  const change = Math.abs(y - x);
  return {
    figure: 'Retry-After',
    baseline: `median ${seconds(x)} of ${b.retryAfter.length} 429s`,
    current: `median ${seconds(y)} of ${c.retryAfter.length} 429s`,
    noise: `the median moved more than ${RETRY_AFTER_NOISE_S} s and ${RETRY_AFTER_RELATIVE * 100} % (no Reset's wait to hold it to)`,
    drift: change > RETRY_AFTER_NOISE_S && change > RETRY_AFTER_RELATIVE * x,
  };
}

const WINDOW_WORDS: Record<Admission['window'], string> = { minute: 'accepted per minute', day: 'accepted per day' };

function admissionFigure(window: Admission['window'], b: Admission | undefined, c: Admission | undefined) {
  if (b === undefined || c === undefined) return null;
  const unit = window === 'minute' ? '/min' : '/day';
  const words = (a: Admission) => `${a.atLeast ? 'at least ' : ''}${a.accepted}${unit} (sold ${a.sold})`;
  // The declared tolerance is the limiter's own room: a count within it is the same promise.
  const tolerance = Math.max(COUNT_NOISE, (Math.max(b.tolerancePercent, c.tolerancePercent) / 100) * b.sold);
  const both = !b.atLeast && !c.atLeast;
  return {
    figure: WINDOW_WORDS[window],
    baseline: words(b),
    current: words(c),
    noise: both
      ? `moved more than ${round1(tolerance)} request${tolerance === 1 ? '' : 's'} (one at a window's edge, or the declared tolerance)`
      : 'not judged: a count that met no refusal is only a lower bound',
    drift: both && Math.abs(c.accepted - b.accepted) > tolerance,
  };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function banFigures(report: Report, other: Report, plan: PlanName): PromiseFigure[] {
  const facts = (r: Report) => {
    const o = r.checks.find((c) => c.id === 'ban.probe')?.byPlan.find((x) => x.plan === plan);
    return o?.status === 'pass' ? infoOf('ban.probe', o) : null;
  };
  const b = facts(report);
  const c = facts(other);
  if (b === null || c === null) return [];
  const out: PromiseFigure[] = [];
  const [tb, tc] = [num(b.banThreshold), num(c.banThreshold)];
  if (tb !== null && tc !== null)
    out.push({
      figure: 'ban threshold',
      baseline: `${tb} requests inside Retry-After`,
      current: `${tc} requests inside Retry-After`,
      noise: `moved more than ${COUNT_NOISE} request`,
      drift: Math.abs(tc - tb) > COUNT_NOISE,
    });
  const [lb, lc] = [num(b.banDurationSeconds), num(c.banDurationSeconds)];
  if (lb !== null && lc !== null) {
    const room = (num(b.banDurationUncertaintySeconds) ?? 0) + (num(c.banDurationUncertaintySeconds) ?? 0);
    out.push({
      figure: 'ban length',
      baseline: seconds(lb),
      current: seconds(lc),
      noise: `moved more than both runs' uncertainty and ${BAN_LENGTH_NOISE_S} s (${seconds(room + BAN_LENGTH_NOISE_S)})`,
      drift: Math.abs(lc - lb) > room + BAN_LENGTH_NOISE_S,
    });
  }
  return out;
}

/** The plan's promise figures measured by both runs, each judged against its noise. */
export function promiseFigures(baseline: Report, current: Report, plan: PlanName): PromiseFigure[] {
  const admission = (r: Report, w: Admission['window']) =>
    (r.admission ?? deriveAdmission(r)).find((a) => a.plan === plan && a.window === w);
  return [
    retryAfterFigure(waitsOf(baseline, plan), waitsOf(current, plan)),
    admissionFigure('minute', admission(baseline, 'minute'), admission(current, 'minute')),
    admissionFigure('day', admission(baseline, 'day'), admission(current, 'day')),
    ...banFigures(baseline, current, plan),
  ].filter((f): f is PromiseFigure => f !== null);
}

/** One line for a promise that drifted: `free: Retry-After against Reset: ... -> ...`. */
export function promiseMessage(plan: PlanName, f: PromiseFigure): string {
  return `${plan}: ${f.figure} ${f.baseline} -> ${f.current} (drift: ${f.noise})`;
}
