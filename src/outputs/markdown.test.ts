import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { SAMPLE_COUNTS, sampleReport } from '../testing/sample-report.js';
import { mdText, renderMarkdown } from './markdown.js';

describe('renderMarkdown', () => {
  const report = sampleReport();
  const md = renderMarkdown(report);

  it('starts with the verdict and the counts, without emoji', () => {
    const lines = md.split('\n');
    expect(lines[0]).toBe('## petload compliance: FAIL');
    expect(lines[2]).toBe(`**FAIL**: ${SAMPLE_COUNTS.line}. 240 requests in 1 min 0 s (4.0/s per real second).`);
    expect(md).not.toMatch(/\p{Extended_Pictographic}/u);
  });

  it('puts the plan table first, under the verdict: per plan and figure, sold, measured, status and the check', () => {
    const lines = md.split('\n');
    expect(lines.slice(4, 8)).toEqual([
      '### Plans: sold against measured',
      '',
      '| plan | figure | sold | measured | status | check |',
      '| --- | --- | --- | --- | --- | --- |',
    ]);
    const rows = lines.slice(8, 20);
    expect(rows.map((l) => l.split(' | ')[0])).toEqual([
      '| free',
      ...Array(5).fill('| '),
      '| pro',
      ...Array(5).fill('| '),
    ]);
    expect(rows[0]).toBe(
      '| free | per-minute limit | 60/min | (not exercised: judged by the enforce probe, which this run did not run) | not measured | `ratelimit.enforced` |',
    );
    expect(rows[4]).toMatch(
      /^\| {2}\| Retry-After \| on every 429 \| waits 1–30 s; accuracy not measured \(not exercised: /,
    );
    expect(rows[9]).toBe('|  | what counts | - | - | held | `ratelimit.what-counts` |');
    expect(lines[20]).toBe('');
    expect(lines[21]).toMatch(/^- Target: /);
    expect(md.indexOf('### Plans')).toBeLessThan(md.indexOf('### Failed'));
  });

  it('marks a figure not held in bold, with what the failed check measured', () => {
    const r: Report = structuredClone(report);
    const enforced = r.checks.find((c) => c.id === 'ratelimit.enforced')!;
    enforced.status = 'fail';
    enforced.byPlan = [
      {
        plan: 'free',
        status: 'fail',
        counts: { passed: 0, failed: 1, skipped: 0 },
        evidence: [{ message: '61 requests | accepted within 2 s; the limit is 60 a minute' }],
        reasons: [],
        info: {},
      },
    ];
    expect(renderMarkdown(r)).toContain(
      '| free | per-minute limit | 60/min | 61 requests \\| accepted within 2 s | **not held** | `ratelimit.enforced` |',
    );
  });

  it('shows the table of a report without one (older, or merged), with the figures sold from its notes', () => {
    const { planTable: _, ...withoutTable } = report;
    // A report of this version reads its figures from `keys[].limits`, without its notes.
    expect(
      renderMarkdown({ ...withoutTable, notes: [] })
        .split('\n')
        .slice(8, 20),
    ).toEqual(md.split('\n').slice(8, 20));
    const older = { ...withoutTable, keys: report.keys.map(({ limits: _l, ...k }) => k) };
    const figures = `Figures judged: ${report.keys[0]!.label} 60/min, 1000/day; ${report.keys[1]!.label} 300/min, 10000/day.`;
    const text = renderMarkdown({ ...older, notes: [figures] });
    expect(text.indexOf('### Plans: sold against measured')).toBeGreaterThan(0);
    expect(text.split('\n').slice(8, 20)).toEqual(md.split('\n').slice(8, 20));
    // Without the note the figures sold are unknown.
    expect(renderMarkdown(older)).toContain('| free | per-minute limit | - | ');
  });

  it('names the target, plans and key labels', () => {
    expect(md).toContain('- Target: http://127.0.0.1:45678/v1 (embedded, time x60; faults: reset-in-ms;');
    expect(md).toContain('- Plans: free, pro');
    expect(md).toContain('free#1 (…abcd) (free)');
  });

  it('lists failed checks with their first evidence, warnings and skips', () => {
    const failed = md.slice(md.indexOf('### Failed'), md.indexOf('### Warnings'));
    // Overall 120 of 240, and per plan, adding up to it: the free key's 120 all failed, the pro key's 120 passed.
    expect(failed).toMatch(
      /\| `ratelimit\.reset-is-timestamp` \| critical \| 120\/240 \| free 120\/120, pro 0\/120 \| X-RateLimit-Reset \d+ looks like Unix milliseconds/,
    );
    const warnings = md.slice(md.indexOf('### Warnings'), md.indexOf('### Skipped'));
    expect(warnings).toContain('| `auth.challenge` | minor | 1/1 | - |');
    expect(md).toContain('| needs two keys of the free plan; the keys file has one | `ratelimit.key-isolation` |');
  });

  it('has a latency row per operation and a row per threshold', () => {
    for (const op of report.operations) {
      const l = op.latency;
      expect(md).toMatch(new RegExp(`\\| ${op.operation} \\| ${op.count} \\| ${l.p50.toFixed(1)} \\|`));
    }
    expect(md).toContain('| `p(95) < 250ms` | 20.2 ms | PASS |');
    expect(md).toContain('| `rate(429) < 1%` | 25% | FAIL |');
  });

  it('keeps evidence from breaking the table or injecting markup', () => {
    const r: Report = structuredClone(report);
    r.checks.find((c) => c.id === 'ratelimit.reset-is-timestamp')!.byPlan[0]!.evidence[0]!.message =
      'a | b\n<img src=x> *bold* [link](http://x)';
    const row = renderMarkdown(r)
      .split('\n')
      .find((l) => l.startsWith('| `ratelimit.reset-is-timestamp`'))!;
    expect(row).toContain('a \\| b \\<img src=x\\> \\*bold\\* \\[link\\](http://x)');
    expect(row.split(/(?<!\\)\|/).length).toBe(7);
    expect(mdText('x'.repeat(300)).length).toBe(241);
  });

  it('never cuts the key list in the middle of a label: whole keys, then "and N more"', () => {
    const keys = Array.from({ length: 60 }, (_, i) => ({
      label: `a-rather-long-key-label-${i} (…${String(i).padStart(4, '0')})`,
      plan: 'pro' as const,
      sacrificial: false,
    }));
    const line = renderMarkdown({ ...report, keys })
      .split('\n')
      .find((l) => l.startsWith('- Keys: '))!;
    const m = /^- Keys: (.*) and (\d+) more$/.exec(line)!;
    const shown = m[1]!.split(', ');
    expect(shown.length + Number(m[2])).toBe(60);
    for (const [i, entry] of shown.entries()) expect(entry).toBe(`${mdText(keys[i]!.label)} (pro)`);
  });

  it('says why a run was aborted', () => {
    const r: Report = { ...report, verdict: 'aborted', exitCode: 3, abortReason: 'every key is suspected banned' };
    const text = renderMarkdown(r);
    expect(text.split('\n')[0]).toBe('## petload compliance: ABORTED');
    expect(text).toContain('Aborted: every key is suspected banned');
  });
});
