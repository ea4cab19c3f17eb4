import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { sampleReport } from '../testing/sample-report.js';
import { findReports, type ReportFile, trend } from './trend.js';
import { trendHtml } from './trend-html.js';

const base = sampleReport();

function variant(startedAt: string, edit: (r: Report) => void = () => {}): string {
  const r = structuredClone(base);
  r.startedAt = startedAt;
  edit(r);
  return JSON.stringify(r);
}

const files: ReportFile[] = [
  { path: 'runs/c/report.json', text: variant('2030-01-03T00:00:00.000Z') },
  {
    path: 'runs/a/report.json',
    text: variant('2030-01-01T00:00:00.000Z', (r) => {
      const c = r.checks.find((x) => x.id === 'auth.challenge')!;
      c.status = 'pass';
      for (const o of c.byPlan) o.status = 'pass';
    }),
  },
  { path: 'runs/b/report.json', text: variant('2030-01-02T00:00:00.000Z') },
  {
    path: 'other/report.json',
    text: variant('2030-01-01T00:00:00.000Z', (r) => {
      r.scenario.name = 'at-limit';
    }),
  },
  { path: 'broken/report.json', text: '{"schemaVersion": 1, "tool": ' },
  { path: 'foreign/report.json', text: JSON.stringify({ name: 'some other tool', results: [] }) },
  {
    path: 'future/report.json',
    text: variant('2030-01-05T00:00:00.000Z', (r) => Object.assign(r, { schemaVersion: 2 })),
  },
  { path: 'invalid/report.json', text: JSON.stringify({ ...base, verdict: 'maybe' }) },
  { path: 'gone/report.json', text: null, error: 'EACCES' },
];

describe('trend', () => {
  const t = trend(files);

  it('groups the reports by scenario and target, each group in start order', () => {
    expect(t.groups.map((g) => [g.key, g.runs.map((r) => r.path)])).toEqual([
      ['at-limit @ embedded', ['other/report.json']],
      ['compliance @ embedded', ['runs/a/report.json', 'runs/b/report.json', 'runs/c/report.json']],
    ]);
  });

  it('lists every unreadable, foreign, future or invalid file with why, and goes on', () => {
    expect(t.skipped.map((s) => s.path)).toEqual([
      'broken/report.json',
      'foreign/report.json',
      'future/report.json',
      'invalid/report.json',
      'gone/report.json',
    ]);
    const why = Object.fromEntries(t.skipped.map((s) => [s.path, s.reason]));
    expect(why['broken/report.json']).toMatch(/^not JSON/);
    expect(why['foreign/report.json']).toMatch(/^not a petload report.json/);
    expect(why['future/report.json']).toMatch(
      /^written by a newer petload \(.*report schema 2; this one reads schema 1\)$/,
    );
    expect(why['invalid/report.json']).toMatch(/^not a valid petload report .*verdict/);
    expect(why['gone/report.json']).toBe('cannot be read (EACCES)');
  });

  it("gives each check's status per plan over the runs, the latency and the Limit values", () => {
    const g = t.groups[1]!;
    const challenge = g.checks.find((c) => c.id === 'auth.challenge')!;
    expect(challenge.statuses).toEqual(['pass', 'fail', 'fail']);
    const list = g.operations.find((o) => o.operation === 'listPets')!;
    expect(list.p99).toEqual([
      base.operations[0]!.latency.p99,
      base.operations[0]!.latency.p99,
      base.operations[0]!.latency.p99,
    ]);
    expect(g.limits.map((l) => [l.plan, l.seen[0]])).toEqual([
      ['free', [60]],
      ['pro', [300]],
    ]);
  });

  it('puts it all on one self-contained page, the skipped files listed', () => {
    const html = trendHtml(t);
    expect(html).toContain('<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;');
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).toContain('id="skipped"');
    expect(html).toContain('<code>future/report.json</code>: written by a newer petload');
    expect(html).toContain('4 runs of 2 scenario and target pairs; 5 files skipped');
    const data = JSON.parse(/<script type="application\/json" id="petload-data">(.*?)<\/script>/s.exec(html)![1]!);
    const latency = data.charts.find((c: { id: string }) => c.id === 'trend-latency-1');
    expect(latency.x).toHaveLength(3);
    expect(latency.series.map((s: { label: string }) => s.label)).toContain('listPets p99');
    expect(data.charts.find((c: { id: string }) => c.id === 'trend-limits-1').series).toHaveLength(2);
    // auth.challenge changed status: it is in the strip shown first, with a cell per run.
    const strip = /<table class="strip" id="checks-1">(.*?)<\/table>/s.exec(html)![1]!;
    expect(strip).toContain('auth.challenge');
    expect(strip.match(/class="cell pass"/g)?.length).toBeGreaterThan(0);
  });

  it('makes an empty page of nothing', () => {
    expect(trendHtml(trend([]))).toContain('No report to show.');
  });
});

describe('findReports', () => {
  const root = mkdtempSync(join(tmpdir(), 'petload-trend-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('walks folders for report.json files, leaves dependencies out, and reports what it cannot read', async () => {
    for (const d of ['a', 'b/deep', 'node_modules/x', 'locked']) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, 'a', 'report.json'), '{"a":1}');
    writeFileSync(join(root, 'b', 'deep', 'report.json'), '{"b":1}');
    writeFileSync(join(root, 'b', 'summary.md'), '#');
    writeFileSync(join(root, 'node_modules', 'x', 'report.json'), '{}');
    writeFileSync(join(root, 'single.json'), '{"s":1}');
    writeFileSync(join(root, 'locked', 'report.json'), '{}');
    chmodSync(join(root, 'locked', 'report.json'), 0o000);
    const found = await findReports([root, join(root, 'single.json'), join(root, 'missing')]);
    const byPath = Object.fromEntries(found.map((f) => [f.path.slice(root.length + 1) || f.path, f]));
    expect(Object.keys(byPath)).toEqual([
      'a/report.json',
      'b/deep/report.json',
      'locked/report.json',
      'single.json',
      'missing',
    ]);
    expect(byPath['a/report.json']!.text).toBe('{"a":1}');
    expect(byPath.missing).toMatchObject({ text: null, error: 'ENOENT' });
    // Root may read any file: the locked one is then read like the others.
    const locked = byPath['locked/report.json']!;
    expect(locked.text === '{}' || locked.error === 'EACCES').toBe(true);
  });
});

describe('trend: latency of one traffic class', () => {
  it("charts the newest run's class and leaves out runs of another, counted and said", () => {
    const page = trend([
      { path: 'old/report.json', text: variant('2030-01-01T00:00:00.000Z', (r) => delete r.traffic) },
      { path: 'new/report.json', text: variant('2030-01-02T00:00:00.000Z') },
    ]);
    const [g] = page.groups;
    expect(g!.latencyTraffic).toEqual({ measured: 'load', leftOut: 1 });
    for (const op of g!.operations) expect(op.p99[0]).toBeNull();
    expect(g!.operations[0]!.p99[1]).not.toBeNull();
    expect(trendHtml(page)).toContain('Of the load&#39;s requests; 1 run(s) of another traffic class left out');
  });
});
