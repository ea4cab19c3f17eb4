/**
 * Parse once, on the exchange. What the checks, the key states, the backoff and the metrics read from a
 * response's headers (the rate-limit triple, the Date) is parsed on first read and kept in the exchange's
 * `parsed` memo, so that every reader gets the same result and nothing outlives the exchange. The HTTP client
 * of a run gives its exchanges one DateCache: every response of one second carries the same Date text, and the
 * cache dies with the client. No module keeps a parse result between exchanges or runs.
 */
import { type HeaderMap, onlyValue } from './header-map.js';
import { parseHttpDate, parseRateLimit, type RateLimitHeaders } from './headers.js';

/**
 * The last Date text read on one client (a run's), and its value; and the server's clock as the answers with a
 * usable Date showed it, for an answer without one (src/http/server-time.ts).
 */
export class DateCache {
  private text: string | null = null;
  private ms: number | null = null;
  /** Local run-clock time minus the server's Date, at the completion of the last answer read with a usable Date. */
  offsetMs: number | null = null;

  parse(raw: string): number | null {
    if (raw !== this.text) {
      this.ms = parseHttpDate(raw);
      this.text = raw;
    }
    return this.ms;
  }
}

/** What has been parsed from one response so far (undefined: not read yet). Results are shared: read-only. */
export class ResponseMemo {
  rateLimit: RateLimitHeaders | undefined = undefined;
  date: number | null | undefined = undefined;

  constructor(readonly dates: DateCache | null = null) {}
}

/** What the readers below take of an exchange (src/http/exchange.ts): its headers, its memo, when it completed. */
export interface Responded {
  readonly headers: HeaderMap;
  readonly parsed?: ResponseMemo;
  /** Wall time on the run clock when the response was complete: with the Date, the server's clock is learnt. */
  readonly localTime?: number;
}

/** The rate-limit triple of the exchange's response. Shared by every reader of the exchange: do not change it. */
export function rateLimitOf(ex: Responded): RateLimitHeaders {
  const memo = ex.parsed;
  if (memo === undefined) return parseRateLimit(ex.headers);
  return (memo.rateLimit ??= parseRateLimit(ex.headers));
}

function readDate(ex: Responded, dates: DateCache | null): number | null {
  const raw = onlyValue(ex.headers, 'date');
  if (raw === undefined) return null;
  return dates === null ? parseHttpDate(raw) : dates.parse(raw);
}

/** The response's Date (sent once) as epoch ms on the server's clock; null when absent, repeated or not an HTTP-date. */
export function dateOf(ex: Responded): number | null {
  const memo = ex.parsed;
  if (memo === undefined) return readDate(ex, null);
  if (memo.date === undefined) {
    memo.date = readDate(ex, memo.dates);
    if (memo.date !== null && memo.dates !== null && ex.localTime !== undefined)
      memo.dates.offsetMs = ex.localTime - memo.date;
  }
  return memo.date;
}
