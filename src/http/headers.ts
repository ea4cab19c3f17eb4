/**
 * Pure parsers for the headers the checks judge: X-RateLimit-*, Retry-After, Date, Deprecation.
 * They never throw: a target can send anything, and what it sent is judged, not trusted.
 *
 * Strict on purpose. Lenient readers (undici's retry handler reads Retry-After with `Number()`, so
 * " 1.5e3 " or "0x10" count as seconds, and anything `new Date()` accepts as a date) are right for a
 * client that wants to get on with its work, wrong for a suite that must say whether a value is well formed.
 */
import type { HeaderMap } from './header-map.js';

export type IntHeader =
  | { readonly ok: true; readonly value: number }
  | { readonly ok: false; readonly problem: 'missing' | 'repeated' | 'malformed'; readonly raw?: string };

/** HTTP optional whitespace (RFC 9110 §5.6.3) is SP / HTAB only; String.prototype.trim removes far more. */
function trimOws(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && (s[a] === ' ' || s[a] === '\t')) a++;
  while (b > a && (s[b - 1] === ' ' || s[b - 1] === '\t')) b--;
  return s.slice(a, b);
}

const DIGITS = /^[0-9]+$/;

/**
 * A header that must appear once and hold a plain non-negative integer (1*DIGIT, leading zeros allowed):
 * no sign, decimal point, exponent, unit or list. A value beyond 2^53 is reported malformed: no rate-limit
 * figure is that large, and arithmetic on a rounded value would judge the wrong number.
 */
export function parseIntHeader(headers: HeaderMap, name: string): IntHeader {
  const raw = headers[name];
  if (raw === undefined) return { ok: false, problem: 'missing' };
  if (typeof raw !== 'string')
    return raw.length === 1
      ? parseIntValue(raw[0]!)
      : { ok: false, problem: raw.length === 0 ? 'missing' : 'repeated', raw: raw.join(', ') };
  return parseIntValue(raw);
}

const isOws = (c: number): boolean => c === 0x20 || c === 0x09;

/** By character codes rather than trim, regex and Number(): the three headers of every response go through it. */
function parseIntValue(raw: string): IntHeader {
  let a = 0;
  let b = raw.length;
  while (a < b && isOws(raw.charCodeAt(a))) a++;
  while (b > a && isOws(raw.charCodeAt(b - 1))) b--;
  if (a === b) return { ok: false, problem: 'malformed', raw };
  let value = 0;
  for (let i = a; i < b; i++) {
    const digit = raw.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return { ok: false, problem: 'malformed', raw };
    // Exact while below 2^53; past it the value stays past it, and is refused below.
    value = value * 10 + digit;
  }
  if (!Number.isSafeInteger(value)) return { ok: false, problem: 'malformed', raw };
  return { ok: true, value };
}

export interface RateLimitHeaders {
  readonly limit: IntHeader;
  readonly remaining: IntHeader;
  readonly reset: IntHeader;
}

export const RATELIMIT_HEADERS = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
} as const;

/** The rate-limit triple of a response. Readers of an exchange use rateLimitOf (parsed.ts), which parses it once. */
export function parseRateLimit(headers: HeaderMap): RateLimitHeaders {
  return {
    limit: parseIntHeader(headers, RATELIMIT_HEADERS.limit),
    remaining: parseIntHeader(headers, RATELIMIT_HEADERS.remaining),
    reset: parseIntHeader(headers, RATELIMIT_HEADERS.reset),
  };
}

// --- HTTP-date (RFC 9110 §5.6.7) -------------------------------------------------------------------

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const DAY_LONG = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

/** `Sun, 06 Nov 1994 08:49:37 GMT`: the preferred form, the only one a sender may generate. */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete). */
const RFC850_DATE = new RegExp(`^${DAY_LONG}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` (obsolete, C's asctime). */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1..12); avoids Date.UTC's 0..99 → 19xx quirk. */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Epoch ms of validated fields, or null. Seconds may be 60 (a leap second, allowed by the grammar).
 * The day name is not checked against the date: RFC 9110 does not ask recipients to, and the time is
 * what the checks use.
 */
function epochOf(year: number, monthName: string, day: number, h: number, mi: number, s: number): number | null {
  const month = MONTHS.indexOf(monthName) + 1;
  const maxDay = month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]!;
  if (day < 1 || day > maxDay || h > 23 || mi > 59 || s > 60) return null;
  return ((daysFromCivil(year, month, day) * 24 + h) * 60 + mi) * 60_000 + s * 1000;
}

function parseImf(v: string): number | null {
  const m = IMF_FIXDATE.exec(v);
  if (!m) return null;
  return epochOf(Number(m[3]), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/** True when `raw` is an IMF-fixdate naming a real calendar date. */
export function isImfFixdate(raw: string): boolean {
  return parseImf(trimOws(raw)) !== null;
}

/**
 * An HTTP-date in any of its three forms (recipients must accept all three), as epoch ms; null otherwise.
 * Case-sensitive, as the grammar is. RFC 850's two-digit year: 00-69 → 20xx, 70-99 → 19xx (the POSIX
 * pivot; RFC 9110's "more than 50 years in the future" rule needs a clock, and this function is pure).
 */
export function parseHttpDate(raw: string): number | null {
  const v = trimOws(raw);
  const imf = parseImf(v);
  if (imf !== null) return imf;
  let m = RFC850_DATE.exec(v);
  if (m) {
    const yy = Number(m[3]);
    return epochOf(yy < 70 ? 2000 + yy : 1900 + yy, m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  m = ASCTIME_DATE.exec(v);
  if (m) return epochOf(Number(m[6]), m[1]!, Number(m[2]!.trim()), Number(m[3]), Number(m[4]), Number(m[5]));
  return null;
}

// --- Retry-After (RFC 9110 §10.2.3) ----------------------------------------------------------------

export type RetryAfter =
  | { kind: 'seconds'; seconds: number }
  | { kind: 'date'; epochMs: number }
  | { kind: 'malformed' };

/**
 * `Retry-After = HTTP-date / delay-seconds`, delay-seconds = 1*DIGIT. Any of the three date forms is
 * read (a recipient must accept them); `isImfFixdate` tells whether a sender used the one it may generate.
 * delay-seconds has no upper bound in the grammar: a huge value stays huge (even Infinity) and callers
 * bound their waits.
 */
export function parseRetryAfter(raw: string): RetryAfter {
  const v = trimOws(raw);
  if (DIGITS.test(v)) return { kind: 'seconds', seconds: Number(v) };
  const epochMs = parseHttpDate(v);
  return epochMs === null ? { kind: 'malformed' } : { kind: 'date', epochMs };
}

// --- Deprecation (RFC 9745) ------------------------------------------------------------------------

/**
 * `Deprecation` is a Structured Field Date: `@` and an sf-integer (optional `-`, 1 to 15 digits) of Unix
 * seconds. Returns epoch ms, or null for anything else (including the draft's old `true` value).
 */
export function parseDeprecation(raw: string): number | null {
  const m = /^@(-?\d{1,15})$/.exec(trimOws(raw));
  if (!m) return null;
  // `-0` is a valid sf-integer; normalise it so callers never see negative zero.
  return Number(m[1]) * 1000 + 0;
}
