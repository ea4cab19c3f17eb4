/**
 * summary.md: a short Markdown verdict for a CI step summary or a release ticket. No emoji: the status words
 * (PASS, FAIL, ABORTED, WARN, SKIP) read the same in every renderer and in plain text.
 */
import type { Report } from '../report/schema.js';
import { verdictOf } from '../report/verdict.js';
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
  verdictWord,
} from './format.js';

const CELL_MAX = 240;
/** The key list's length: shortened by whole keys (`and N more`), never in the middle of a label. */
const KEYS_SHOWN_CHARS = 1000;

/** A table cell or inline text: one line, Markdown and HTML punctuation escaped, bounded length. */
export function mdText(s: string, max = CELL_MAX): string {
  const one = s.replace(/\s+/g, ' ').trim();
  const cut = one.length > max ? `${one.slice(0, max)}…` : one;
  return cut.replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`);
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

/** Every plan's judgements, which add up to the check's overall counts. */
function byPlanCell(c: Report['checks'][number]): string {
  return mdText(planBreakdown(c)) || '-';
}

export function renderMarkdown(report: Report): string {
  const v = verdictOf(report.checks);
  const word = verdictWord(report.verdict);
  const out: string[] = [];
  out.push(`## petload ${mdText(report.scenario.name)}: ${word}`, '');
  out.push(
    `**${word}**: ${countsLine(report.summary)}. ` +
      `${report.totals.requests} requests in ${formatDuration(report.durationMs)} (${report.totals.rps.toFixed(1)}/s).`,
  );
  if (report.verdict === 'aborted') out.push('', `Aborted: ${mdText(report.abortReason ?? 'the run was interrupted')}`);
  out.push(
    '',
    `- Target: ${mdText(targetLine(report))}`,
    `- Plans: ${report.plans.length > 0 ? report.plans.join(', ') : 'none'}`,
    `- Keys: ${mdText(keysLine(report, KEYS_SHOWN_CHARS), Number.POSITIVE_INFINITY)}`,
    `- Run: ${mdText(report.startedAt)} to ${mdText(report.endedAt)}, ${mdText(report.tool.name)} ${mdText(report.tool.version)}`,
  );

  const firstOf = (c: Report['checks'][number]) => {
    const fe = firstEvidence(c);
    return fe ? mdText(evidenceLine(fe.evidence)) : '-';
  };
  if (v.failed.length > 0) {
    out.push('', '### Failed', '');
    out.push(
      ...table(
        ['check', 'severity', 'failed#', 'by plan', 'first evidence'],
        v.failed.map((c) => [
          mdCode(c.id),
          c.severity,
          `${c.counts.failed}/${c.counts.failed + c.counts.passed}`,
          byPlanCell(c),
          firstOf(c),
        ]),
      ),
    );
  }
  if (v.warnings.length > 0) {
    out.push('', '### Warnings', '');
    out.push(
      ...table(
        ['check', 'severity', 'failed#', 'by plan', 'first evidence'],
        v.warnings.map((c) => [
          mdCode(c.id),
          c.severity,
          `${c.counts.failed}/${c.counts.failed + c.counts.passed}`,
          byPlanCell(c),
          firstOf(c),
        ]),
      ),
    );
  }
  if (v.skipped.length > 0) {
    out.push('', '### Skipped', '');
    out.push(
      ...table(
        ['reason', 'checks'],
        skipsByReason(v.skipped).map((g) => [mdText(g.reason), g.ids.map(mdCode).join(', ')]),
      ),
    );
  }
  if (report.operations.length > 0) {
    out.push('', '### Latency (ms, from the intended send time)', '');
    out.push(
      ...table(
        ['operation', 'requests#', 'p50#', 'p90#', 'p95#', 'p99#', 'max#', '2xx#', '4xx#', '429#', '5xx#'],
        report.operations.map((op) => {
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
    );
    const t = report.totals;
    out.push('', `Dropped sends: ${t.dropped}. Transport errors: ${t.transportErrors}.`);
  }
  if (report.thresholds.length > 0) {
    out.push('', '### Thresholds', '');
    out.push(
      ...table(
        ['threshold', 'observed#', 'result'],
        report.thresholds.map((t) => [mdCode(t.expression), mdText(formatObserved(t)), thresholdWord(t)]),
      ),
    );
  }
  if (report.notes.length > 0) {
    out.push('', '### Notes', '', ...report.notes.map((n) => `- ${mdText(n, 1000)}`));
  }
  out.push('');
  return out.join('\n');
}
