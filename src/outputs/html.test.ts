import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { createHistogram, encodeHistogram, percentile, record } from '../metrics/histogram.js';
import { cutShortReport, SAMPLE_COUNTS, sampleReport } from '../testing/sample-report.js';
import { escapeText, visibleControls } from './escape.js';
import { checkRowId, renderHtml } from './html.js';
import { inlineJson } from './page-parts.js';
import { chartData, PERCENTILE_LADDER, spectrumX } from './html-charts.js';

function embeddedData(html: string): unknown {
  const m = /<script type="application\/json" id="petload-data">([^<]*)<\/script>/.exec(html);
  if (!m) throw new Error('no embedded data');
  return JSON.parse(m[1]!);
}

function emptyReport(): Report {
  const r = sampleReport();
  return {
    ...r,
    operations: [],
    timeline: { bucketMs: 1000, buckets: [] },
    keyTimelines: [],
    thresholds: [],
    totals: { requests: 0, dropped: 0, transportErrors: 0, statusCounts: {}, rps: 0 },
  };
}

describe('control characters a target sent', () => {
  it('are shown as \\x{..} in text and attributes, and escaped in the embedded JSON: never raw', () => {
    expect(escapeText('a\x1bb\x85c\x9bd\x7fe\u00a0f')).toBe('a\\x{1b}b\\x{85}c\\x{9b}d\\x{7f}e\u00a0f');
    expect(inlineJson({ s: '\x85\x9b\u2028<' })).toBe('{"s":"\\u0085\\u009b\\u2028\\u003c"}');
    expect(JSON.parse(inlineJson({ s: '\x85\x9b\u2028<' }))).toEqual({ s: '\x85\x9b\u2028<' });
    expect(visibleControls('a\tb\nc\x1b[31md\x9be\r')).toBe('a\tb\nc\\x{1b}[31md\\x{9b}e\\x{d}');
  });
});

describe('renderHtml', () => {
  const report = sampleReport();
  const html = renderHtml(report);

  it('is one self-contained file: no external script, style, image or link, and a CSP that forbids fetching', () => {
    expect(html).not.toMatch(/<(script|img|iframe)[^>]+src=/i);
    expect(html).not.toMatch(/<link\b/i);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1]?.replace(/&#39;/g, "'");
    expect(csp).toBe("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:");
    expect(html).toContain('uPlot');
    expect(html.match(/<script>/g)?.length).toBe(2);
  });

  it('shows the verdict, counts and every check per plan', () => {
    expect(html).toContain('<div class="verdict" id="verdict">FAIL</div>');
    expect(html).toContain(`<div class="counts" id="counts">${SAMPLE_COUNTS.line}</div>`);
    const rows = html.match(/<tr data-status="/g)?.length;
    expect(rows).toBe(report.checks.reduce((n, c) => n + c.byPlan.length, 0));
    expect(html).toContain('<code>ratelimit.reset-is-timestamp [free]</code>');
  });

  it('embeds chart data with < escaped, and a container per chart', () => {
    const data = embeddedData(html) as ReturnType<typeof chartData>;
    expect(data).toEqual(JSON.parse(JSON.stringify(chartData(report))));
    for (const id of ['chart-latency', 'chart-rate', 'chart-status', 'chart-key-0', 'chart-key-1'])
      expect(html).toMatch(new RegExp(`<div class="chart( key)?" id="${id}">`));
  });

  it('puts the failures and the charts before the check table, which is collapsible', () => {
    const at = (text: string) => html.indexOf(text);
    expect(at('id="failures"')).toBeGreaterThan(at('id="verdict"'));
    expect(at('id="chart-latency"')).toBeGreaterThan(at('id="failures"'));
    expect(at('<details class="checks" id="checks-section">')).toBeGreaterThan(at('id="chart-key-1"'));
    expect(at('<table class="data" id="checks">')).toBeGreaterThan(at('<details class="checks" id="checks-section">'));
    // Failed rows first, then warnings, each named with its plan.
    const failures = /<ul class="failures" id="failures">(.*?)<\/ul>/.exec(html)![1]!;
    expect([...failures.matchAll(/<code>([^<]*)<\/code>/g)].map((m) => m[1])).toEqual([
      'ratelimit.reset-is-timestamp [free]',
      'threshold.rate(429) &lt; 1%',
      'auth.challenge',
    ]);
  });

  it('puts the plan table first under the verdict: a row per figure, sold and measured per plan', () => {
    const at = (text: string) => html.indexOf(text);
    expect(at('<h2 id="plans-title">')).toBeGreaterThan(at('id="verdict"'));
    expect(at('<h2 id="plans-title">')).toBeLessThan(at('id="failures"'));
    expect(html).toContain('<nav><a href="#plans-title">Plans</a>');
    const table = /<table class="data" id="plan-table">(.*?)<\/table>/.exec(html)![1]!;
    expect([...table.matchAll(/<tr data-figure="([^"]*)">/g)].map((m) => m[1])).toEqual([
      'per-minute limit',
      'per-day limit',
      'algorithm',
      'what counts',
      'Retry-After',
      'ban',
    ]);
    expect(table).toContain('<th class="sold">free: sold</th><th>free: measured</th>');
    expect(table).toContain('<td class="sold">60/min</td>');
    expect(table).toContain('<td class="sold">300/min</td>');
  });

  it("links each cell's status to the row of the check that judged it, with the reason in its title", () => {
    const links = [...html.matchAll(/<a href="#([^"]+)" data-check="([^"]+)"><span class="cell-status/g)];
    expect(links).toHaveLength(12);
    for (const [, target, id] of links) {
      expect(target!.startsWith(`check_${id}_`)).toBe(true);
      expect(html).toMatch(new RegExp(`<tr data-status="\\w+" id="${target!.replace(/\./g, '\\.')}">`));
    }
    // what counts [pro] was held; the ban probe was never run: its reason is the cell's title.
    expect(html).toContain(
      '<a href="#check_ratelimit.what-counts_pro" data-check="ratelimit.what-counts"><span class="cell-status held">held</span></a>',
    );
    expect(html).toMatch(
      /<td class="cell not-measured" title="not exercised: opt-in: run the ban-probe scenario[^"]*&#10;judged by ban\.probe">/,
    );
  });

  it('marks a figure not held with the failed check and its evidence, escaped', () => {
    const r: Report = structuredClone(report);
    const enforced = r.checks.find((c) => c.id === 'ratelimit.enforced')!;
    enforced.status = 'fail';
    enforced.byPlan = [
      {
        plan: 'free',
        status: 'fail',
        counts: { passed: 0, failed: 1, skipped: 0 },
        evidence: [{ message: '<b>61</b> requests accepted within 2 s; the limit is 60 a minute' }],
        reasons: [],
        info: {},
      },
    ];
    const out = renderHtml(r);
    expect(out).toContain(
      '<a href="#check_ratelimit.enforced_free" data-check="ratelimit.enforced"><span class="cell-status not-held">not held</span></a> <span class="measured">&lt;b&gt;61&lt;/b&gt; requests accepted within 2 s</span>',
    );
    expect(out).toContain('<tr data-status="fail" id="check_ratelimit.enforced_free">');
  });

  it('names a check the report lacks without linking to it', () => {
    const r: Report = { ...report, checks: report.checks.filter((c) => c.id !== 'ratelimit.day-enforced') };
    expect(renderHtml(r)).toContain(
      '<td class="cell not-measured" title="no outcome of ratelimit.day-enforced in this report&#10;judged by ratelimit.day-enforced"><div class="clamp"><span class="cell-status not-measured">not measured</span> ',
    );
  });

  it('gives every check row an id of its own, threshold expressions included', () => {
    const ids = [...html.matchAll(/<tr data-status="\w+" id="([^"]+)">/g)].map((m) => m[1]);
    expect(ids).toHaveLength(report.checks.reduce((n, c) => n + c.byPlan.length, 0));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^check_[A-Za-z0-9._-]+$/);
    expect(checkRowId('threshold.p(95) < 250ms', null)).toBe('check_threshold.p_28_95_29__20__3c__20_250ms_noplan');
    expect(checkRowId('a_b', 'free')).not.toBe(checkRowId('a', 'b_free' as never));
  });

  it('lists at most six failures at the top and points to the table for the rest', () => {
    const r: Report = structuredClone(report);
    const failed = r.checks.find((c) => c.status === 'fail')!;
    r.checks.push(...Array.from({ length: 8 }, (_, i) => ({ ...failed, id: `${failed.id}-${i}` })));
    const out = renderHtml(r);
    const failures = /<ul class="failures" id="failures">(.*?)<\/ul>/.exec(out)![1]!;
    expect(failures.match(/<li>/g)).toHaveLength(6);
    expect(out).toContain('and 5 more in <a href="#checks-section">All checks</a>.');
  });

  it('escapes every text from the report', () => {
    const r: Report = structuredClone(report);
    const evil = '</script><script>alert(1)</script><img src=x onerror=alert(2)>';
    r.checks[0]!.byPlan[0]!.evidence = [{ message: evil }];
    r.scenario.name = evil;
    r.notes = [evil];
    r.keyTimelines[0]!.key = evil;
    const out = renderHtml(r);
    expect(out).not.toContain('<img src=x');
    expect(out.match(/<script>/g)?.length).toBe(2);
    expect(out).toContain('&lt;/script&gt;&lt;script&gt;alert(1)');
    expect((embeddedData(out) as ReturnType<typeof chartData>).keys[0]!.key).toBe(evil);
  });

  it('says so instead of drawing when there is no data', () => {
    const out = renderHtml(emptyReport());
    expect(out).not.toContain('class="chart"');
    expect(out).toContain('No latency was recorded in this run.');
    expect(out).toContain('No traffic timeline was recorded in this run.');
    expect(out).toContain('No rate-limit headers were recorded per key in this run.');
  });
});

describe('chartData', () => {
  it('puts the percentile spectrum of each operation on a log axis, from the histograms', () => {
    const h = createHistogram();
    for (let i = 1; i <= 1000; i++) record(h, i * 100);
    const report: Report = {
      ...sampleReport(),
      operations: [{ ...sampleReport().operations[0]!, histograms: { all: encodeHistogram(h) } }],
    };
    const lat = chartData(report).latency!;
    expect(lat.x).toEqual(PERCENTILE_LADDER.map(spectrumX));
    expect(lat.series[0]!.values).toEqual(PERCENTILE_LADDER.map((p) => percentile(h, p)));
    expect(lat.series[0]!.values.at(-1)).toBeCloseTo(100, 0);
    expect([spectrumX(0), spectrumX(90), spectrumX(99.9), spectrumX(100)].map((x) => Math.round(x))).toEqual([
      1, 10, 1000, 1e6,
    ]);
  });

  it('marks each 429 of a key on the time axis with its Remaining samples', () => {
    const report = sampleReport();
    const free = report.keyTimelines.find((k) => k.plan === 'free')!;
    const chart = chartData(report).keys.find((k) => k.plan === 'free')!;
    expect(chart.refusals).toBe(free.refusals.length);
    expect(chart.refused.filter((v) => v === 0).length).toBe(new Set(free.refusals.map((r) => r[0])).size);
    expect(chart.t).toEqual([...chart.t].sort((a, b) => a - b));
    expect(chart.remaining.filter((v) => v !== null).length).toBe(new Set(free.remaining.map((r) => r[0])).size);
  });
});

describe('renderHtml: a check cut short by an ended probe, with no owner failed', () => {
  it('has a section of its own under the failures, with the plan and why the probe ended, linking to its row', () => {
    const reason = 'not judged: the probe ended early (its own time bound passed: 2 min 00 s of real time) <&>';
    const { report: r, check: c } = cutShortReport(reason);
    const html = renderHtml(r);
    const section = /<h2 id="cut-short-title">([^<]*)<\/h2><ul class="failures" id="cut-short">(.*?)<\/ul>/.exec(html);
    expect(section).not.toBeNull();
    expect(section![1]).toBe('Not judged, and nothing failed for it: a probe ended early');
    const row = checkRowId('ratelimit.quota-restored', 'free');
    expect(section![2]).toContain(`<a href="#${row}"><code>ratelimit.quota-restored</code></a>`);
    expect(section![2]).toContain(`ratelimit.quota-restored (critical) on free: ${escapeText(reason)}`);
    expect(html).toContain(`id="${row}"`);
    expect(html).toContain('<a href="#cut-short-title">Not judged</a>');
    // Under the failures, before the charts.
    expect(html.indexOf('id="failures-title"')).toBeLessThan(html.indexOf('id="cut-short-title"'));
    expect(html.indexOf('id="cut-short-title"')).toBeLessThan(html.indexOf('id="charts-title"'));
    // Without the mark, the same skip is an ordinary one: no section.
    delete c.byPlan[0]!.cutShort;
    const plain = renderHtml(r);
    expect(plain).not.toContain('cut-short');
    expect(plain).not.toContain('Not judged, and nothing failed');
  });
});
