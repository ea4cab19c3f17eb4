/**
 * A response's headers as the exchange keeps them, and how to read one: the interface the parsers (headers.ts,
 * parsed.ts) and the exchange (exchange.ts) share, apart from both so that neither imports the other.
 */

/** Lower-cased header name → value; repeated headers keep every value as an array. */
export type HeaderMap = Record<string, string | string[]>;

/** All values of a header (lower-case name). */
export function headerValues(headers: HeaderMap, name: string): readonly string[] {
  const v = headers[name];
  if (v === undefined) return NONE;
  return Array.isArray(v) ? v : [v];
}

const NONE: readonly string[] = Object.freeze([]);

/** The value of a header sent exactly once; undefined when absent or repeated. Allocates nothing (hot path). */
export function onlyValue(headers: HeaderMap, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined || typeof v === 'string') return v;
  return v.length === 1 ? v[0] : undefined;
}

/** The single value of a header, or undefined when absent; repeated values are joined with ", ". */
export function headerValue(headers: HeaderMap, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : v;
}
