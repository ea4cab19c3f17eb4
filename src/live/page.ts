/**
 * The live page: one self-contained document, as report.html is (uPlot's script and styles inlined from
 * node_modules, the page's own script inlined, a Content-Security-Policy that allows no request but the page's own
 * event stream). It holds no run data: the script fills it from the server's snapshots.
 */
import { inlineScript, PAGE_CSP, uplotAssets } from '../outputs/page-parts.js';
import { PAGE_SCRIPT } from './page-script.js';

/** report.html's policy, plus the page's own event stream (connect-src 'self'); no base, no form. */
export const LIVE_CSP = `${PAGE_CSP}; connect-src 'self'; base-uri 'none'; form-action 'none'`;

/** The same as a response header, where a browser also honours frame-ancestors (no page may frame it). */
export const LIVE_CSP_HEADER = `${LIVE_CSP}; frame-ancestors 'none'`;

const PAGE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
main { max-width: 1400px; margin: 0 auto; padding: 16px; }
.banner { display: flex; gap: 16px; align-items: center; padding: 12px 16px; border-radius: 6px; background: #e8eef5; }
.banner.pass { background: #e3f4ea; } .banner.fail { background: #fbe4e4; } .banner.aborted { background: #fdf0d9; }
.verdict { font-size: 28px; font-weight: 700; min-width: 140px; }
h1 { font-size: 20px; margin: 0; } h2 { font-size: 16px; margin: 0 0 8px; }
.note { color: #666; font-size: 12px; } .mono, code { font-family: ui-monospace, monospace; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 12px; margin-top: 12px; }
.panel { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 12px; }
.panel.wide { grid-column: 1 / -1; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eee; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-weight: 700; padding: 0 4px; border-radius: 3px; } .status.fail { background: #d33; color: #fff; }
.status.warn { background: #e6a100; color: #fff; }
#end-notice { margin-top: 12px; padding: 12px 16px; border: 2px solid #0072B2; border-radius: 6px; background: #fff; }
ul#problems { padding-left: 18px; margin: 0; } progress { width: 100%; }
`;

function table(id: string, head: readonly string[], numeric: readonly number[] = []): string {
  const ths = head.map((h, i) => `<th${numeric.includes(i) ? ' class="num"' : ''}>${h}</th>`).join('');
  return `<table id="${id}"><thead><tr>${ths}</tr></thead><tbody></tbody></table>`;
}

const panel = (title: string, body: string, wide = false) =>
  `<section class="panel${wide ? ' wide' : ''}"><h2>${title}</h2>${body}</section>`;

/** The page's panels: verdict so far, traffic, the chart, latency, keys, probes, the load phase. */
function panels(): string {
  return [
    panel('Verdict so far', '<p id="counts">no check has an outcome yet</p><ul id="problems"></ul>'),
    panel(
      'Traffic',
      '<p><span id="sent">0</span> sent; <span id="per-second">0</span> in the last second (real time)</p>' +
        table('status-mix', ['status', 'responses', 'share'], [1, 2]),
    ),
    panel('Responses per second, by status', '<div class="chart" id="chart-traffic"></div>', true),
    panel(
      'Latency per operation',
      '<p class="note">ms from the intended send time</p>' +
        table('latency', ['operation', 'requests', 'p50', 'p99'], [1, 2, 3]),
    ),
    panel(
      'Keys',
      '<p class="note">labels only; Remaining as last sent by the target</p>' +
        table('keys', ['key', 'plan', 'sent', '429', 'Remaining', 'state'], [2, 3, 4]),
    ),
    panel(
      'Probes',
      '<p class="note" id="probes-empty">No probe is planned.</p>' +
        table('probes', ['plan', 'done', 'running', 'schedule left'], [1, 3]),
    ),
    panel(
      'Load phase',
      '<p id="phase">No load phase is running.</p><progress id="phase-progress" max="1" value="0"></progress>',
    ),
  ].join('');
}

export function renderLivePage(): string {
  const a = uplotAssets();
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${LIVE_CSP}">`,
    '<meta name="referrer" content="no-referrer">',
    '<link rel="icon" href="data:,">',
    '<title>petload live</title>',
    `<style>${a.css}</style>`,
    `<style>${PAGE_CSS}</style>`,
    '</head><body><main id="main">',
    '<div class="banner running" id="banner"><div class="verdict" id="run-state">STARTING</div>',
    '<div><h1 id="title">petload live</h1><div class="note" id="subtitle"></div></div></div>',
    '<section id="end-notice" hidden><p id="end-text"></p>',
    '<p>Report: <a id="report-link" href="report.html">report.html</a> <span class="note">written to <code id="report-file"></code></span></p></section>',
    `<div class="grid">${panels()}</div>`,
    '<p class="note" id="connection">Connecting…</p>',
    '</main>',
    `<script>${inlineScript(a.js)}</script>`,
    `<script>${inlineScript(PAGE_SCRIPT)}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
