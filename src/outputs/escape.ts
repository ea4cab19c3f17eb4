/**
 * Escaping for XML and HTML. Evidence carries whatever a target sent (body excerpts, headers), so every text
 * is escaped, and characters XML 1.0 forbids (NUL, most C0 controls, lone surrogates) are shown as \x{..}
 * instead of making the whole file unparseable.
 */
const FORBIDDEN = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const SPECIAL: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function visible(s: string): string {
  return s.replace(FORBIDDEN, (c) => `\\x{${c.codePointAt(0)!.toString(16)}}`);
}

/** Text content of an XML or HTML element. */
export function escapeText(s: string): string {
  return visible(s).replace(/[&<>"']/g, (c) => SPECIAL[c]!);
}

/** An attribute value (double-quoted). Line breaks are kept as character references, which parsers preserve. */
export function escapeAttr(s: string): string {
  return escapeText(s).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
