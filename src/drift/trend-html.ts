/**
 * trend.html: every run of each scenario and target on one self-contained page (see page.ts): the verdict per
 * run, each check's status per plan over the runs as a strip, p50 and p99 per operation over time, and the Limit
 * values each plan was sent over time. The files that were skipped are listed first, with why.
 */
import { escapeAttr, escapeText as h } from '../outputs/escape.js';
import { trafficWords } from '../metrics/traffic.js';
import { FAILING_SEVERITIES } from '../report/severity.js';
import { type Chart, type ChartSeries, chartBox, page } from './page.js';
import type { TrendCheck, TrendGroup, TrendPage, TrendRun } from './trend.js';
import { checkName } from './words.js';

/** Unix seconds of each run's start, made strictly increasing (a chart's x values must be). */
function xs(runs: readonly TrendRun[]): number[] {
  const out: number[] = [];
  for (const r of runs) {
    const t = Date.parse(r.startedAt) / 1000;
    const prev = out[out.length - 1];
    out.push(prev !== undefined && !(t > prev) ? prev + 0.001 : Number.isNaN(t) ? (prev ?? 0) + 1 : t);
  }
  return out;
}

function runTitle(r: TrendRun, i: number): string {
  const faults = r.faults.length > 0 ? `, faults ${r.faults.join(', ')}` : '';
  return `run ${i + 1}: ${r.startedAt}, ${r.verdict} (exit ${r.exitCode})${faults}, ${r.path}`;
}

/** A table row of coloured cells, one per run. */
function strip(label: string, cells: { cls: string; title: string }[]): string {
  const tds = cells.map((c) => `<td class="cell ${escapeAttr(c.cls)}" title="${escapeAttr(c.title)}"></td>`);
  return `<tr><th>${label}</th>${tds.join('')}</tr>`;
}

function cellOf(check: TrendCheck, status: TrendCheck['statuses'][number]): string {
  if (status === 'fail') return FAILING_SEVERITIES.has(check.severity) ? 'fail' : 'warn';
  return status === 'absent' ? 'absent' : status;
}

/** Checks that ever failed or changed status come first; the steady ones are folded away. */
function checksStrip(g: TrendGroup, gi: number): string {
  const moving = (c: TrendCheck) => c.statuses.some((s) => s === 'fail') || new Set(c.statuses).size > 1;
  const row = (c: TrendCheck) =>
    strip(
      `<code>${h(checkName(c.id, c.plan))}</code> <span class="note">${h(c.severity)}</span>`,
      c.statuses.map((s, i) => ({
        cls: cellOf(c, s),
        title: `${checkName(c.id, c.plan)}: ${s} in ${runTitle(g.runs[i]!, i)}`,
      })),
    );
  const first = g.checks.filter(moving);
  const steady = g.checks.filter((c) => !moving(c));
  const table = (rows: TrendCheck[], id: string) => `<table class="strip" id="${id}">${rows.map(row).join('')}</table>`;
  const legend = [
    ['pass', 'passed'],
    ['fail', 'failed (critical or major)'],
    ['warn', 'failed (a warning)'],
    ['skip', 'skipped'],
    ['absent', 'not judged'],
  ]
    .map(([cls, word]) => `<span class="cell ${cls}"></span>${word}`)
    .join('');
  return (
    `<h3>Checks per plan over the runs</h3><p class="note legend">${legend}</p>` +
    (first.length > 0
      ? table(first, `checks-${gi}`)
      : `<p class="all-clear">No check failed or changed status over these runs.</p>`) +
    (steady.length > 0
      ? `<details><summary>${steady.length} check-plan pairs with one status throughout</summary>${table(steady, `checks-steady-${gi}`)}</details>`
      : '')
  );
}

function latencyChart(g: TrendGroup, gi: number): Chart | null {
  const series: ChartSeries[] = g.operations.flatMap((o) => [
    { label: `${o.operation} p50`, values: o.p50, dash: true },
    { label: `${o.operation} p99`, values: o.p99 },
  ]);
  if (!series.some((s) => s.values.some((v) => v !== null))) return null;
  return { id: `trend-latency-${gi}`, x: xs(g.runs), xTime: true, yLabel: 'latency (ms)', unit: 'ms', series };
}

function limitsChart(g: TrendGroup, gi: number): Chart | null {
  const series: ChartSeries[] = g.limits.map((l) => ({
    label: l.plan,
    values: l.seen.map((v) => (v.length > 0 ? Math.max(...v) : null)),
  }));
  if (!series.some((s) => s.values.some((v) => v !== null))) return null;
  return { id: `trend-limits-${gi}`, x: xs(g.runs), xTime: true, yLabel: 'X-RateLimit-Limit', logY: false, series };
}

function limitsTable(g: TrendGroup): string {
  if (g.limits.length === 0) return '';
  const head = g.runs.map((_, i) => `<th class="num">${i + 1}</th>`).join('');
  const rows = g.limits.map(
    (l) =>
      `<tr><td>${h(l.plan)}</td>${l.seen.map((v) => `<td class="num">${h(v.length > 0 ? v.join(', ') : '-')}</td>`).join('')}</tr>`,
  );
  return `<table class="data limits"><thead><tr><th>Limit sent, run</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Accepted within a minute from a fresh start, against the figure sold, per plan and run. */
function admissionTable(g: TrendGroup): string {
  if (g.admission.length === 0) return '';
  const head = g.runs.map((_, i) => `<th class="num">${i + 1}</th>`).join('');
  const cell = (a: number | null, s: number | null) => (a === null ? '-' : `${a}${s === null ? '' : ` / ${s}`}`);
  const rows = g.admission.map(
    (l) =>
      `<tr><td>${h(l.plan)}</td>${l.accepted.map((a, i) => `<td class="num">${h(cell(a, l.sold[i] ?? null))}</td>`).join('')}</tr>`,
  );
  return `<table class="data admission"><thead><tr><th>Accepted in a minute / sold, run</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function runsTable(g: TrendGroup): string {
  const rows = g.runs.map(
    (r, i) =>
      `<tr><td class="num">${i + 1}</td><td>${h(r.startedAt)}</td><td><span class="tag ${h(r.verdict)}">${h(r.verdict.toUpperCase())}</span></td>` +
      `<td class="num">${r.exitCode}</td><td class="num">${r.requests}</td><td>${h(r.faults.join(', ') || 'none')}</td>` +
      `<td>${h(r.toolVersion)}</td><td><code>${h(r.path)}</code></td></tr>`,
  );
  return (
    `<details><summary>The ${g.runs.length} runs</summary><table class="data"><thead><tr><th class="num">run</th><th>started</th>` +
    `<th>verdict</th><th class="num">exit</th><th class="num">requests</th><th>faults</th><th>petload</th><th>file</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table></details>`
  );
}

function groupSection(g: TrendGroup, gi: number, charts: Chart[]): string {
  const lat = latencyChart(g, gi);
  const lim = limitsChart(g, gi);
  for (const c of [lat, lim]) if (c) charts.push(c);
  const verdicts = strip(
    'verdict',
    g.runs.map((r, i) => ({ cls: r.verdict, title: runTitle(r, i) })),
  );
  const span =
    g.runs.length === 1 ? g.runs[0]!.startedAt : `${g.runs[0]!.startedAt} to ${g.runs[g.runs.length - 1]!.startedAt}`;
  return (
    `<section class="group" id="group-${gi}"><h2>${h(g.scenario)} <span class="note">against ${h(g.target)}</span></h2>` +
    `<p class="note">${g.runs.length} ${g.runs.length === 1 ? 'run' : 'runs'}, ${h(span)}</p>` +
    `<h3>Verdict per run</h3><table class="strip" id="verdicts-${gi}">${verdicts}</table>${runsTable(g)}` +
    checksStrip(g, gi) +
    `<div class="chart-grid"><section class="panel"><h3>p50 (dashed) and p99 per operation</h3>` +
    `<p class="note" id="trend-traffic-${gi}">${h(trafficNote(g))}</p>` +
    `${chartBox(`trend-latency-${gi}`, lat !== null, 'No latency was recorded in these runs.')}</section>` +
    `<section class="panel"><h3>Limit sent per plan (highest value of each run)</h3>` +
    `${chartBox(`trend-limits-${gi}`, lim !== null, 'No X-RateLimit-Limit was recorded in these runs.')}</section></div>` +
    limitsTable(g) +
    admissionTable(g) +
    `</section>`
  );
}

/** Whose traffic the latency chart shows, and the runs left out of it. */
function trafficNote(g: TrendGroup): string {
  const t = g.latencyTraffic;
  const left = t.leftOut === 0 ? '' : `; ${t.leftOut} run(s) of another traffic class left out (not comparable)`;
  return `Of ${trafficWords(t.measured)}${left}.`;
}

export function trendHtml(t: TrendPage): string {
  const charts: Chart[] = [];
  const runs = t.groups.reduce((n, g) => n + g.runs.length, 0);
  const skipped =
    t.skipped.length === 0
      ? ''
      : `<h2 id="skipped-title">Skipped files</h2><ul class="skipped" id="skipped">${t.skipped
          .map((s) => `<li><code>${h(s.path)}</code>: ${h(s.reason)}</li>`)
          .join('')}</ul>`;
  const groups = t.groups.map((g, i) => groupSection(g, i, charts)).join('\n');
  const body = [
    `<div class="banner good"><div class="verdict">TREND</div><div><h1>petload trend</h1>`,
    `<div id="summary">${runs} ${runs === 1 ? 'run' : 'runs'} of ${t.groups.length} scenario and target ${t.groups.length === 1 ? 'pair' : 'pairs'}; ${t.skipped.length} ${t.skipped.length === 1 ? 'file' : 'files'} skipped</div></div></div>`,
    skipped,
    groups || '<p class="note">No report to show.</p>',
  ].join('\n');
  return page('petload trend', body, charts);
}
