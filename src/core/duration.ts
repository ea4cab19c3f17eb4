/**
 * Durations as written in scenarios and on the command line: a number and a unit, or several from the
 * largest unit to the smallest ("1m30s"). Units: ms, s, m, h, d. Durations are run-clock time: on a
 * scaled clock "1d" lasts 86 400 000 / scale real milliseconds.
 */

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
type Unit = keyof typeof UNIT_MS;
const UNITS = Object.keys(UNIT_MS) as Unit[];

/** Spellings people reach for, mapped to the unit they meant, so that the error can suggest the fix. */
const SYNONYMS: Record<string, Unit> = {
  msec: 'ms',
  msecs: 'ms',
  millis: 'ms',
  millisecond: 'ms',
  milliseconds: 'ms',
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  day: 'd',
  days: 'd',
};

/** What a duration looks like, for messages. */
export const DURATION_EXPECTED = 'a duration such as 250ms, 1.5s, 3m, 1m30s, 2h or 1d';
const PART = /(\d+(?:\.\d+)?)([a-zA-Z]+)/gy;

function fail(text: string, why?: string): never {
  throw new Error(`expected ${DURATION_EXPECTED}, found ${JSON.stringify(text)}${why ? ` (${why})` : ''}`);
}

/**
 * Milliseconds of a duration such as "250ms", "1.5s", "3m", "2h", "1d" or "1m30s".
 * Throws an Error whose message reads `expected …, found "…"` (callers prefix where the text came from).
 */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === '') fail(text, 'it is empty');
  if (s.startsWith('-')) fail(text, 'a duration cannot be negative');
  if (/^\d+(\.\d+)?$/.test(s)) fail(text, `a unit is needed: did you mean "${s}s"?`);

  let total = 0;
  let lastRank = -1;
  let end = 0;
  PART.lastIndex = 0;
  for (let m = PART.exec(s); m !== null; m = PART.exec(s)) {
    const num = m[1]!;
    const unit = m[2]!;
    const rank = UNITS.indexOf(unit as Unit);
    if (rank < 0) {
      const lower = unit.toLowerCase();
      const meant = UNITS.includes(lower as Unit) ? (lower as Unit) : SYNONYMS[lower];
      const fixed = meant === undefined ? undefined : s.replace(`${num}${unit}`, `${num}${meant}`);
      fail(text, `unknown unit "${unit}"; units are ${UNITS.join(', ')}${fixed ? `: did you mean "${fixed}"?` : ''}`);
    }
    if (rank <= lastRank) fail(text, 'units go from the largest to the smallest, each at most once');
    lastRank = rank;
    total += Number(num) * UNIT_MS[unit as Unit];
    end = PART.lastIndex;
  }
  if (end !== s.length) fail(text, /^\d+(\.\d+)?$/.test(s.slice(end)) ? `"${s.slice(end)}" has no unit` : undefined);
  if (!Number.isSafeInteger(Math.round(total))) fail(text, 'too long');
  return total;
}

/** Milliseconds for people, to the whole second: `45 s`, `2 min 05 s`. */
/** A number of minute windows for people: one decimal below ten. */
export const fmtWindows = (w: number): string => w.toFixed(w < 10 ? 1 : 0);

export function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
}
