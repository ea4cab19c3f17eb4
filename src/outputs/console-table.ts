/**
 * Tables and long lines for a terminal of a given width: words wrap onto the next lines, never cut, so that no
 * figure is lost to an ellipsis. A table whose fixed columns leave too little room for its wrapping column puts
 * that column's text under each row instead.
 */

/** The default width where none is known (a pipe, a CI log): wide enough for a plan table's row. */
export const DEFAULT_COLUMNS = 120;
/** The narrowest a wrapping column may be before its text goes under the row. */
const MIN_WRAP = 24;

/**
 * `text` in lines of at most `width` characters, broken at spaces; a word longer than the width is split (only
 * then: a figure is a short word).
 */
export function wrapWords(text: string, width: number): string[] {
  const w = Math.max(8, width);
  if (text.length <= w) return [text];
  const lines: string[] = [];
  let line = '';
  for (let word of text.split(' ').filter((x) => x !== '')) {
    while (word.length > w) {
      if (line !== '') lines.push(line);
      lines.push(word.slice(0, w));
      word = word.slice(w);
      line = '';
    }
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= w) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * A line of `prefix` + text wrapped to `width`, its continuation lines indented by `hang` spaces more than the
 * prefix's length (or by `hang` itself when it is a string): `  FAIL retry-after.honest …` and, under it, the rest.
 */
export function wrapLine(prefix: string, text: string, width: number, hang: number | string = 2): string[] {
  const first = Math.max(MIN_WRAP, width - prefix.length);
  const indent =
    typeof hang === 'string' ? hang : ' '.repeat(Math.min(prefix.length + hang, Math.max(0, width - MIN_WRAP)));
  const [head = '', ...rest] = wrapWords(text, first);
  const tail = rest.length === 0 ? [] : wrapWords(rest.join(' '), Math.max(MIN_WRAP, width - indent.length));
  return [`${prefix}${head}`, ...tail.map((l) => `${indent}${l}`)];
}

export interface TableOptions {
  /** The terminal's width. */
  width: number;
  /** The column whose text wraps (the others are short: names, figures, statuses, ids). */
  wrap: number;
  /** Paints a cell's padded text on a row's first line (colour); the identity by default. */
  paint?: (row: number, column: number, text: string) => string;
}

/**
 * The lines of a table with two spaces of indent and two between columns. The wrapping column wraps within
 * what the others leave; when they leave less than MIN_WRAP, it leaves the table and its text goes under the row.
 */
export function tableLines(head: readonly string[], rows: readonly (readonly string[])[], o: TableOptions): string[] {
  const paint = o.paint ?? ((_r: number, _c: number, t: string) => t);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fixed = widths.reduce((n, w, i) => (i === o.wrap ? n : n + w + 2), 2);
  const room = o.width - fixed - (o.wrap === head.length - 1 ? 0 : 2);
  const under = room < MIN_WRAP;
  const cols = head.map((_, i) => i).filter((i) => !(under && i === o.wrap));
  const wrapWidth = under ? 0 : Math.min(widths[o.wrap]!, room);
  const last = cols[cols.length - 1]!;
  const line = (cells: readonly string[], row: number | null) =>
    `  ${cols
      .map((i) => {
        const w = i === o.wrap ? wrapWidth : widths[i]!;
        const text = i === last ? cells[i]! : cells[i]!.padEnd(w);
        return row === null ? text : paint(row, i, text);
      })
      .join('  ')}`.trimEnd();
  const out = [line(head, null)];
  rows.forEach((r, ri) => {
    if (under) {
      out.push(line(r, ri));
      if (r[o.wrap] !== '' && r[o.wrap] !== '-')
        out.push(...wrapLine(`      ${head[o.wrap]}: `, r[o.wrap]!, o.width, '        '));
      return;
    }
    const [first = '', ...more] = wrapWords(r[o.wrap]!, wrapWidth);
    out.push(
      line(
        r.map((c, i) => (i === o.wrap ? first : c)),
        ri,
      ),
    );
    for (const m of more)
      out.push(
        line(
          r.map((_, i) => (i === o.wrap ? m : '')),
          null,
        ),
      );
  });
  return out;
}
