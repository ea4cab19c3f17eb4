/**
 * What a response body says, as the checks see it: JSON when the content type says JSON (parsed losslessly),
 * text otherwise, and an excerpt either way for evidence.
 */
import type { ParsedBody } from './exchange.js';
import { parseJsonLossless } from './json.js';

/** Evidence keeps the start of a body, not all of it. */
export const EXCERPT_CHARS = 500;

export function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}…`;
}

/** `application/json` or any `+json` structured syntax suffix (RFC 6839), parameters and case ignored. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

/** Decode a complete, non-empty body by its Content-Type. */
export function decodeBody(text: string, contentType: string | undefined): ParsedBody {
  if (!isJsonMediaType(contentType)) return { kind: 'text', excerpt: excerpt(text) };
  try {
    return { kind: 'json', value: parseJsonLossless(text), excerpt: excerpt(text) };
  } catch (e) {
    return { kind: 'unparseable', error: e instanceof Error ? e.message : String(e), excerpt: excerpt(text) };
  }
}
