/**
 * The few lines `petload compare` prints: the verdict, the two runs, the first drifts, and where the rest is.
 * Plain ASCII markers; colour only when asked; a target's text is never sent to the terminal raw.
 */
import { checksLine, type DriftVerdict, driftRows, headline } from './drifts.js';
import { trafficWords } from '../metrics/traffic.js';
import type { Comparison } from './schema.js';

export interface CompareConsoleOptions {
  color?: boolean;
  /** Drift lines shown at most (default 12); the rest are counted. */
  maxDrifts?: number;
}

const ANSI = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;
type Style = keyof typeof ANSI;

/** Control characters shown, never sent; one line; bounded. */
export function clean(s: string, max = 240): string {
  const one = s
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

const STYLE: Record<DriftVerdict, Style> = {
  REGRESSION: 'red',
  WARNING: 'yellow',
  CHANGED: 'yellow',
  SLOWER: 'yellow',
  FASTER: 'green',
  FIXED: 'green',
  SKIPPED: 'dim',
  PASSING: 'green',
};

/** ` of the load's requests`, or why latency was not compared; nothing for a compare.json of an older version. */
export function latencyOf(c: Comparison): string {
  const t = c.latencyTraffic;
  if (t === undefined) return '';
  if (!t.compared && t.baseline === t.current)
    return ` (not compared: the baseline ran ${c.baseline.focus ?? 'the whole scenario'}, the current ${c.current.focus ?? 'the whole scenario'})`;
  if (!t.compared)
    return ` (not compared: the baseline's is of ${trafficWords(t.baseline)}, the current's of ${trafficWords(t.current)})`;
  return ` of ${trafficWords(t.current)}`;
}

export function compareConsole(c: Comparison, options: CompareConsoleOptions = {}): string {
  const paint = (style: Style, s: string) => (options.color ? `\x1b[${ANSI[style]}m${s}\x1b[0m` : s);
  const max = options.maxDrifts ?? 12;
  const b = c.baseline;
  const cur = c.current;
  const out = [
    `${paint('bold', `petload compare ${clean(cur.scenario, 80)}:`)} ${paint(c.regressed ? 'red' : 'green', paint('bold', headline(c)))}`,
    paint(
      'dim',
      `  baseline ${clean(b.startedAt, 40)} (${b.verdict}) vs current ${clean(cur.startedAt, 40)} (${cur.verdict}); target ${clean(cur.target, 120)}`,
    ),
  ];
  for (const d of c.differences) out.push(paint('dim', `  differs: ${clean(d, 2000)}`));
  const rows = driftRows(c);
  for (const r of rows.slice(0, max)) {
    const values = r.baseline === r.current ? '' : ` ${clean(r.baseline, 60)} -> ${clean(r.current, 60)}`;
    out.push(
      `  ${paint(STYLE[r.verdict], r.verdict)} ${clean(r.subject, 80)}:${values}${r.detail ? `; ${clean(r.detail, 2000)}` : ''}`,
    );
  }
  if (rows.length > max)
    out.push(paint('dim', `  and ${rows.length - max} more drifts in compare.md and compare.html`));
  if (rows.length === 0) out.push('  nothing drifted');
  const judged = c.operations.filter((o) => o.test !== null).length;
  out.push(
    paint('dim', `  checks: ${checksLine(c)}`),
    paint(
      'dim',
      `  latency${latencyOf(c)}: ${judged} of ${c.operations.length} operations judged, ${c.operations.filter((o) => o.regression).length} regressed`,
    ),
  );
  return `${out.join('\n')}\n`;
}
