/**
 * compare.md: a comparison in Markdown, for $GITHUB_STEP_SUMMARY or a release ticket. The table of drifts comes
 * first, then the checks, each plan's contract, latency and throughput per operation, and how it was judged.
 */
import { mdText as mdEscape } from '../outputs/markdown.js';
import { latencyOf } from './console.js';
import { checksLine, driftRows, headline } from './drifts.js';
import { formatBreadth } from './latency.js';
import { type Comparison, type OperationDrift, PERCENTILES, type RunRef } from './schema.js';
import { CONTRACT_COLUMNS, CONTRACT_HEADS, checkName, contractWords, formatMs, formatP, formatShare } from './words.js';

/** Inline Markdown text: control characters shown as `\x1b` (a target's text must not drive a terminal), then escaped. */
export function mdText(s: string, max?: number): string {
  const shown = s.replace(
    /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return mdEscape(shown, max);
}

/** A GFM table; a column name ending in `#` is numeric (right-aligned), the `#` is not shown. */
export function table(head: string[], rows: string[][]): string[] {
  const names = head.map((h) => h.replace(/#$/, ''));
  const rule = head.map((h) => (h.endsWith('#') ? ' ---: ' : ' --- ')).join('|');
  return [`| ${names.join(' | ')} |`, `|${rule}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

export const code = (s: string): string => `\`${s.replace(/`/g, "'").replace(/\|/g, '\\|')}\``;

/** `a` when both sides agree, else `a → b`. */
function pair(b: string, c: string): string {
  return b === c ? mdText(b) : `${mdText(b)} → ${mdText(c)}`;
}

function runLine(side: string, r: RunRef): string {
  const faults = r.faults.length > 0 ? `; faults ${r.faults.join(', ')}` : '';
  return `- ${side}: ${mdText(r.startedAt)}, ${r.verdict.toUpperCase()} (exit ${r.exitCode}), ${r.requests} requests at ${r.rps.toFixed(1)}/s, petload ${mdText(r.toolVersion)}${mdText(faults)}`;
}

function driftSection(c: Comparison): string[] {
  const rows = driftRows(c);
  if (rows.length === 0)
    return [
      '### Drifts',
      '',
      'Nothing drifted: the same check results, the same contract, no latency change past its threshold.',
    ];
  return [
    '### Drifts',
    '',
    ...table(
      ['', 'what', 'baseline', 'current', 'detail'],
      rows.map((r) => [
        `**${r.verdict}**`,
        code(r.subject),
        mdText(r.baseline),
        mdText(r.current),
        mdText(r.detail) || '-',
      ]),
    ),
  ];
}

function checksSection(c: Comparison): string[] {
  const out = ['### Checks', '', `${checksLine(c)}.`];
  if (c.checks.stillFailing.length > 0)
    out.push(
      '',
      ...table(
        ['still failing', 'severity', 'failed before#', 'failed now#', 'now'],
        c.checks.stillFailing.map((x) => [
          code(checkName(x.id, x.plan)),
          x.severity,
          String(x.failed.baseline),
          String(x.failed.current),
          mdText(x.currentDetail ?? '-'),
        ]),
      ),
    );
  return out;
}

function contractSection(c: Comparison): string[] {
  if (c.contract.length === 0) return [];
  const promises = c.contract.flatMap((p) => (p.promises ?? []).map((f) => ({ plan: p.plan, f })));
  return [
    '### Rate-limit contract per plan',
    '',
    ...table(
      ['plan', ...CONTRACT_COLUMNS.map((k) => CONTRACT_HEADS[k]), 'drifts#'],
      c.contract.map((p) => {
        const b = contractWords(p.baseline);
        const now = contractWords(p.current);
        return [p.plan, ...CONTRACT_COLUMNS.map((k) => pair(b[k], now[k])), String(p.drifts.length)];
      }),
    ),
    ...(promises.length === 0
      ? []
      : [
          '',
          '### Promises per plan',
          '',
          ...table(
            ['plan', 'promise', 'baseline', 'current', 'judged'],
            promises.map(({ plan, f }) => [
              plan,
              mdText(f.figure),
              mdText(f.baseline),
              mdText(f.current),
              f.drift ? `**drift**: ${mdText(f.noise)}` : `within its noise (drift: ${mdText(f.noise)})`,
            ]),
          ),
        ]),
  ];
}

function operationCells(op: OperationDrift): string[] {
  const b = op.baseline;
  const c = op.current;
  const num = (f: (s: NonNullable<typeof b>) => string) => pair(b ? f(b) : '-', c ? f(c) : '-');
  const t = op.test;
  const p99 = op.percentiles.find((p) => p.percentile === 'p99')?.exceedance;
  return [
    code(op.operation),
    num((s) => String(s.count)),
    ...PERCENTILES.map((p) => num((s) => formatMs(s[p]))),
    num((s) => s.rps.toFixed(1)),
    num((s) => formatShare(s.errorRate)),
    t === null
      ? mdText(op.note ?? '-')
      : `A=${t.superiority.toFixed(2)}, ${formatBreadth(t)}, p99 exceedance p=${formatP(p99?.p ?? 1)}`,
    op.regression ? '**REGRESSION**' : t === null ? 'not judged' : 'ok',
  ];
}

function operationsSection(c: Comparison): string[] {
  if (c.operations.length === 0) return [];
  return [
    `### Latency and throughput per operation (ms, ${c.options.histogram === 'all' ? 'from the intended send time' : 'service time'})`,
    '',
    ...(c.latencyTraffic ? [`Latency${mdText(latencyOf(c))}.`, ''] : []),
    ...table(
      ['operation', 'requests#', 'p50#', 'p90#', 'p99#', 'max#', 'req/s#', 'errors#', 'tests', 'verdict'],
      c.operations.map(operationCells),
    ),
  ];
}

function methodSection(c: Comparison): string[] {
  const o = c.options;
  const t = Object.entries(o.thresholds).map(
    ([p, v]) => `${p} ${v ? `+${v.relative * 100} % and +${v.absoluteMs} ms` : 'off'}`,
  );
  const ops = Object.keys(o.operations);
  return [
    '### How latency was judged',
    '',
    `A percentile regresses when it rose past its threshold (p99: +20 % and +5 ms unless set${t.length > 0 ? `; set: ${mdText(t.join(', '))}` : ''}${ops.length > 0 ? `; per operation: ${mdText(ops.join(', '))}` : ''}), ` +
      `more current requests lie above the baseline's value at that percentile than one distribution gives (exceedance test, p < ${o.alpha}), ` +
      `and most requests are slower by more than the smallest absolute threshold (A(+margin) >= ${o.minSuperiority}: the probability that a current request is slower than a baseline one by more than that). ` +
      `Operations with fewer than ${o.minSamples} requests on a side are shown, not judged. See docs/compare.md.`,
  ];
}

export function compareMarkdown(c: Comparison): string {
  const out: string[] = [];
  const word = headline(c);
  out.push(`## petload compare ${mdText(c.current.scenario)}: ${c.regressed ? 'REGRESSED' : 'NO REGRESSION'}`, '');
  out.push(`**${mdText(word)}**. Target ${mdText(c.current.target)}.`, '');
  out.push(runLine('Baseline', c.baseline), runLine('Current', c.current));
  if (c.differences.length > 0) out.push(`- Differences: ${mdText(c.differences.join('; '), 2000)}`);
  out.push('', ...driftSection(c), '', ...checksSection(c));
  const contract = contractSection(c);
  if (contract.length > 0) out.push('', ...contract);
  const ops = operationsSection(c);
  if (ops.length > 0) out.push('', ...ops, '', ...methodSection(c));
  out.push('');
  return out.join('\n');
}
