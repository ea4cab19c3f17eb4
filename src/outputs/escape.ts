/**
 * Escaping for XML and HTML. Evidence carries whatever a target sent (body excerpts, headers), so every text
 * is escaped, and characters XML 1.0 forbids (NUL, most C0 controls, lone surrogates) are shown as \x{..}
 * instead of making the whole file unparseable; so are DEL and the C1 controls (U+007F-U+009F), which XML allows
 * but a terminal showing the file would obey (U+009B starts an escape sequence, as ESC [ does).
 */
const FORBIDDEN = /[^\t\n\r\x20-\x7e\xa0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
/** Control characters other than tab and line feed: C0, DEL and C1. */
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Control characters (but tab and line feed) shown as \x{..}: for plain text files (summary.md). */
export function visibleControls(s: string): string {
  return s.replace(CONTROLS, (c) => `\\x{${c.charCodeAt(0).toString(16)}}`);
}
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
