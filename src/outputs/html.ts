/**
 * report.html: one self-contained page, no network (a Content-Security-Policy forbids any fetch). uPlot's
 * script and styles are read from node_modules at render time and inlined; the chart data is embedded as
 * JSON. Every text from the report is escaped.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FAILING_SEVERITIES } from '../checks/catalogue.js';
import type { CheckResult, Report } from '../engine/report-schema.js';
import { escapeAttr, escapeText as h } from './escape.js';
import {
  caseName,
  countsLine,
  evidenceBlock,
  evidenceLine,
  formatDuration,
  formatMs,
  formatObserved,
  type PlanOutcome,
  statusClasses,
  targetLine,
  thresholdWord,
  verdictWord,
} from './format.js';
import { type ChartData, chartData } from './html-charts.js';

interface Assets {
  uplotJs: string;
  uplotCss: string;
  pageJs: string;
  pageCss: string;
}

let assets: Assets | undefined;

function loadAssets(): Assets {
  if (assets) return assets;
  const require = createRequire(import.meta.url);
  const read = (path: string | URL) => readFileSync(path, 'utf8');
  assets = {
    uplotJs: read(require.resolve('uplot/dist/uPlot.iife.min.js')),
    uplotCss: read(require.resolve('uplot/dist/uPlot.min.css')),
    pageJs: read(new URL('./report-page.js', import.meta.url)),
    pageCss: read(new URL('./report-page.css', import.meta.url)),
  };
  return assets;
}

/** Script text inside <script>: a `</script` or `<!--` in it would end or confuse the element. */
function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** JSON inside <script type="application/json">: with `<` escaped, no text can close the element. */
function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

type RowStatus = 'pass' | 'fail' | 'warn' | 'skip';

function rowStatus(check: CheckResult, o: PlanOutcome): RowStatus {
  if (o.status === 'fail') return FAILING_SEVERITIES.has(check.severity) ? 'fail' : 'warn';
  return o.status;
}

function badge(s: RowStatus): string {
  return `<span class="status ${s}">${s.toUpperCase()}</span>`;
}

function evidenceCell(o: PlanOutcome): string {
  const first = o.evidence[0];
  const facts = Object.entries(o.info).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  const parts: string[] = [];
  if (first) {
    parts.push(
      `<details><summary>${h(evidenceLine(first))}</summary>${o.evidence.map((e) => `<pre>${h(evidenceBlock(e))}</pre>`).join('')}</details>`,
    );
  }
  if (o.reasons.length > 0) parts.push(`<div class="note">${o.status === 'skip' ? 'skipped' : 'not judged'}: ${h(o.reasons.join('; '))}</div>`);
  if (facts.length > 0) parts.push(`<div class="mono">${h(facts.join('; '))}</div>`);
  return parts.join('');
}

/** Rows in the order a reader needs them: failures, then warnings, passes and skips (catalogue order within). */
const ROW_ORDER: Record<RowStatus, number> = { fail: 0, warn: 1, pass: 2, skip: 3 };

function checksSection(report: Report): string {
  const rows = report.checks
    .flatMap((c) => {
      const outcomes: PlanOutcome[] =
        c.byPlan.length > 0 ? c.byPlan : [{ plan: null, status: c.status, counts: c.counts, evidence: [], reasons: [], info: {} }];
      return outcomes.map((o) => ({ c, o, s: rowStatus(c, o) }));
    })
    .sort((a, b) => ROW_ORDER[a.s] - ROW_ORDER[b.s])
    .map(
      ({ c, o, s }) =>
        `<tr data-status="${s}"><td><code>${h(caseName(c.id, o.plan))}</code><div class="note">${h(c.title)}</div></td>` +
        `<td>${h(c.severity)}</td><td>${badge(s)}</td>` +
        `<td class="num">${o.counts.failed}</td><td class="num">${o.counts.passed}</td><td class="num">${o.counts.skipped}</td>` +
        `<td>${evidenceCell(o)}</td></tr>`,
    );
  const filters = ['all', 'fail', 'warn', 'skip', 'pass']
    .map((f) => `<button type="button" data-filter="${f}" aria-pressed="${f === 'all'}">${f}</button>`)
    .join('');
  return (
    `<h2 id="checks-title">Checks</h2><div class="filters">${filters}</div>` +
    `<table class="data" id="checks"><thead><tr><th>check [plan]</th><th>severity</th><th>status</th>` +
    `<th class="num">failed</th><th class="num">passed</th><th class="num">not judged</th><th>first evidence</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

function thresholdsSection(report: Report): string {
  if (report.thresholds.length === 0) return '';
  const rows = report.thresholds.map((t) => {
    const w = thresholdWord(t);
    const s: RowStatus = w === 'PASS' ? 'pass' : w === 'FAIL' ? 'fail' : 'warn';
    return `<tr><td><code>${h(t.expression)}</code></td><td>${h(t.severity)}</td><td class="num">${h(formatObserved(t))}</td><td>${badge(s)}</td></tr>`;
  });
  return (
    `<h2 id="thresholds-title">Thresholds</h2><table class="data" id="thresholds"><thead><tr><th>threshold</th><th>severity</th>` +
    `<th class="num">observed</th><th>result</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

function chartOrEmpty(id: string, hasData: boolean, empty: string): string {
  return hasData ? `<div class="chart" id="${id}"></div>` : `<p class="empty" id="${id}-empty">${h(empty)}</p>`;
}

function latencySection(report: Report, hasChart: boolean): string {
  const rows = report.operations.map((op) => {
    const l = op.latency;
    const sc = statusClasses(op.statusCounts);
    const cells = [op.count, ...[l.min, l.mean, l.p50, l.p90, l.p95, l.p99, l.p999, l.max].map(formatMs), sc['2xx'], sc['4xx'], sc['429'], sc['5xx']];
    return `<tr><td>${h(op.operation)}</td>${cells.map((c) => `<td class="num">${h(String(c))}</td>`).join('')}</tr>`;
  });
  const head = ['requests', 'min', 'mean', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', '2xx', '4xx', '429', '5xx'];
  const table =
    rows.length === 0
      ? ''
      : `<table class="data" id="latency"><thead><tr><th>operation</th>${head.map((c) => `<th class="num">${c}</th>`).join('')}</tr></thead>` +
        `<tbody>${rows.join('')}</tbody></table>`;
  return (
    `<h2 id="latency-title">Latency percentiles per operation</h2>` +
    `<p class="note">Milliseconds from the intended send time (no coordinated omission), from the recorded histograms.</p>` +
    chartOrEmpty('chart-latency', hasChart, 'No latency was recorded in this run.') +
    table
  );
}

function trafficSection(report: Report, hasChart: boolean): string {
  const t = report.totals;
  const scaled = report.target.timeScale !== 1 ? ` The run clock runs ${report.target.timeScale} times faster than real time.` : '';
  return (
    `<h2 id="traffic-title">Request rate and status mix over time</h2>` +
    `<p class="note">${t.requests} requests, ${t.rps.toFixed(1)}/s; ${t.dropped} dropped sends; ${t.transportErrors} transport errors.` +
    ` Buckets of ${formatDuration(report.timeline.bucketMs)}.${h(scaled)}</p>` +
    (hasChart ? '<h3>Requests sent per second, and p99 latency</h3>' : '') +
    chartOrEmpty('chart-rate', hasChart, 'No traffic timeline was recorded in this run.') +
    (hasChart ? '<h3>Responses per second by status</h3><div class="chart" id="chart-status"></div>' : '')
  );
}

function keysSection(charts: ChartData['keys']): string {
  const body =
    charts.length === 0
      ? `<p class="empty" id="chart-keys-empty">No rate-limit headers were recorded per key in this run.</p>`
      : `<div class="key-grid">${charts
          .map(
            (k, i) =>
              `<div><h3>${h(k.key)} <span class="note">(${h(k.plan)}; ${k.refusals} x 429)</span></h3><div class="chart" id="chart-key-${i}"></div></div>`,
          )
          .join('')}</div>`;
  return `<h2 id="keys-title">X-RateLimit-Remaining per key</h2><p class="note">Each 429 received is marked on the time axis.</p>${body}`;
}

function metaSection(report: Report): string {
  const t = report.totals;
  const rows: [string, string][] = [
    ['Scenario', report.scenario.name + (report.scenario.description ? `: ${report.scenario.description}` : '')],
    ['Target', targetLine(report)],
    ['Plans', report.plans.join(', ') || 'none'],
    ['Keys', report.keys.map((k) => `${k.label} (${k.plan}${k.sacrificial ? ', sacrificial' : ''})`).join(', ') || 'none'],
    ['Run', `${report.startedAt} to ${report.endedAt} (${formatDuration(report.durationMs)})`],
    ['Requests', `${t.requests} (${t.rps.toFixed(1)}/s), ${t.dropped} dropped, ${t.transportErrors} transport errors`],
    ['Exit code', String(report.exitCode)],
    ['Tool', `${report.tool.name} ${report.tool.version}, report schema ${report.schemaVersion}`],
  ];
  if (report.scenario.file) rows.splice(1, 0, ['Scenario file', report.scenario.file]);
  if (report.abortReason) rows.unshift(['Aborted', report.abortReason]);
  return `<table class="meta">${rows.map(([k, v]) => `<tr><th>${h(k)}</th><td>${h(v)}</td></tr>`).join('')}</table>`;
}

function navigation(report: Report): string {
  const links: [string, string][] = [
    ...(report.thresholds.length > 0 ? ([['thresholds-title', 'Thresholds']] as [string, string][]) : []),
    ['checks-title', 'Checks'],
    ['latency-title', 'Latency'],
    ['traffic-title', 'Traffic'],
    ['keys-title', 'Keys'],
  ];
  return `<nav>${links.map(([id, text]) => `<a href="#${id}">${text}</a>`).join('')}</nav>`;
}

export function renderHtml(report: Report): string {
  const a = loadAssets();
  const data = chartData(report);
  const word = verdictWord(report.verdict);
  const counts = countsLine(report.summary);
  const notes = report.notes.length === 0 ? '' : `<h2>Notes</h2><ul>${report.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(CSP)}">`,
    `<title>${h(`petload ${report.scenario.name}: ${word}`)}</title>`,
    `<style>${a.uplotCss}</style>`,
    `<style>${a.pageCss}</style>`,
    '</head><body><main>',
    `<div class="banner ${report.verdict}"><div class="verdict" id="verdict">${word}</div>`,
    `<div><h1>petload ${h(report.scenario.name)}</h1><div class="counts" id="counts">${h(counts)}</div></div></div>`,
    metaSection(report),
    navigation(report),
    thresholdsSection(report),
    checksSection(report),
    latencySection(report, data.latency !== null),
    trafficSection(report, data.timeline !== null),
    keysSection(data.keys),
    notes,
    '</main>',
    `<script type="application/json" id="petload-data">${inlineJson(data)}</script>`,
    `<script>${inlineScript(a.uplotJs)}</script>`,
    `<script>${inlineScript(a.pageJs)}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
