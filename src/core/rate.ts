/**
 * Arrival rates as written in scenarios and on the command line:
 *   `N/s`, `N/min`, `N/h`, `N/day`  an absolute rate (N may have decimals: `0.5/s`);
 *   `P%`                            a share of the plan's per-minute limit (`95%`, `150%`);
 *   `P%/day`                        a share of the plan's per-day limit (`110%/day`).
 * Rates are run-clock time, like durations: on a scaled clock a second of the run lasts 1/scale real seconds.
 */
import { MINUTE_S, DAY_S, type PlanLimits, type WindowName } from '../api/plans.js';

export type Rate =
  | { readonly kind: 'absolute'; readonly perSecond: number }
  /** `fraction` of the plan's limit for `window` (0.95 for `95%`). */
  | { readonly kind: 'plan'; readonly fraction: number; readonly window: WindowName };

const PER_UNIT_S = { s: 1, min: MINUTE_S, h: 3600, day: DAY_S } as const;
type PerUnit = keyof typeof PER_UNIT_S;
const PER_UNITS = Object.keys(PER_UNIT_S) as PerUnit[];

const SYNONYMS: Record<string, PerUnit> = {
  sec: 's',
  second: 's',
  m: 'min',
  minute: 'min',
  hr: 'h',
  hour: 'h',
  d: 'day',
};

/** What a rate looks like, for messages. */
export const RATE_EXPECTED = 'a rate such as 10/s, 600/min, 100/h, 1000/day, 95% (of the per-minute limit) or 110%/day';
const NUMBER = String.raw`\d+(?:\.\d+)?`;
const ABSOLUTE = new RegExp(`^(${NUMBER})\\s*/\\s*([a-zA-Z]+)$`);
const SHARE = new RegExp(`^(${NUMBER})\\s*%(?:\\s*/\\s*([a-zA-Z]+))?$`);

function fail(text: string, why?: string): never {
  throw new Error(`expected ${RATE_EXPECTED}, found ${JSON.stringify(text)}${why ? ` (${why})` : ''}`);
}

/** The unit if it is one of `allowed`; otherwise fail, suggesting the unit that was probably meant. */
function unitOf(text: string, unit: string, allowed: readonly string[], fixed: (u: string) => string): string {
  if (allowed.includes(unit)) return unit;
  const lower = unit.toLowerCase();
  const singular = lower.replace(/s$/, '');
  const meant = [lower, SYNONYMS[lower], singular, SYNONYMS[singular]].find(
    (u) => u !== undefined && allowed.includes(u),
  );
  fail(text, meant ? `did you mean "${fixed(meant)}"?` : `the unit is one of ${allowed.join(', ')}`);
}

/** Parse a rate. Throws an Error whose message reads `expected …, found "…"`. */
export function parseRate(text: string): Rate {
  const s = text.trim();
  if (s === '') fail(text, 'it is empty');
  if (s.startsWith('-')) fail(text, 'a rate cannot be negative');
  if (new RegExp(`^${NUMBER}$`).test(s)) fail(text, `a unit is needed: did you mean "${s}/s"?`);

  const share = SHARE.exec(s);
  if (share) {
    const num = share[1]!;
    const unit = share[2];
    const window: WindowName =
      unit === undefined
        ? 'minute'
        : unitOf(text, unit, ['min', 'day'], (u) => `${num}%/${u}`) === 'day'
          ? 'day'
          : 'minute';
    const fraction = Number(num) / 100;
    if (!(fraction > 0)) fail(text, 'a rate must be above zero');
    return { kind: 'plan', fraction, window };
  }
  const abs = ABSOLUTE.exec(s);
  if (abs) {
    const num = abs[1]!;
    const unit = abs[2]!;
    const per = unitOf(text, unit, PER_UNITS, (u) => `${num}/${u}`) as PerUnit;
    const perSecond = Number(num) / PER_UNIT_S[per];
    if (!(perSecond > 0)) fail(text, 'a rate must be above zero');
    return { kind: 'absolute', perSecond };
  }
  fail(text);
}

/** Requests per second (run clock) of a rate for a plan with the given limits. */
export function resolveRate(rate: Rate, limits: PlanLimits): number {
  if (rate.kind === 'absolute') return rate.perSecond;
  return rate.window === 'day'
    ? (rate.fraction * limits.perDay) / DAY_S
    : (rate.fraction * limits.perMinute) / MINUTE_S;
}
