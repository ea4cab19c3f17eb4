/**
 * report.html: one self-contained page, no network (a Content-Security-Policy forbids any fetch). uPlot's
 * script and styles are read from node_modules at render time and inlined; the chart data is embedded as
 * JSON. Every text from the report is escaped. First under the verdict: the plan table, each cell linking to
 * the row of the check that judged it.
 */
import { readFileSync } from 'node:fs';
import { FAILING_SEVERITIES } from '../checks/catalogue.js';
import { measuredTraffic, trafficWord, trafficWords } from '../metrics/traffic.js';
import { planTableOf } from '../report/plan-table.js';
import { type CheckResult, PLAN_TABLE_FIGURES, type PlanRow, type Report } from '../report/schema.js';
import { partialWords, scopeWords, verdictOf } from '../report/verdict.js';
import { escapeAttr, escapeText as h } from './escape.js';
import {
  CUT_SHORT_TITLE,
  caseName,
  countsLine,
  cutShortText,
  evidenceBlock,
  evidenceLine,
  formatDuration,
  formatMs,
  formatObserved,
  type PlanOutcome,
  statusClasses,
  targetLine,
  thresholdWord,
  verdictPhrase,
  verdictWord,
} from './format.js';
import { type ChartData, chartData } from './html-charts.js';
import { inlineJson, inlineScript, PAGE_CSP, uplotAssets } from './page-parts.js';
import { reproductionsOf } from './repro/render.js';

let page: { js: string; css: string } | undefined;

/** The report page's own script and stylesheet (next to this file in src/ and dist/), read once. */
function pageAssets(): { js: string; css: string } {
  page ??= {
    js: readFileSync(new URL('./report-page.js', import.meta.url), 'utf8'),
    css: readFileSync(new URL('./report-page.css', import.meta.url), 'utf8'),
  };
  return page;
}

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
  if (o.reasons.length > 0)
    parts.push(`<div class="note">${o.status === 'skip' ? 'skipped' : 'not judged'}: ${h(o.reasons.join('; '))}</div>`);
  if (facts.length > 0) parts.push(`<div class="mono">${h(facts.join('; '))}</div>`);
  return parts.join('');
}

/**
 * The id of a check's row in the check table, for links to it (the plan table's): `check_<id>_<plan>`, every
 * character of the id outside [A-Za-z0-9.-] written as `_<hex>_` (threshold ids hold spaces), `noplan` for none.
 */
export function checkRowId(id: string, plan: PlanOutcome['plan']): string {
  const safe = id.replace(/[^A-Za-z0-9.-]/gu, (c) => `_${c.codePointAt(0)!.toString(16)}_`);
  return `check_${safe}_${plan ?? 'noplan'}`;
}

/** Rows in the order a reader needs them: failures, then warnings, passes and skips (catalogue order within). */
const ROW_ORDER: Record<RowStatus, number> = { fail: 0, warn: 1, pass: 2, skip: 3 };

interface Row {
  c: CheckResult;
  o: PlanOutcome;
  s: RowStatus;
}

/** One row per check and plan, failures first. */
function checkRows(report: Report): Row[] {
  return report.checks
    .flatMap((c) => {
      const outcomes: PlanOutcome[] =
        c.byPlan.length > 0
          ? c.byPlan
          : [{ plan: null, status: c.status, counts: c.counts, evidence: [], reasons: [], info: {} }];
      return outcomes.map((o) => ({ c, o, s: rowStatus(c, o) }));
    })
    .sort((a, b) => ROW_ORDER[a.s] - ROW_ORDER[b.s]);
}

/** The long table, collapsed: the failures above already say what went wrong. */
function checksSection(report: Report, rows: readonly Row[]): string {
  const body = rows.map(
    ({ c, o, s }) =>
      `<tr data-status="${s}" id="${checkRowId(c.id, o.plan)}"><td><code>${h(caseName(c.id, o.plan))}</code><div class="note">${h(c.title)}</div></td>` +
      `<td>${h(c.severity)}</td><td>${badge(s)}</td>` +
      `<td class="num">${o.counts.failed}</td><td class="num">${o.counts.passed}</td><td class="num">${o.counts.skipped}</td>` +
      `<td>${evidenceCell(o)}${o.status === 'fail' ? reproHtml(report, c, o) : ''}</td></tr>`,
  );
  const tally = (['fail', 'warn', 'pass', 'skip'] as const)
    .map((st) => [st, rows.filter((r) => r.s === st).length] as const)
    .filter(([, n]) => n > 0)
    .map(
      ([st, n]) =>
        `${n} ${st === 'fail' ? 'failed' : st === 'warn' ? (n === 1 ? 'warning' : 'warnings') : st === 'pass' ? 'passed' : 'skipped'}`,
    )
    .join(', ');
  const filters = ['all', 'fail', 'warn', 'skip', 'pass']
    .map((f) => `<button type="button" data-filter="${f}" aria-pressed="${f === 'all'}">${f}</button>`)
    .join('');
  return (
    `<details class="checks" id="checks-section"><summary><h2 id="checks-title">All checks</h2>` +
    `<span class="note">${rows.length} rows (check per plan): ${h(tally)}. Click to show.</span></summary>` +
    `<div class="filters">${filters}</div>` +
    `<table class="data" id="checks"><thead><tr><th>check [plan]</th><th>severity</th><th>status</th>` +
    `<th class="num">failed</th><th class="num">passed</th><th class="num">not judged</th><th>first evidence</th></tr></thead>` +
    `<tbody>${body.join('')}</tbody></table></details>`
  );
}

/**
 * The row a plan table cell links to: the check's row for the plan, else its row without a plan, else its first
 * (judged for other plans only); null when the report has no such check.
 */
function rowLink(report: Report, id: string, plan: PlanOutcome['plan']): string | null {
  const check = report.checks.find((c) => c.id === id);
  if (check === undefined) return null;
  const row = check.byPlan.find((o) => o.plan === plan) ?? check.byPlan.find((o) => o.plan === null) ?? check.byPlan[0];
  return checkRowId(id, row?.plan ?? null);
}

const CELL_CLASS: Record<PlanRow['status'], string> = {
  held: 'held',
  'not held': 'not-held',
  'not measured': 'not-measured',
};

/** A plan's two cells of a figure: sold, then the status (a link to the check's row) and what was measured. */
function planCells(report: Report, plan: PlanOutcome['plan'], r: PlanRow | undefined): string {
  if (r === undefined) return '<td></td><td></td>';
  const cls = CELL_CLASS[r.status];
  const target = rowLink(report, r.check, plan);
  const word = `<span class="cell-status ${cls}">${h(r.status)}</span>`;
  const link = target === null ? word : `<a href="#${target}" data-check="${escapeAttr(r.check)}">${word}</a>`;
  const shown = r.measured ?? (r.status === 'not measured' ? r.detail : null) ?? '';
  const title = [r.measured, r.detail, `judged by ${r.check}`].filter((x) => x !== null).join('\n');
  return (
    `<td class="sold">${h(r.sold ?? '-')}</td>` +
    `<td class="cell ${cls}" title="${escapeAttr(title)}"><div class="clamp">${link} <span class="measured">${h(shown)}</span></div></td>`
  );
}

/** Per plan, sold against measured: a row per figure, two columns per plan; each status links to its check's row. */
function planTableSection(report: Report): string {
  const plans = planTableOf(report);
  if (plans.length === 0) return '';
  const head = `<tr><th>figure</th>${plans.map((p) => `<th class="sold">${h(p.plan)}: sold</th><th>${h(p.plan)}: measured</th>`).join('')}</tr>`;
  const body = PLAN_TABLE_FIGURES.map(
    (figure) =>
      `<tr data-figure="${escapeAttr(figure)}"><th scope="row">${h(figure)}</th>` +
      `${plans
        .map((p) =>
          planCells(
            report,
            p.plan,
            p.rows.find((r) => r.figure === figure),
          ),
        )
        .join('')}</tr>`,
  );
  const cols = plans.map(() => '<col class="sold"><col>').join('');
  return (
    `<h2 id="plans-title">Plans: sold against measured</h2>` +
    `<table class="data" id="plan-table"><colgroup><col class="figure">${cols}</colgroup>` +
    `<thead>${head}</thead><tbody>${body.join('')}</tbody></table>`
  );
}

/** A failure's reproduction: the script's path (a link into the report folder) and first lines, or the probe to re-run. */
function reproHtml(report: Report, c: CheckResult, o: PlanOutcome): string {
  const e = reproductionsOf(report, c.id).find((x) => x.plan === o.plan);
  if (e === undefined) return '';
  if (e.script === undefined || e.file === undefined)
    return `<div class="note repro">no script: ${h(e.why ?? '')}. Re-run its probe: <span class="mono">${h(e.rerun)}</span></div>`;
  // One line of HTML (the newlines of the script are character references), as every other part of the page.
  const lines = e.script.preview.map(h).join('&#10;');
  return (
    `<details class="repro"><summary>reproduce: <a class="mono" href="${escapeAttr(e.file)}">sh ${h(e.file)}</a></summary>` +
    `<pre>${lines}</pre></details>`
  );
}

/** How many failures the top of the page lists; the rest are in the check table. */
const FAILURES_SHOWN = 6;

/** What went wrong, right under the verdict: each failed or warned check per plan, with its first evidence. */
function failuresSection(report: Report, rows: readonly Row[]): string {
  const bad = rows.filter((r) => r.s === 'fail' || r.s === 'warn');
  if (bad.length === 0)
    return `<h2 id="failures-title">Failures</h2><p class="all-clear" id="failures">No check failed and none warned.</p>`;
  const items = bad.slice(0, FAILURES_SHOWN).map(({ c, o, s }) => {
    const first = o.evidence[0];
    const why = first ? evidenceLine(first) : (o.reasons[0] ?? '');
    return (
      `<li>${badge(s)} <code>${h(caseName(c.id, o.plan))}</code> <span class="note">${h(c.severity)}: ${h(c.title)}</span>` +
      (why === '' ? '' : `<div class="why mono" title="${escapeAttr(why)}">${h(why)}</div>`) +
      reproHtml(report, c, o) +
      '</li>'
    );
  });
  const more =
    bad.length > FAILURES_SHOWN
      ? `<p class="note">and ${bad.length - FAILURES_SHOWN} more in <a href="#checks-section">All checks</a>.</p>`
      : '';
  return `<h2 id="failures-title">Failures</h2><ul class="failures" id="failures">${items.join('')}</ul>${more}`;
}

/**
 * The checks a probe's early end left unjudged with no check failed for it: they fail the run (docs/attribution.md),
 * so they are listed under the failures, each linking to its row.
 */
function cutShortSection(cutShort: readonly CheckResult[]): string {
  if (cutShort.length === 0) return '';
  const items = cutShort.map((c) => {
    const first = c.byPlan.find((p) => p.status === 'skip' && p.cutShort !== undefined);
    const row = checkRowId(c.id, first?.plan ?? null);
    return `<li>${badge('fail')} <a href="#${row}"><code>${h(c.id)}</code></a> <span class="note">${h(c.title)}</span><div class="why mono">${h(cutShortText(c))}</div></li>`;
  });
  return `<h2 id="cut-short-title">${h(CUT_SHORT_TITLE)}</h2><ul class="failures" id="cut-short">${items.join('')}</ul>`;
}

function thresholdsSection(report: Report): string {
  if (report.thresholds.length === 0) return '';
  const rows = report.thresholds.map((t) => {
    const w = thresholdWord(t);
    const s: RowStatus = w === 'PASS' ? 'pass' : w === 'FAIL' ? 'fail' : w === 'SKIP' ? 'skip' : 'warn';
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

function panel(titleId: string | null, title: string, body: string, wide = false): string {
  return `<section class="panel${wide ? ' wide' : ''}"><h3${titleId ? ` id="${titleId}"` : ''}>${title}</h3>${body}</section>`;
}

/** Every chart, in a grid that puts them all on the first screen of a wide window. */
function chartsSection(report: Report, data: ChartData): string {
  const t = report.totals;
  const scaled = report.target.timeScale !== 1 ? `; run clock x${report.target.timeScale}` : '';
  const panels = [
    panel(
      'latency-title',
      'Latency percentiles per operation',
      `<p class="note" id="latency-chart-traffic">${h(trafficWord(measuredTraffic(report), report))}; ms from the intended send time (no coordinated omission)</p>` +
        chartOrEmpty('chart-latency', data.latency !== null, 'No latency was recorded in this run.'),
    ),
    panel(
      'traffic-title',
      'Requests sent per second, and p99 latency',
      `<p class="note">${h(trafficWord(measuredTraffic(report), report))}; ${t.requests} requests in all, ${t.rps.toFixed(1)}/s; buckets of ${h(formatDuration(report.timeline.bucketMs))}${h(scaled)}</p>` +
        chartOrEmpty('chart-rate', data.timeline !== null, 'No traffic timeline was recorded in this run.'),
    ),
    ...(data.timeline !== null
      ? [
          panel(
            null,
            'Responses per second by status',
            '<p class="note">2xx, 4xx, 429, 5xx and transport errors</p><div class="chart" id="chart-status"></div>',
          ),
        ]
      : []),
    ...(data.keys.length === 0
      ? [
          panel(
            'keys-title',
            'X-RateLimit-Remaining per key',
            '<p class="empty" id="chart-keys-empty">No rate-limit headers were recorded per key in this run.</p>',
          ),
        ]
      : data.keys.map((k, i) =>
          panel(
            i === 0 ? 'keys-title' : null,
            `Remaining: ${h(k.key)} <span class="note">(${h(k.plan)}; ${k.refusals} x 429)</span>`,
            `<div class="chart key" id="chart-key-${i}"></div>`,
          ),
        )),
  ];
  return `<h2 id="charts-title">Charts</h2><div class="chart-grid">${panels.join('')}</div>`;
}

function latencyRows(ops: Report['operations']): string[] {
  return ops.map((op) => {
    const l = op.latency;
    const sc = statusClasses(op.statusCounts);
    const cells = [
      op.count,
      ...[l.min, l.mean, l.p50, l.p90, l.p95, l.p99, l.p999, l.max].map(formatMs),
      sc['2xx'],
      sc['4xx'],
      sc['429'],
      sc['5xx'],
    ];
    return `<tr><td>${h(op.operation)}</td>${cells.map((c) => `<td class="num">${h(String(c))}</td>`).join('')}</tr>`;
  });
}

function opsTable(id: string, rows: string[]): string {
  const head = ['requests', 'min', 'mean', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', '2xx', '4xx', '429', '5xx'];
  return (
    `<table class="data" id="${id}"><thead><tr><th>operation</th>${head.map((c) => `<th class="num">${c}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

/** The requests per operation of the measured traffic, then the probes' own table when the load is measured. */
function latencyTable(report: Report): string {
  const rows = latencyRows(report.operations);
  const probes = latencyRows(report.probeOperations ?? []);
  if (rows.length === 0 && probes.length === 0) return '';
  const t = report.totals;
  const measured = measuredTraffic(report);
  return (
    `<h2 id="latency-table-title">Requests per operation</h2>` +
    `<p class="note">${t.requests} requests in all, ${t.rps.toFixed(1)}/s (per real second); ${t.dropped} dropped sends; ${t.transportErrors} transport errors. ` +
    `Milliseconds from the intended send time, from the recorded histograms.</p>` +
    (rows.length > 0
      ? `<p class="note" id="latency-traffic">Of ${h(trafficWords(measured, report))}:</p>${opsTable('latency', rows)}`
      : '') +
    (probes.length > 0
      ? `<p class="note" id="probe-latency-title">Of the probes' requests, measured apart (their bursts, waits and deliberate refusals are not the load's; ${h((report.traffic?.probes ?? []).join(', '))}):</p>${opsTable('probe-latency', probes)}`
      : '')
  );
}

function metaSection(report: Report): string {
  const t = report.totals;
  const rows: [string, string][] = [
    ['Scenario', report.scenario.name + (report.scenario.description ? `: ${report.scenario.description}` : '')],
    ['Target', targetLine(report)],
    ['Plans', report.plans.join(', ') || 'none'],
    [
      'Keys',
      report.keys.map((k) => `${k.label} (${k.plan}${k.sacrificial ? ', sacrificial' : ''})`).join(', ') || 'none',
    ],
    ['Run', `${report.startedAt} to ${report.endedAt} (${formatDuration(report.durationMs)})`],
    ['Requests', `${t.requests} (${t.rps.toFixed(1)}/s), ${t.dropped} dropped, ${t.transportErrors} transport errors`],
    ['Exit code', String(report.exitCode)],
    ['Tool', `${report.tool.name} ${report.tool.version}, report schema ${report.schemaVersion}`],
  ];
  if (report.scenario.file) rows.splice(1, 0, ['Scenario file', report.scenario.file]);
  if (report.abortReason) rows.unshift(['Aborted', report.abortReason]);
  return `<h2 id="run-title">Run</h2><table class="meta">${rows.map(([k, v]) => `<tr><th>${h(k)}</th><td>${h(v)}</td></tr>`).join('')}</table>`;
}

/** A partial run's plans not judged, beside the verdict word (nothing when every plan named was judged). */
function partialLine(report: Report): string {
  const partial = partialWords(report);
  return partial === '' ? '' : `<div class="partial" id="partial">${h(partial)}</div>`;
}

/** A focused run's checks out of scope, under the verdict: one line, the ids behind it (nothing without a focus). */
function scopeLine(report: Report): string {
  const words = scopeWords(report);
  if (words === '') return '';
  const ids = (report.outOfScope ?? []).join(', ');
  return `<details class="partial" id="out-of-scope"><summary>${h(words)}: not judged, not in the verdict</summary>${h(ids)}</details>`;
}

/** One line under the verdict: what was run against what. */
function glance(report: Report): string {
  const t = report.totals;
  const parts = [
    `${report.scenario.name} against ${targetLine(report)}`,
    `plans ${report.plans.join(', ') || 'none'}`,
    `${t.requests} requests in ${formatDuration(report.durationMs)}`,
    `exit code ${report.exitCode}`,
  ];
  const aborted = report.abortReason
    ? `<p class="aborted" id="abort-reason">Aborted: ${h(report.abortReason)}</p>`
    : '';
  return `<p class="glance">${h(parts.join(' · '))}</p>${aborted}`;
}

function navigation(report: Report, cutShort: boolean): string {
  const links: [string, string][] = [
    ...(report.plans.length > 0 ? ([['plans-title', 'Plans']] as [string, string][]) : []),
    ['failures-title', 'Failures'],
    ...(cutShort ? ([['cut-short-title', 'Not judged']] as [string, string][]) : []),
    ['charts-title', 'Charts'],
    ...(report.thresholds.length > 0 ? ([['thresholds-title', 'Thresholds']] as [string, string][]) : []),
    ...(report.operations.length > 0 ? ([['latency-table-title', 'Requests']] as [string, string][]) : []),
    ['checks-section', 'All checks'],
    ['run-title', 'Run'],
  ];
  return `<nav>${links.map(([id, text]) => `<a href="#${id}">${text}</a>`).join('')}</nav>`;
}

export function renderHtml(report: Report): string {
  const [uplot, own] = [uplotAssets(), pageAssets()];
  const data = chartData(report);
  const word = verdictWord(report.verdict);
  const counts = countsLine(report.summary);
  const rows = checkRows(report);
  const { cutShort } = verdictOf(report.checks);
  const notes =
    report.notes.length === 0 ? '' : `<h2>Notes</h2><ul>${report.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(PAGE_CSP)}">`,
    `<title>${h(`petload ${report.scenario.name}: ${verdictPhrase(report)}`)}</title>`,
    `<style>${uplot.css}</style>`,
    `<style>${own.css}</style>`,
    '</head><body><main>',
    `<div class="banner ${report.verdict}"><div class="verdict" id="verdict">${word}</div>`,
    `<div><h1>petload ${h(report.scenario.name)}</h1>${partialLine(report)}${scopeLine(report)}<div class="counts" id="counts">${h(counts)}</div></div></div>`,
    // What a reader needs first: each plan sold against measured, what failed and the charts; then the details,
    // the long table collapsed.
    glance(report),
    navigation(report, cutShort.length > 0),
    planTableSection(report),
    failuresSection(report, rows),
    cutShortSection(cutShort),
    chartsSection(report, data),
    thresholdsSection(report),
    latencyTable(report),
    checksSection(report, rows),
    notes,
    metaSection(report),
    '</main>',
    `<script type="application/json" id="petload-data">${inlineJson(data)}</script>`,
    `<script>${inlineScript(uplot.js)}</script>`,
    `<script>${inlineScript(own.js)}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
