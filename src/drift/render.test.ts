import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { sampleReport } from '../testing/sample-report.js';
import { compareReports } from './compare.js';
import { compareConsole } from './console.js';
import { compareHtml } from './html.js';
import { compareMarkdown } from './markdown.js';
import { logNormal, withLatencies } from '../testing/drift-histograms.js';

const BASE = logNormal(3000, 4000, 0.4, 21);
const HOSTILE = 'Limit <script>alert(1)</script> | `x` \u001b[31m & more';

function run(micros: readonly number[], edit: (r: Report) => void = () => {}): Report {
  const r = withLatencies(sampleReport(), 'listPets', micros);
  edit(r);
  return r;
}

/** A regression of listPets, and a critical check newly failing with a hostile message. */
function regressed() {
  const before = run(BASE);
  const after = run(
    BASE.map((v) => v + 80_000),
    (r) => {
      const c = r.checks.find((x) => x.id === 'ratelimit.headers-present')!;
      c.status = 'fail';
      const o = c.byPlan.find((p) => p.plan === 'pro')!;
      Object.assign(o, {
        status: 'fail',
        counts: { passed: 3, failed: 1, skipped: 0 },
        evidence: [{ message: HOSTILE }],
      });
    },
  );
  return compareReports(before, after);
}

describe('compareMarkdown', () => {
  it('opens with the verdict and the table of drifts, regressions first, then the rest', () => {
    const md = compareMarkdown(regressed());
    expect(md.split('\n')[0]).toBe('## petload compare compliance: REGRESSED');
    const drifts = md.indexOf('### Drifts');
    expect(drifts).toBeGreaterThan(0);
    for (const later of ['### Checks', '### Rate-limit contract per plan', '### Latency and throughput per operation'])
      expect(md.indexOf(later)).toBeGreaterThan(drifts);
    const rows = md
      .slice(drifts)
      .split('\n')
      .filter((l) => l.startsWith('| **'));
    expect(rows[0]).toMatch(
      /^\| \*\*REGRESSION\*\* \| `ratelimit.headers-present \[pro\]` \| pass \| fail \| critical: /,
    );
    expect(rows[1]).toMatch(/^\| \*\*REGRESSION\*\* \| `listPets p99` \|/);
  });

  it('escapes what a target sent: no raw HTML, no pipe that breaks the table, no terminal escape', () => {
    const md = compareMarkdown(regressed());
    expect(md).not.toContain('<script>');
    expect(md).toContain('\\<script\\>');
    const row = md.split('\n').find((l) => l.includes('headers-present [pro]'))!;
    // Every pipe of the row is a cell border or escaped.
    expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(7);
    expect(md).not.toContain('\u001b');
  });

  it('says so when nothing drifted', () => {
    const r = run(BASE);
    const md = compareMarkdown(compareReports(r, r));
    expect(md).toContain('## petload compare compliance: NO REGRESSION');
    expect(md).toContain('Nothing drifted');
  });
});

describe('compareHtml', () => {
  it('is one self-contained page: the CSP, uPlot inlined, nothing fetched, every text escaped', () => {
    const html = compareHtml(regressed());
    expect(html).toContain('<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;');
    expect(html).toContain('uPlot');
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('id="verdict">REGRESSED<');
  });

  it('puts the drifts first and embeds each operation baseline and current curve', () => {
    const html = compareHtml(regressed());
    expect(html.indexOf('id="drifts-title"')).toBeLessThan(html.indexOf('id="charts-title"'));
    const data = JSON.parse(/<script type="application\/json" id="petload-data">(.*?)<\/script>/s.exec(html)![1]!);
    const list = data.charts.find((c: { id: string }) => c.id === 'chart-op-0');
    expect(list.series.map((s: { label: string }) => s.label)).toEqual(['baseline', 'current']);
    expect(list.x).toHaveLength(list.series[0].values.length);
    // +80 ms on every request: the current curve lies above the baseline one everywhere.
    for (const [i, v] of (list.series[1].values as number[]).entries())
      expect(v).toBeGreaterThan(list.series[0].values[i]);
  });
});

describe('compareConsole', () => {
  it('prints a few plain lines: verdict, runs, drifts, counts', () => {
    const text = compareConsole(regressed());
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'petload compare compliance: REGRESSED: 1 newly failing critical or major check, 1 latency regression',
    );
    expect(lines.some((l) => l.startsWith('  REGRESSION ratelimit.headers-present [pro]: pass -> fail'))).toBe(true);
    expect(lines.some((l) => l.startsWith('  REGRESSION listPets p99: '))).toBe(true);
    expect(text).not.toContain('\u001b');
    expect(text).toContain('\\x1b[31m');
    expect(compareConsole(regressed(), { color: true })).toContain('\u001b[31mREGRESSION\u001b[0m');
  });

  it('keeps to maxDrifts and counts the rest', () => {
    const text = compareConsole(regressed(), { maxDrifts: 1 });
    expect(text).toMatch(/and \d+ more drifts in compare.md and compare.html/);
  });
});
