/**
 * The summary printed at the end of every run: verdict, the plan table (sold against measured, each cell with the
 * check that judged it), failed checks with their first evidence, warnings, skips, a latency table per operation,
 * thresholds and where the report files are. Plain ASCII markers, so
 * that it reads the same in a CI log; colour only when asked (the CLI decides from the terminal).
 */
import { NOT_EXERCISED } from '../checks/catalogue.js';
import { basename, dirname, join, sep } from 'node:path';
import { reproductionsOf } from './repro/render.js';
import { measuredTraffic, trafficWords } from '../metrics/traffic.js';
import { DEFAULT_COLUMNS, tableLines, wrapLine } from './console-table.js';
import { junitCaseCount } from './junit.js';
import { planTableOf } from '../report/plan-table.js';
import type { CheckResult, PlanCellStatus, PlanRow, Report } from '../report/schema.js';
import { scopeWords, verdictOf } from '../report/verdict.js';
import {
  countsLine,
  evidenceLine,
  failedOf,
  formatDuration,
  formatMs,
  formatObserved,
  keysLine,
  planBreakdown,
  skipsByReason,
  targetLine,
  thresholdWord,
  verdictPhrase,
  verdictWord,
  CUT_SHORT_TITLE,
  cutShortText,
} from './format.js';

export interface ConsoleOptions {
  color: boolean;
  /** Where the report files were written (as returned by writeReports). */
  files?: Readonly<Record<string, string>>;
  /** The terminal's width: words wrap to it, figures are never cut (default DEFAULT_COLUMNS). */
  columns?: number;
}

/** The key list's length in the summary: shortened by whole keys (`and N more`), the full list is in the reports. */
const KEYS_SHOWN_CHARS = 300;
/** Skipped ids shown per reason: the full list is in the report files. */
const SKIP_IDS_SHOWN = 5;
/** The one line of the checks a run never called for. */
export const UNEXERCISED_LINE = 'not exercised by this run (each one says why in the report)';

const ANSI = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;
type Style = keyof typeof ANSI;

/** A target's text can hold terminal escapes: control characters are shown, never sent to the terminal. */
function clean(s: string, max = 200): string {
  const one = s
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

function pad(s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n);
}

const CELL_WORD: Record<PlanCellStatus, { word: string; style: Style }> = {
  held: { word: 'HELD', style: 'green' },
  'not held': { word: 'NOT HELD', style: 'red' },
  'not measured': { word: 'NOT MEASURED', style: 'dim' },
};

/** What was measured; for a cell not measured, why not in brackets (after what was measured all the same). */
function measuredText(r: PlanRow): string {
  const why = r.status === 'not measured' && r.detail !== null ? `(${r.detail})` : null;
  return [r.measured, why].filter((x) => x !== null).join(' ') || '-';
}

/** A cell this scenario does not judge at all: nothing measured, its check not exercised by the run. */
const unjudged = (r: PlanRow): boolean =>
  r.status === 'not measured' && r.measured === null && (r.detail ?? '').startsWith(NOT_EXERCISED);

/**
 * The figures the scenario does not judge, in one line: each with why (the same for every plan, or per plan),
 * instead of a NOT MEASURED row per plan and figure.
 */
function unjudgedLine(table: ReturnType<typeof planTableOf>, allRows: boolean): string | null {
  const byFigure = new Map<string, Set<string>>();
  for (const p of table)
    for (const r of p.rows.filter(unjudged)) {
      const why = (r.detail ?? '').slice(NOT_EXERCISED.length);
      byFigure.set(r.figure, (byFigure.get(r.figure) ?? new Set()).add(why));
    }
  if (byFigure.size === 0) return null;
  const parts = [...byFigure].map(([figure, whys]) => `${figure} (${[...whys].join('; ')})`);
  const plans = table.map((p) => p.plan).join(', ');
  return allRows
    ? `This scenario judges none of the plan figures of ${plans}: ${parts.join(', ')}.`
    : `Not judged by this scenario: ${parts.join(', ')}.`;
}

/**
 * The plan table: per plan and figure, what was sold, the cell's status, what was measured (or, in brackets, why
 * not) and the check that judged it; the figures the scenario does not judge in one line under it. Words wrap
 * to the width; figures are never cut. Empty when the report judged no plan.
 */
function planTableLines(report: Report, paint: (style: Style, s: string) => string, width: number): string[] {
  const table = planTableOf(report);
  if (table.length === 0) return [];
  const head = ['plan', 'figure', 'sold', 'status', 'measured', 'check'];
  const rows = table.flatMap((p) =>
    p.rows
      .filter((r) => !unjudged(r))
      .map((r, i) => ({
        status: r.status,
        cells: [
          i === 0 ? p.plan : '',
          r.figure,
          clean(r.sold ?? '-', 60),
          CELL_WORD[r.status].word,
          clean(measuredText(r), 2000),
          r.check,
        ],
      })),
  );
  const out = ['', paint('bold', 'Plans: sold against measured')];
  if (rows.length > 0) {
    const [headLine = '', ...lines] = tableLines(
      head,
      rows.map((r) => r.cells),
      { width, wrap: 4, paint: (ri, ci, t) => (ci === 3 ? paint(CELL_WORD[rows[ri]!.status].style, t) : t) },
    );
    out.push(paint('dim', headLine), ...lines);
  }
  const line = unjudgedLine(table, rows.length === 0);
  if (line !== null) out.push(...wrapLine('  ', line, width).map((l) => paint('dim', l)));
  return out;
}

/** The run's rate per real second, with the run clock's beside it when it is scaled. */
export function rateLine(report: Report): string {
  const t = report.totals;
  const scale = report.target.timeScale;
  const clock = scale === 1 ? '' : `, ${(t.rps / scale).toFixed(1)}/s on the x${scale} run clock`;
  return `${t.requests} requests, ${t.rps.toFixed(1)}/s per real second${clock}`;
}

/** A latency table of some operations under its title; nothing when there are none. */
function latencyLines(
  ops: Report['operations'],
  title: string,
  paint: (style: Style, s: string) => string,
  width: number,
): string[] {
  if (ops.length === 0) return [];
  const head = ['operation', 'count', 'p50', 'p95', 'p99', 'max'];
  const rows = ops.map((op) => [
    clean(op.operation, 40),
    String(op.count),
    ...[op.latency.p50, op.latency.p95, op.latency.p99, op.latency.max].map(formatMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `  ${r.map((c, i) => pad(c, widths[i]!, i > 0)).join('  ')}`;
  const titled = wrapLine('', `${title} (ms, from the intended send time)`, width, '  ').map((l) => paint('bold', l));
  return ['', ...titled, paint('dim', line(head)), ...rows.map(line)];
}

type Paint = (style: Style, s: string) => string;

/**
 * The checks and the JUnit test cases, said once: junit.xml holds a case per check and plan it was judged for
 * (a check judged for three plans is three cases), one per threshold, and one for an aborted run.
 */
export function junitLine(report: Report): string {
  const cases = junitCaseCount(report);
  return `junit.xml: ${cases} test case${cases === 1 ? '' : 's'} for these ${report.summary.checks} checks: one per check and plan it was judged for, one per threshold${(report.notJudged ?? []).length > 0 ? ', one per plan not judged' : ''}${report.verdict === 'aborted' ? ', one for the abort' : ''}`;
}

/** The verdict line, the abort's reason, what the run was given (target, plans, keys) and the checks' JUnit cases. */
function headLines(report: Report, paint: Paint, width: number): string[] {
  const word = verdictWord(report.verdict);
  const verdictStyle: Style = report.verdict === 'pass' ? 'green' : report.verdict === 'fail' ? 'red' : 'yellow';
  const name = `petload ${clean(report.scenario.name)}:`;
  const plain = `${name} ${clean(verdictPhrase(report))}  ${countsLine(report.summary)}; ${report.totals.requests} requests in ${formatDuration(report.durationMs)}`;
  const [first = '', ...rest] = wrapLine('', plain, width, '  ');
  const out = [
    first.replace(`${name} ${word}`, `${paint('bold', name)} ${paint(verdictStyle, paint('bold', word))}`),
    ...rest,
  ];
  if (report.verdict === 'aborted')
    out.push(
      ...wrapLine('  aborted: ', clean(report.abortReason ?? 'the run was interrupted', 2000), width).map((l) =>
        paint('yellow', l),
      ),
    );
  const given = `target ${clean(targetLine(report))}; plans ${report.plans.join(', ') || 'none'}; keys ${clean(keysLine(report, KEYS_SHOWN_CHARS), Number.POSITIVE_INFINITY)}`;
  out.push(
    ...[...wrapLine('  ', given, width), ...wrapLine('  ', junitLine(report), width)].map((l) => paint('dim', l)),
  );
  const scope = scopeWords(report);
  if (scope !== '') out.push(...wrapLine('  ', `${clean(scope)}: not judged, not in the verdict`, width));
  return out;
}

/**
 * One line per check: its overall counts, then every plan's, which add up to them; then the first evidence of each
 * failing plan, wrapped, never cut (the ledger bounds a message), and what `more` adds under it (how to reproduce it).
 */
function checkLines(
  title: string,
  checks: CheckResult[],
  mark: string,
  style: Style,
  paint: Paint,
  width: number,
  more: (c: CheckResult, o: CheckResult['byPlan'][number]) => string[],
) {
  if (checks.length === 0) return [];
  const out = ['', paint('bold', title)];
  for (const c of checks) {
    const breakdown = planBreakdown(c);
    const byPlan = breakdown ? `: ${breakdown}` : '';
    const [first = '', ...rest] = wrapLine(
      `  ${mark} `,
      `${c.id} (${c.severity}) ${failedOf(c.counts)} failed${byPlan}`,
      width,
    );
    out.push(first.replace(mark, paint(style, mark)), ...rest);
    for (const o of c.byPlan.filter((p) => p.status === 'fail')) {
      const e = o.evidence[0];
      const at = `      ${o.plan ? `[${o.plan}] ` : ''}`;
      if (e) out.push(...wrapLine(at, clean(evidenceLine(e), 2000), width, '        '));
      out.push(...more(c, o).flatMap((l) => wrapLine('        ', clean(l, 2000), width, '          ')));
    }
  }
  return out;
}

/** How to see a failure again: the script to run (in `dir`, the report's repro/ folder), else the probe to re-run. */
function reproduceLine(report: Report, dir: string | undefined) {
  return (c: CheckResult, o: CheckResult['byPlan'][number]): string[] => {
    const e = reproductionsOf(report, c.id).find((x) => x.plan === o.plan);
    if (e === undefined) return [];
    if (e.file === undefined) return [`re-run: ${e.rerun} (no script: ${e.why})`];
    return [`reproduce: sh ${dir !== undefined ? join(dir, basename(e.file)) : e.file}`];
  };
}

/** Checks the run never called for are one line (each one's own reason is in the report); other skips say why. */
/** The checks a probe's early end left unjudged, with no check failed for it: they fail the run. */
function cutShortLines(checks: readonly CheckResult[], paint: Paint, width: number): string[] {
  if (checks.length === 0) return [];
  const out = ['', paint('bold', CUT_SHORT_TITLE)];
  for (const c of checks) {
    const [first = '', ...rest] = wrapLine('  FAIL ', clean(cutShortText(c), 2000), width);
    out.push(first.replace('FAIL', paint('red', 'FAIL')), ...rest);
  }
  return out;
}

function skipLines(skipped: CheckResult[], paint: Paint, width: number): string[] {
  if (skipped.length === 0) return [];
  const out = ['', paint('bold', 'Skipped')];
  const groups = skipsByReason(skipped);
  const unexercised = groups.filter((g) => g.reason.startsWith(NOT_EXERCISED)).flatMap((g) => g.ids);
  const skipLine = (reason: string, all: readonly string[]) => {
    const ids =
      all.length > SKIP_IDS_SHOWN
        ? `${all.slice(0, SKIP_IDS_SHOWN).join(', ')} and ${all.length - SKIP_IDS_SHOWN} more`
        : all.join(', ');
    const [first = '', ...rest] = wrapLine('  SKIP ', `${clean(reason, 2000)}: ${ids}`, width);
    out.push(first.replace('SKIP', paint('dim', 'SKIP')), ...rest);
  };
  for (const g of groups) if (!g.reason.startsWith(NOT_EXERCISED)) skipLine(g.reason, g.ids);
  if (unexercised.length > 0) skipLine(UNEXERCISED_LINE, unexercised);
  return out;
}

function thresholdLines(report: Report, paint: Paint, width: number): string[] {
  if (report.thresholds.length === 0) return [];
  const out = ['', paint('bold', 'Thresholds')];
  for (const t of report.thresholds) {
    const w = thresholdWord(t);
    const style: Style = w === 'PASS' ? 'green' : w === 'FAIL' ? 'red' : w === 'SKIP' ? 'dim' : 'yellow';
    const text = `${clean(t.expression)}  ${t.notJudged === undefined ? 'observed ' : ''}${formatObserved(t)}`;
    const [first = '', ...rest] = wrapLine(`  ${w} `, text, width);
    out.push(first.replace(w, paint(style, w)), ...rest);
  }
  return out;
}

export function renderConsoleSummary(report: Report, opts: ConsoleOptions): string {
  const width = opts.columns ?? DEFAULT_COLUMNS;
  const paint: Paint = (style, s) => (opts.color ? `\x1b[${ANSI[style]}m${s}\x1b[0m` : s);
  const v = verdictOf(report.checks);
  const out: string[] = headLines(report, paint, width);
  // First after the verdict (and what it was given for): each plan's figures, sold against measured.
  out.push(...planTableLines(report, paint, width));
  const reproduce = reproduceLine(report, opts.files?.repro);
  out.push(...checkLines('Failed', v.failed, 'FAIL', 'red', paint, width, reproduce));
  out.push(...cutShortLines(v.cutShort, paint, width));
  out.push(...checkLines('Warnings', v.warnings, 'WARN', 'yellow', paint, width, reproduce));
  out.push(...skipLines(v.skipped, paint, width));

  const measured = measuredTraffic(report);
  out.push(...latencyLines(report.operations, `Latency of ${trafficWords(measured, report)}`, paint, width));
  out.push(
    ...latencyLines(
      report.probeOperations ?? [],
      "Latency of the probes' requests (apart: not the load's)",
      paint,
      width,
    ),
  );
  if (report.operations.length > 0 || (report.probeOperations ?? []).length > 0) {
    const t = report.totals;
    const line = `${rateLine(report)}; ${t.dropped} dropped sends; ${t.transportErrors} transport errors`;
    out.push(...wrapLine('  ', line, width).map((l) => paint('dim', l)));
  }
  out.push(...thresholdLines(report, paint, width));

  const files = Object.values(opts.files ?? {});
  const dirs = new Set(files.map((f) => dirname(f)));
  if (dirs.size === 1)
    out.push(
      '',
      ...wrapLine('', `Reports in ${[...dirs][0]}${sep}: ${files.map((f) => basename(f)).join(', ')}`, width),
    );
  else if (files.length > 0) out.push('', ...wrapLine('', `Reports: ${files.join(', ')}`, width));
  return `${out.join('\n')}\n`;
}
