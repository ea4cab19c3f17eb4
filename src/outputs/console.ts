/**
 * The summary printed at the end of every run: verdict, the plan table (sold against measured, each cell with the
 * check that judged it), failed checks with their first evidence, warnings, skips, a latency table per operation,
 * thresholds and where the report files are. Plain ASCII markers, so
 * that it reads the same in a CI log; colour only when asked (the CLI decides from the terminal).
 */
import { NOT_EXERCISED } from '../checks/catalogue.js';
import { basename, dirname, sep } from 'node:path';
import { measuredTraffic, trafficWords } from '../metrics/traffic.js';
import { planTableOf } from '../report/plan-table.js';
import type { CheckResult, PlanCellStatus, PlanRow, Report } from '../report/schema.js';
import { verdictOf } from '../report/verdict.js';
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
  verdictWord,
} from './format.js';

export interface ConsoleOptions {
  color: boolean;
  /** Where the report files were written (as returned by writeReports). */
  files?: Readonly<Record<string, string>>;
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

/** The measured column's width in the plan table: the whole text and the reason are in the report files. */
const MEASURED_SHOWN = 60;
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

/**
 * The plan table: per plan and figure, what was sold, the cell's status, what was measured (or, in brackets, why
 * not) and the check that judged it. Empty when the report judged no plan.
 */
function planTableLines(report: Report, paint: (style: Style, s: string) => string): string[] {
  const table = planTableOf(report);
  if (table.length === 0) return [];
  const head = ['plan', 'figure', 'sold', 'status', 'measured', 'check'];
  const rows = table.flatMap((p) =>
    p.rows.map((r, i) => ({
      status: r.status,
      cells: [
        i === 0 ? p.plan : '',
        r.figure,
        clean(r.sold ?? '-', 30),
        CELL_WORD[r.status].word,
        clean(measuredText(r), MEASURED_SHOWN),
        r.check,
      ],
    })),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r.cells[i]!.length)));
  const line = (cells: string[], status?: PlanCellStatus) =>
    `  ${cells
      .map((c, i) => {
        const padded = i === cells.length - 1 ? c : pad(c, widths[i]!);
        return i === 3 && status !== undefined ? paint(CELL_WORD[status].style, padded) : padded;
      })
      .join('  ')}`.trimEnd();
  return [
    '',
    paint('bold', 'Plans: sold against measured'),
    paint('dim', line(head)),
    ...rows.map((r) => line(r.cells, r.status)),
  ];
}

/** The run's rate per real second, with the run clock's beside it when it is scaled. */
export function rateLine(report: Report): string {
  const t = report.totals;
  const scale = report.target.timeScale;
  const clock = scale === 1 ? '' : `, ${(t.rps / scale).toFixed(1)}/s on the x${scale} run clock`;
  return `${t.requests} requests, ${t.rps.toFixed(1)}/s per real second${clock}`;
}

/** A latency table of some operations under its title; nothing when there are none. */
function latencyLines(ops: Report['operations'], title: string, paint: (style: Style, s: string) => string): string[] {
  if (ops.length === 0) return [];
  const head = ['operation', 'count', 'p50', 'p95', 'p99', 'max'];
  const rows = ops.map((op) => [
    clean(op.operation, 40),
    String(op.count),
    ...[op.latency.p50, op.latency.p95, op.latency.p99, op.latency.max].map(formatMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `  ${r.map((c, i) => pad(c, widths[i]!, i > 0)).join('  ')}`;
  return ['', paint('bold', `${title} (ms, from the intended send time)`), paint('dim', line(head)), ...rows.map(line)];
}

export function renderConsoleSummary(report: Report, opts: ConsoleOptions): string {
  const paint = (style: Style, s: string) => (opts.color ? `\x1b[${ANSI[style]}m${s}\x1b[0m` : s);
  const word = verdictWord(report.verdict);
  const verdictStyle: Style = report.verdict === 'pass' ? 'green' : report.verdict === 'fail' ? 'red' : 'yellow';
  const v = verdictOf(report.checks);
  const out: string[] = [];

  out.push(
    `${paint('bold', `petload ${clean(report.scenario.name)}:`)} ${paint(verdictStyle, paint('bold', word))}  ` +
      `${countsLine(report.summary)}; ` +
      `${report.totals.requests} requests in ${formatDuration(report.durationMs)}`,
  );
  if (report.verdict === 'aborted')
    out.push(paint('yellow', `  aborted: ${clean(report.abortReason ?? 'the run was interrupted')}`));
  out.push(
    paint(
      'dim',
      `  target ${clean(targetLine(report))}; plans ${report.plans.join(', ') || 'none'}; keys ${clean(keysLine(report, KEYS_SHOWN_CHARS), Number.POSITIVE_INFINITY)}`,
    ),
  );
  // First after the verdict (and what it was given for): each plan's figures, sold against measured.
  out.push(...planTableLines(report, paint));

  // One line per check: its overall counts, then every plan's, which add up to them; then the first evidence of
  // each failing plan.
  const listChecks = (title: string, checks: CheckResult[], mark: string, style: Style) => {
    if (checks.length === 0) return;
    out.push('', paint('bold', title));
    for (const c of checks) {
      const breakdown = planBreakdown(c);
      const byPlan = breakdown ? `: ${breakdown}` : '';
      out.push(`  ${paint(style, mark)} ${c.id} (${c.severity}) ${failedOf(c.counts)} failed${byPlan}`);
      for (const o of c.byPlan.filter((p) => p.status === 'fail')) {
        const e = o.evidence[0];
        if (e) out.push(`      ${o.plan ? `[${o.plan}] ` : ''}${clean(evidenceLine(e), 300)}`);
      }
    }
  };
  listChecks('Failed', v.failed, 'FAIL', 'red');
  listChecks('Warnings', v.warnings, 'WARN', 'yellow');
  if (v.skipped.length > 0) {
    out.push('', paint('bold', 'Skipped'));
    // Checks the run never called for are one line (each one's own reason is in the report); other skips say why.
    const groups = skipsByReason(v.skipped);
    const unexercised = groups.filter((g) => g.reason.startsWith(NOT_EXERCISED)).flatMap((g) => g.ids);
    const skipLine = (reason: string, all: readonly string[]) => {
      const ids =
        all.length > SKIP_IDS_SHOWN
          ? `${all.slice(0, SKIP_IDS_SHOWN).join(', ')} and ${all.length - SKIP_IDS_SHOWN} more`
          : all.join(', ');
      out.push(`  ${paint('dim', 'SKIP')} ${clean(reason)}: ${ids}`);
    };
    for (const g of groups) if (!g.reason.startsWith(NOT_EXERCISED)) skipLine(g.reason, g.ids);
    if (unexercised.length > 0) skipLine(UNEXERCISED_LINE, unexercised);
  }

  const measured = measuredTraffic(report);
  out.push(...latencyLines(report.operations, `Latency of ${trafficWords(measured)}`, paint));
  out.push(
    ...latencyLines(report.probeOperations ?? [], "Latency of the probes' requests (apart: not the load's)", paint),
  );
  if (report.operations.length > 0 || (report.probeOperations ?? []).length > 0) {
    const t = report.totals;
    out.push(paint('dim', `  ${rateLine(report)}; ${t.dropped} dropped sends; ${t.transportErrors} transport errors`));
  }

  if (report.thresholds.length > 0) {
    out.push('', paint('bold', 'Thresholds'));
    for (const t of report.thresholds) {
      const w = thresholdWord(t);
      out.push(
        `  ${paint(w === 'PASS' ? 'green' : w === 'FAIL' ? 'red' : w === 'SKIP' ? 'dim' : 'yellow', w)} ${clean(t.expression)}  ${t.notJudged === undefined ? 'observed ' : ''}${formatObserved(t)}`,
      );
    }
  }

  const files = Object.values(opts.files ?? {});
  const dirs = new Set(files.map((f) => dirname(f)));
  if (dirs.size === 1) out.push('', `Reports in ${[...dirs][0]}${sep}: ${files.map((f) => basename(f)).join(', ')}`);
  else if (files.length > 0) out.push('', `Reports: ${files.join(', ')}`);
  return `${out.join('\n')}\n`;
}
