/**
 * summary.md: a short Markdown verdict for a CI step summary or a release ticket: the verdict, then the plan table
 * (sold against measured), then what failed. No emoji: the status words (PASS, FAIL, ABORTED, WARN, SKIP; held,
 * not held, not measured) read the same in every renderer and in plain text.
 */
import { measuredTraffic, trafficWords } from '../metrics/traffic.js';
import { planTableOf } from '../report/plan-table.js';
import type { PlanRow, Report } from '../report/schema.js';
import { partialWords, scopeWords, verdictOf } from '../report/verdict.js';
import { visibleControls } from './escape.js';
import { reproductionsOf } from './repro/render.js';
import {
  countsLine,
  evidenceLine,
  firstEvidence,
  formatDuration,
  formatMs,
  formatObserved,
  keysLine,
  planBreakdown,
  skipsByReason,
  statusClasses,
  targetLine,
  thresholdWord,
  verdictPhrase,
  verdictWord,
  CUT_SHORT_TITLE,
  cutShortText,
} from './format.js';

const CELL_MAX = 240;
/** The key list's length: shortened by whole keys (`and N more`), never in the middle of a label. */
const KEYS_SHOWN_CHARS = 1000;

/** A table cell or inline text: one line, Markdown and HTML punctuation escaped, bounded length. */
export function mdText(s: string, max = CELL_MAX): string {
  const one = s.replace(/\s+/g, ' ').trim();
  const cut = one.length > max ? `${one.slice(0, max)}…` : one;
  // Control characters shown (\x{1b}), never raw: compare.md and trend.md quote a target's text through here too.
  return visibleControls(cut.replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`));
}

/** A code span for ids and expressions; a pipe still needs its escape inside a GFM table. */
function mdCode(s: string): string {
  return `\`${s.replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
}

/** A GFM table; a column name ending in `#` is numeric (right-aligned), the `#` is not shown. */
function table(head: string[], rows: string[][]): string[] {
  const names = head.map((h) => h.replace(/#$/, ''));
  const rule = head.map((h) => (h.endsWith('#') ? ' ---: ' : ' --- ')).join('|');
  return [`| ${names.join(' | ')} |`, `|${rule}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

type Check = Report['checks'][number];

/** Every plan's judgements, which add up to the check's overall counts. */
function byPlanCell(c: Check): string {
  return mdText(planBreakdown(c)) || '-';
}

/** The title, the verdict with counts and totals, and the abort reason. */
function verdictLines(report: Report): string[] {
  const word = verdictWord(report.verdict);
  const partial = partialWords(report);
  const out: string[] = [];
  out.push(`## petload ${mdText(report.scenario.name)}: ${mdText(verdictPhrase(report))}`, '');
  out.push(
    `**${word}**${partial === '' ? '' : ` (${mdText(partial)})`}: ${countsLine(report.summary)}. ` +
      `${report.totals.requests} requests in ${formatDuration(report.durationMs)} (${report.totals.rps.toFixed(1)}/s per real second).`,
  );
  const scope = scopeWords(report);
  if (scope !== '')
    out.push(
      '',
      `${mdText(scope)}: not judged, not in the verdict.`,
      '',
      `<details><summary>The checks out of scope</summary>\n\n${(report.outOfScope ?? []).map((id) => `\`${mdText(id)}\``).join(', ')}\n\n</details>`,
    );
  if (report.verdict === 'aborted') out.push('', `Aborted: ${mdText(report.abortReason ?? 'the run was interrupted')}`);
  return out;
}

/** What was measured; for a cell not measured, why not in brackets (after what was measured all the same). */
function measuredCell(r: PlanRow): string {
  const why = r.status === 'not measured' && r.detail !== null ? `(${mdText(r.detail)})` : null;
  return [r.measured === null ? null : mdText(r.measured), why].filter((x) => x !== null).join(' ') || '-';
}

/**
 * Per plan and figure: sold, measured (or, in brackets, why not), the cell's status and the check that judged it
 * (its row in the check tables below and in report.html).
 */
function planTableSection(report: Report): string[] {
  const plans = planTableOf(report);
  if (plans.length === 0) return [];
  const rows = plans.flatMap((p) =>
    p.rows.map((r, i) => [
      i === 0 ? p.plan : '',
      r.figure,
      r.sold === null ? '-' : mdText(r.sold),
      measuredCell(r),
      r.status === 'not held' ? '**not held**' : r.status,
      mdCode(r.check),
    ]),
  );
  return [
    '',
    '### Plans: sold against measured',
    '',
    ...table(['plan', 'figure', 'sold', 'measured', 'status', 'check'], rows),
  ];
}

/** The run's target, plans, keys and times. */
function runLines(report: Report): string[] {
  return [
    '',
    `- Target: ${mdText(targetLine(report))}`,
    `- Plans: ${report.plans.length > 0 ? report.plans.join(', ') : 'none'}`,
    `- Keys: ${mdText(keysLine(report, KEYS_SHOWN_CHARS), Number.POSITIVE_INFINITY)}`,
    `- Run: ${mdText(report.startedAt)} to ${mdText(report.endedAt)}, ${mdText(report.tool.name)} ${mdText(report.tool.version)}`,
  ];
}

function firstEvidenceCell(c: Check): string {
  const fe = firstEvidence(c);
  return fe ? mdText(evidenceLine(fe.evidence)) : '-';
}

/** A section of checks that failed (Failed, or Warnings): each with its counts, per plan, and first evidence. */
function failuresSection(title: string, checks: readonly Check[]): string[] {
  if (checks.length === 0) return [];
  return [
    '',
    `### ${title}`,
    '',
    ...table(
      ['check', 'severity', 'failed#', 'by plan', 'first evidence'],
      checks.map((c) => [
        mdCode(c.id),
        c.severity,
        `${c.counts.failed}/${c.counts.failed + c.counts.passed}`,
        byPlanCell(c),
        firstEvidenceCell(c),
      ]),
    ),
  ];
}

/** A fenced code block that nothing in `lines` can close (its fence longer than any run of backticks in them). */
function fenced(lines: readonly string[], lang: string): string[] {
  const longest = Math.max(2, ...lines.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((m) => m.length))));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${lang}`, ...lines, fence];
}

/** Under a failures table: each failure's reproduction script (its path and first lines), or the probe to re-run. */
function reproductionsSection(report: Report, checks: readonly Check[]): string[] {
  const entries = checks.flatMap((c) => reproductionsOf(report, c.id));
  if (entries.length === 0) return [];
  const items = entries.flatMap((e) => {
    const at = `${mdCode(e.check)}${e.plan ? ` [${e.plan}]` : ''}`;
    if (e.script === undefined)
      return [`- ${at}: no script: ${mdText(e.why ?? '', 1000)}. Re-run its probe: ${mdCode(e.rerun)}`, ''];
    return [
      `- ${at}: ${mdCode(`sh ${e.file}`)} (exit 1 while the defect shows, 0 once fixed)`,
      '',
      ...fenced(e.script.preview, 'sh').map((l) => `  ${l}`),
      '',
    ];
  });
  return ['', '#### Reproductions', '', ...items];
}

function skippedSection(skipped: readonly Check[]): string[] {
  if (skipped.length === 0) return [];
  return [
    '',
    '### Skipped',
    '',
    ...table(
      ['reason', 'checks'],
      skipsByReason(skipped).map((g) => [mdText(g.reason), g.ids.map(mdCode).join(', ')]),
    ),
  ];
}

function latencyTable(title: string, ops: Report['operations']): string[] {
  if (ops.length === 0) return [];
  return [
    '',
    `### ${title} (ms, from the intended send time)`,
    '',
    ...table(
      ['operation', 'requests#', 'p50#', 'p90#', 'p95#', 'p99#', 'max#', '2xx#', '4xx#', '429#', '5xx#'],
      ops.map((op) => {
        const l = op.latency;
        const sc = statusClasses(op.statusCounts);
        return [
          mdText(op.operation),
          String(op.count),
          ...[l.p50, l.p90, l.p95, l.p99, l.max].map(formatMs),
          String(sc['2xx']),
          String(sc['4xx']),
          String(sc['429']),
          String(sc['5xx']),
        ];
      }),
    ),
  ];
}

/** The measured traffic's latency, then the probes' own table when the load is measured. */
function latencySection(report: Report): string[] {
  const probes = report.probeOperations ?? [];
  if (report.operations.length === 0 && probes.length === 0) return [];
  const t = report.totals;
  const words = trafficWords(measuredTraffic(report), report);
  return [
    ...latencyTable(`Latency of ${words}`, report.operations),
    ...latencyTable("Latency of the probes' requests (apart: not the load's)", probes),
    '',
    `Dropped sends: ${t.dropped}. Transport errors: ${t.transportErrors}.`,
  ];
}

function thresholdsSection(report: Report): string[] {
  if (report.thresholds.length === 0) return [];
  return [
    '',
    '### Thresholds',
    '',
    ...table(
      ['threshold', 'observed#', 'result'],
      report.thresholds.map((t) => [mdCode(t.expression), mdText(formatObserved(t)), thresholdWord(t)]),
    ),
  ];
}

function notesSection(report: Report): string[] {
  if (report.notes.length === 0) return [];
  return ['', '### Notes', '', ...report.notes.map((n) => `- ${mdText(n, 1000)}`)];
}

export function renderMarkdown(report: Report): string {
  const v = verdictOf(report.checks);
  const lines = [
    ...verdictLines(report),
    ...planTableSection(report),
    ...runLines(report),
    ...failuresSection('Failed', v.failed),
    ...reproductionsSection(report, v.failed),
    ...(v.cutShort.length > 0
      ? ['', `### ${CUT_SHORT_TITLE}`, '', ...v.cutShort.map((c) => `- ${mdText(cutShortText(c), 1000)}`)]
      : []),
    ...failuresSection('Warnings', v.warnings),
    ...reproductionsSection(report, v.warnings),
    ...skippedSection(v.skipped),
    ...latencySection(report),
    ...thresholdsSection(report),
    ...notesSection(report),
    '',
  ];
  // No control character reaches the file raw, whatever a target sent or a report.json was edited to hold.
  return visibleControls(lines.join('\n'));
}
