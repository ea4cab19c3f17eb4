/**
 * The frame of compare.html and trend.html: one self-contained page like report.html (no network: the same
 * Content-Security-Policy, uPlot read from node_modules and inlined, the chart data embedded as JSON). The
 * page's own styles and script are here as text, so that nothing beside the compiled code needs copying.
 */
import { escapeAttr, escapeText as h } from '../outputs/escape.js';
import { inlineJson, inlineScript, PAGE_CSP, uplotAssets } from '../outputs/page-parts.js';

const PAGE_CSS = `
:root { --bad: #c62828; --good: #1a7f37; --warn: #9a6700; --skip: #6e7781; --line: #d0d7de; --soft: #f6f8fa; --text: #1f2328; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--text); }
main { max-width: 1440px; margin: 0 auto; padding: 0 24px 48px; }
h1 { font-size: 20px; margin: 0; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 12px 0 4px; }
code, .mono { font-family: "DejaVu Sans Mono", ui-monospace, monospace; font-size: 12.5px; }
.banner { display: flex; align-items: center; gap: 20px; padding: 14px 24px; color: #fff; margin: 0 -24px 8px; }
.banner.bad { background: var(--bad); }
.banner.good { background: var(--good); }
.banner .verdict { font-size: 26px; font-weight: 700; letter-spacing: 0.03em; }
.glance, .note { color: var(--skip); }
.glance { margin: 0; }
table.data { border-collapse: collapse; width: 100%; }
table.data th, table.data td { border-bottom: 1px solid var(--line); padding: 5px 8px; text-align: left; vertical-align: top; }
table.data th { background: var(--soft); font-weight: 600; }
table.data td.num, table.data th.num { text-align: right; font-variant-numeric: tabular-nums; }
.tag { display: inline-block; min-width: 52px; text-align: center; font-weight: 700; font-size: 11.5px; padding: 1px 6px; border-radius: 10px; color: #fff; background: var(--skip); }
.tag.REGRESSION, .tag.fail { background: var(--bad); }
.tag.WARNING, .tag.CHANGED, .tag.SLOWER, .tag.aborted { background: var(--warn); }
.tag.FIXED, .tag.FASTER, .tag.PASSING, .tag.pass { background: var(--good); }
.all-clear { color: var(--good); font-weight: 600; }
.chart-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 8px 24px; }
.panel { min-width: 0; }
.chart { margin: 4px 0 8px; min-height: 200px; }
.strip { border-collapse: collapse; }
.strip td, .strip th { padding: 0; border: 1px solid #fff; font-size: 12px; }
.strip th { text-align: left; padding: 1px 8px 1px 0; font-weight: normal; white-space: nowrap; }
.strip td.cell { width: 18px; height: 16px; }
.cell { background: #eef1f4; }
.cell.pass { background: var(--good); }
.cell.fail { background: var(--bad); }
.cell.warn, .cell.aborted { background: var(--warn); }
.cell.skip { background: #aab2bb; }
details summary { cursor: pointer; }
ul.skipped { margin: 4px 0; }
table.data.limits { width: auto; margin-top: 8px; }
.legend .cell { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
`;

/** Draws every chart of #petload-data.charts: { id, title?, x, series: [{label, values, dash?}], xTime?, yLabel, logX? }. */
const PAGE_JS = `
(function () {
  var data = JSON.parse(document.getElementById('petload-data').textContent);
  var PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#000000'];
  function fmt(v, unit) {
    if (v == null || !isFinite(v)) return '-';
    if (v === 0) return unit ? '0 ' + unit : '0';
    var a = Math.abs(v);
    var s = a >= 100 ? Math.round(v).toString() : a >= 1 ? v.toFixed(1) : v.toFixed(2);
    return unit ? s + ' ' + unit : s;
  }
  function pctLabel(x) {
    if (x >= 1e6) return 'max';
    return parseFloat((100 * (1 - 1 / x)).toFixed(4)) + '%';
  }
  function widthOf(el) { return Math.max(320, Math.floor(el.clientWidth || 800)); }
  var charts = [];
  (data.charts || []).forEach(function (c) {
    var el = document.getElementById(c.id);
    if (!el) return;
    try {
      var colors = c.series.map(function (s, i) { return s.color || PALETTE[i % PALETTE.length]; });
      el.dataset.colors = JSON.stringify(colors);
      var all = [].concat.apply([], c.series.map(function (s) { return s.values.filter(function (v) { return v != null; }); }));
      var positive = all.filter(function (v) { return v > 0; });
      var lo = positive.length ? Math.min.apply(null, positive) : 1;
      var hi = all.length ? Math.max.apply(null, all) : 1;
      var logY = c.logY !== false && positive.length > 0 && hi / lo > 30;
      var xScale = c.logX ? { time: false, distr: 3, log: 10 } : { time: !!c.xTime };
      var xAxis = c.logX
        ? { label: 'percentile', splits: function (u) { return [1, 10, 100, 1e3, 1e4, 1e5, 1e6].filter(function (v) { return v >= u.scales.x.min && v <= u.scales.x.max; }); }, values: function (u, vals) { return vals.map(pctLabel); } }
        : { label: c.xLabel || '' };
      var opts = {
        width: widthOf(el),
        height: c.height || 220,
        scales: { x: xScale, y: logY ? { distr: 3, log: 10, range: function () { return [lo / 2, hi * 1.5]; } } : { range: function (u, mn, mx) { return [0, mx > 0 ? mx * 1.08 : 1]; } } },
        axes: [xAxis, { label: c.yLabel + (logY ? ' (log scale)' : ''), size: 60, values: function (u, vals) { return vals.map(function (v) { return fmt(v); }); } }],
        series: [{ label: c.logX ? 'percentile' : 'x', value: function (u, v) { return v == null ? '-' : c.logX ? pctLabel(v) : c.xTime ? new Date(v * 1000).toISOString() : fmt(v); } }].concat(
          c.series.map(function (s, i) {
            return { label: s.label, stroke: colors[i], width: 2, dash: s.dash ? [6, 4] : undefined, spanGaps: true, points: { show: true, size: 5 }, value: function (u, v) { return fmt(v, c.unit); } };
          }),
        ),
      };
      var values = c.series.map(function (s) { return s.values.map(function (v) { return logY && v != null && v <= 0 ? lo / 2 : v; }); });
      charts.push({ el: el, plot: new uPlot(opts, [c.x].concat(values), el) });
    } catch (e) {
      el.textContent = 'This chart could not be drawn: ' + (e && e.message ? e.message : String(e));
    }
  });
  var timer = null;
  window.addEventListener('resize', function () {
    clearTimeout(timer);
    timer = setTimeout(function () { charts.forEach(function (c) { c.plot.setSize({ width: widthOf(c.el), height: c.plot.height }); }); }, 100);
  });
})();
`;

/** One series of a chart: its values share the chart's x values; null is a gap. */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
  dash?: boolean;
  color?: string;
}

/** A chart the page script draws into the element of id `id`. */
export interface Chart {
  id: string;
  x: number[];
  series: ChartSeries[];
  yLabel: string;
  unit?: string;
  xLabel?: string;
  /** x in Unix seconds, drawn as dates. */
  xTime?: boolean;
  /** x on the percentile spectrum's log axis (1/(1-p)). */
  logX?: boolean;
  /** Never a log y axis. */
  logY?: false;
  height?: number;
}

/** A whole page: `body` is trusted HTML (every text in it already escaped); `charts` are drawn by the script. */
export function page(title: string, body: string, charts: readonly Chart[]): string {
  const a = uplotAssets();
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(PAGE_CSP)}">`,
    `<title>${h(title)}</title>`,
    `<style>${a.css}</style>`,
    `<style>${PAGE_CSS}</style>`,
    `</head><body><main>${body}</main>`,
    `<script type="application/json" id="petload-data">${inlineJson({ charts })}</script>`,
    `<script>${inlineScript(a.js)}</script>`,
    `<script>${inlineScript(PAGE_JS)}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}

/** A chart's container, or a note when it has nothing to draw. */
export function chartBox(id: string, hasData: boolean, empty: string): string {
  return hasData ? `<div class="chart" id="${escapeAttr(id)}"></div>` : `<p class="note">${h(empty)}</p>`;
}
