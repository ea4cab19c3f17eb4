/**
 * compare.html: a comparison on one self-contained page (see page.ts): the verdict, the table of drifts first,
 * then each operation's latency spectrum with the baseline's curve over the current one, the checks, each
 * plan's contract, latency and throughput per operation, and how it was judged.
 */
import { escapeText as h } from '../outputs/escape.js';
import { spectrumX } from '../outputs/html-charts.js';
import { checksLine, driftRows, headline } from './drifts.js';
import { latencyOf } from './console.js';
import { formatBreadth } from './latency.js';
import { type Chart, chartBox, page } from './page.js';
import { type Comparison, type OperationDrift, PERCENTILES, type RunRef, SPECTRUM_PERCENTILES } from './schema.js';
import { CONTRACT_COLUMNS, CONTRACT_HEADS, checkName, contractWords, formatMs, formatP, formatShare } from './words.js';

const tag = (word: string): string => `<span class="tag ${h(word)}">${h(word)}</span>`;

/** `a` when both sides agree, else `a → b`. */
const pair = (b: string, c: string): string => (b === c ? h(b) : `${h(b)} → ${h(c)}`);

function dataTable(id: string, head: string[], rows: string[][]): string {
  const th = head.map((x) => (x.endsWith('#') ? `<th class="num">${h(x.slice(0, -1))}</th>` : `<th>${h(x)}</th>`));
  const body = rows.map(
    (r) =>
      `<tr>${r.map((cell, i) => (head[i]?.endsWith('#') ? `<td class="num">${cell}</td>` : `<td>${cell}</td>`)).join('')}</tr>`,
  );
  return `<table class="data" id="${id}"><thead><tr>${th.join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

function driftSection(c: Comparison): string {
  const rows = driftRows(c);
  const body =
    rows.length === 0
      ? '<p class="all-clear" id="drifts">Nothing drifted: the same check results, the same contract, no latency change past its threshold.</p>'
      : dataTable(
          'drifts',
          ['', 'what', 'baseline', 'current', 'detail'],
          rows.map((r) => [tag(r.verdict), `<code>${h(r.subject)}</code>`, h(r.baseline), h(r.current), h(r.detail)]),
        );
  return `<h2 id="drifts-title">Drifts</h2>${body}`;
}

function spectrumChart(op: OperationDrift, i: number): Chart | null {
  const { baseline, current } = op.spectrum;
  if (baseline === null && current === null) return null;
  return {
    id: `chart-op-${i}`,
    x: SPECTRUM_PERCENTILES.map(spectrumX),
    logX: true,
    yLabel: 'latency (ms)',
    unit: 'ms',
    series: [
      ...(baseline ? [{ label: 'baseline', values: baseline, dash: true, color: '#777777' }] : []),
      ...(current ? [{ label: 'current', values: current, color: op.regression ? '#c62828' : '#0072B2' }] : []),
    ],
  };
}

function chartsSection(c: Comparison, charts: (Chart | null)[]): string {
  if (c.operations.length === 0) return '';
  const panels = c.operations.map((op, i) => {
    const p99 = op.percentiles.find((p) => p.percentile === 'p99');
    const sub = p99 ? `p99 ${formatMs(p99.baselineMs)} → ${formatMs(p99.currentMs)} ms` : (op.note ?? '');
    return (
      `<section class="panel"><h3>${h(op.operation)} ${op.regression ? tag('REGRESSION') : ''}</h3>` +
      `<p class="note">${h(sub)}</p>${chartBox(`chart-op-${i}`, charts[i] !== null, 'No latency recorded on either side.')}</section>`
    );
  });
  return (
    `<h2 id="charts-title">Latency percentiles per operation, baseline (dashed) and current</h2>` +
    `<div class="chart-grid">${panels.join('')}</div>`
  );
}

function checksSection(c: Comparison): string {
  const still = c.checks.stillFailing;
  const table =
    still.length === 0
      ? ''
      : dataTable(
          'still-failing',
          ['still failing', 'severity', 'failed before#', 'failed now#', 'now'],
          still.map((x) => [
            `<code>${h(checkName(x.id, x.plan))}</code>`,
            h(x.severity),
            String(x.failed.baseline),
            String(x.failed.current),
            h(x.currentDetail ?? '-'),
          ]),
        );
  return `<h2 id="checks-title">Checks</h2><p id="checks-line">${h(checksLine(c))}.</p>${table}`;
}

function contractSection(c: Comparison): string {
  if (c.contract.length === 0) return '';
  const rows = c.contract.map((p) => {
    const b = contractWords(p.baseline);
    const now = contractWords(p.current);
    return [h(p.plan), ...CONTRACT_COLUMNS.map((k) => pair(b[k], now[k])), String(p.drifts.length)];
  });
  const promises = c.contract.flatMap((p) =>
    (p.promises ?? []).map((f) => [
      h(p.plan),
      h(f.figure),
      h(f.baseline),
      h(f.current),
      f.drift ? `<strong>drift</strong>: ${h(f.noise)}` : `within its noise (drift: ${h(f.noise)})`,
    ]),
  );
  return (
    `<h2 id="contract-title">Rate-limit contract per plan</h2>` +
    dataTable('contract', ['plan', ...CONTRACT_COLUMNS.map((k) => CONTRACT_HEADS[k]), 'drifts#'], rows) +
    (promises.length === 0
      ? ''
      : `<h2 id="promises-title">Promises per plan</h2>${dataTable('promises', ['plan', 'promise', 'baseline', 'current', 'judged'], promises)}`)
  );
}

function operationsSection(c: Comparison): string {
  if (c.operations.length === 0) return '';
  const rows = c.operations.map((op) => {
    const b = op.baseline;
    const now = op.current;
    const num = (f: (s: NonNullable<typeof b>) => string) => pair(b ? f(b) : '-', now ? f(now) : '-');
    const t = op.test;
    const p99 = op.percentiles.find((p) => p.percentile === 'p99')?.exceedance;
    return [
      `<code>${h(op.operation)}</code>`,
      num((s) => String(s.count)),
      ...PERCENTILES.map((p) => num((s) => formatMs(s[p]))),
      num((s) => s.rps.toFixed(1)),
      num((s) => formatShare(s.errorRate)),
      t === null
        ? h(op.note ?? '-')
        : h(`A=${t.superiority.toFixed(2)}, ${formatBreadth(t)}, p99 exceedance p=${formatP(p99?.p ?? 1)}`),
      op.regression ? tag('REGRESSION') : t === null ? 'not judged' : 'ok',
    ];
  });
  const head = ['operation', 'requests#', 'p50#', 'p90#', 'p99#', 'max#', 'req/s#', 'errors#', 'tests', 'verdict'];
  const traffic = c.latencyTraffic ? `<p class="note" id="latency-traffic">Latency${h(latencyOf(c))}.</p>` : '';
  return `<h2 id="operations-title">Latency (ms) and throughput per operation</h2>${traffic}${dataTable('operations', head, rows)}`;
}

function runRow(side: string, r: RunRef): string[] {
  return [
    h(side),
    h(r.startedAt),
    tag(r.verdict),
    String(r.exitCode),
    String(r.requests),
    r.rps.toFixed(1),
    h(r.faults.join(', ') || 'none'),
    h(r.toolVersion),
  ];
}

function runsSection(c: Comparison): string {
  const o = c.options;
  const diffs = c.differences.length === 0 ? '' : `<ul>${c.differences.map((d) => `<li>${h(d)}</li>`).join('')}</ul>`;
  return (
    `<h2 id="runs-title">Runs</h2>` +
    dataTable(
      'runs',
      ['', 'started', 'verdict', 'exit#', 'requests#', 'req/s#', 'faults', 'petload'],
      [runRow('baseline', c.baseline), runRow('current', c.current)],
    ) +
    diffs +
    `<p class="note" id="method">A percentile regresses when it rose past its threshold (p99: +20 % and +5 ms unless set), ` +
    `more current requests lie above the baseline's value at that percentile than one distribution gives (exceedance test, ` +
    `p &lt; ${o.alpha}), and most requests are slower by more than the smallest absolute threshold (A(+margin) ≥ ${o.minSuperiority}: ` +
    `the probability that a current request is slower than a baseline one by more than that). ` +
    `Fewer than ${o.minSamples} requests on a side: shown, not judged.</p>`
  );
}

export function compareHtml(c: Comparison): string {
  const charts = c.operations.map(spectrumChart);
  const word = headline(c);
  const body = [
    `<div class="banner ${c.regressed ? 'bad' : 'good'}"><div class="verdict" id="verdict">${c.regressed ? 'REGRESSED' : 'NO REGRESSION'}</div>`,
    `<div><h1>petload compare ${h(c.current.scenario)}</h1><div id="headline">${h(word)}</div></div></div>`,
    `<p class="glance">baseline ${h(c.baseline.startedAt)} (${h(c.baseline.verdict)}) · current ${h(c.current.startedAt)} (${h(c.current.verdict)}) · target ${h(c.current.target)}</p>`,
    driftSection(c),
    chartsSection(c, charts),
    checksSection(c),
    contractSection(c),
    operationsSection(c),
    runsSection(c),
  ].join('\n');
  return page(
    `petload compare ${c.current.scenario}: ${c.regressed ? 'REGRESSED' : 'NO REGRESSION'}`,
    body,
    charts.filter((x): x is Chart => x !== null),
  );
}
