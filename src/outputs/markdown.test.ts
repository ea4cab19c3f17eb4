import { describe, expect, it } from 'vitest';
import type { Report } from '../engine/report-schema.js';
import { SAMPLE_COUNTS, sampleReport } from '../testing/sample-report.js';
import { mdText, renderMarkdown } from './markdown.js';

describe('renderMarkdown', () => {
  const report = sampleReport();
  const md = renderMarkdown(report);

  it('starts with the verdict and the counts, without emoji', () => {
    const lines = md.split('\n');
    expect(lines[0]).toBe('## petload compliance: FAIL');
    expect(lines[2]).toBe(`**FAIL**: ${SAMPLE_COUNTS.line}. 240 requests in 1 min 0 s (4.0/s).`);
    expect(md).not.toMatch(/\p{Extended_Pictographic}/u);
  });

  it('names the target, plans and key labels', () => {
    expect(md).toContain('- Target: http://127.0.0.1:45678/v1 (embedded, time x60; faults: reset-in-ms;');
    expect(md).toContain('- Plans: free, pro');
    expect(md).toContain('free#1 (…abcd) (free)');
  });

  it('lists failed checks with their first evidence, warnings and skips', () => {
    const failed = md.slice(md.indexOf('### Failed'), md.indexOf('### Warnings'));
    expect(failed).toMatch(/\| `ratelimit\.reset-is-timestamp` \| critical \| free \| 120\/240 \| X-RateLimit-Reset \d+ looks like Unix milliseconds/);
    const warnings = md.slice(md.indexOf('### Warnings'), md.indexOf('### Skipped'));
    expect(warnings).toContain('| `auth.challenge` | minor |');
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
    r.checks.find((c) => c.id === 'ratelimit.reset-is-timestamp')!.byPlan[0]!.evidence[0]!.message = 'a | b\n<img src=x> *bold* [link](http://x)';
    const row = renderMarkdown(r).split('\n').find((l) => l.startsWith('| `ratelimit.reset-is-timestamp`'))!;
    expect(row).toContain('a \\| b \\<img src=x\\> \\*bold\\* \\[link\\](http://x)');
    expect(row.split(/(?<!\\)\|/).length).toBe(7);
    expect(mdText('x'.repeat(300)).length).toBe(241);
  });

  it('says why a run was aborted', () => {
    const r: Report = { ...report, verdict: 'aborted', exitCode: 3, abortReason: 'every key is suspected banned' };
    const text = renderMarkdown(r);
    expect(text.split('\n')[0]).toBe('## petload compliance: ABORTED');
    expect(text).toContain('Aborted: every key is suspected banned');
  });
});
