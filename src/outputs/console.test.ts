import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { cutShortReport, SAMPLE_COUNTS, sampleReport } from '../testing/sample-report.js';
import { UNEXERCISED_LINE, renderConsoleSummary } from './console.js';

describe('renderConsoleSummary', () => {
  const report = sampleReport();
  const files = {
    json: '/tmp/r/report.json',
    junit: '/tmp/r/junit.xml',
    markdown: '/tmp/r/summary.md',
    html: '/tmp/r/report.html',
  };
  // Wide enough that no line wraps: the tests below read whole lines (wrapping has its own tests).
  const WIDE = 1000;
  const plain = renderConsoleSummary(report, { color: false, files, columns: WIDE });

  it('gives the verdict, the failed checks with first evidence and the warnings', () => {
    const lines = plain.split('\n');
    expect(lines[0]).toBe(`petload compliance: FAIL  ${SAMPLE_COUNTS.line}; 240 requests in 1 min 0 s`);
    const i = lines.indexOf(
      '  FAIL ratelimit.reset-is-timestamp (critical) 120 of 240 failed: free 120/120, pro 0/120',
    );
    expect(i).toBeGreaterThan(0);
    expect(lines[i + 1]).toMatch(
      /^ {6}\[free\] X-RateLimit-Reset \d+ looks like Unix milliseconds, not seconds \(\w+ \/pets\S* .*-> \d+\) key free#1 \(…abcd\)$/,
    );
    expect(plain).toContain('  WARN auth.challenge (minor) 1 of 1 failed');
    expect(plain).toContain('  SKIP needs two keys of the free plan; the keys file has one: ratelimit.key-isolation');
  });

  it('puts the plan table first, under the verdict: per plan and figure, sold, status, measured and the check', () => {
    const lines = plain.split('\n');
    expect(lines[1]).toMatch(/^ {2}target /);
    expect(lines[2]).toMatch(/^ {2}junit\.xml: /);
    expect(lines[3]).toBe('');
    expect(lines[4]).toBe('Plans: sold against measured');
    expect(lines[5]).toMatch(/^ {2}plan +figure +sold +status +measured +check$/);
    // Only what the run measured or judged is a row; the figures it does not judge are one line under the table.
    const rows = lines.slice(6, 9);
    expect(rows.map((l) => l.split(/ {2,}/).at(-1))).toEqual([
      'ratelimit.what-counts',
      'retry-after.honest',
      'ratelimit.what-counts',
    ]);
    expect(rows[1]).toMatch(
      / Retry-After +on every 429 +NOT MEASURED +waits 1–30 s; accuracy not measured \(not exercised: judged by the retry-after-honest probe, which this run did not run\) +retry-after\.honest$/,
    );
    expect(rows[2]).toMatch(/^ {2}pro +what counts +- +HELD +- +ratelimit\.what-counts$/);
    expect(lines[9]).toMatch(/^ {2}Not judged by this scenario: per-minute limit \(judged by the enforce probe, /);
    expect(lines[9]).toContain('ban (opt-in: run the ban-probe scenario with a key marked "sacrificial": true)');
    expect(lines[10]).toBe('');
    expect(lines[11]).toBe('Failed');
  });

  it('says once how the checks relate to the JUnit test cases', () => {
    expect(plain.split('\n')[2]).toBe(
      '  junit.xml: 52 test cases for these 48 checks: one per check and plan it was judged for, one per threshold',
    );
  });

  it('says which check failed a figure, and what it measured', () => {
    const r: Report = structuredClone(report);
    const enforced = r.checks.find((c) => c.id === 'ratelimit.enforced')!;
    enforced.status = 'fail';
    enforced.byPlan = [
      {
        plan: 'pro',
        status: 'fail',
        counts: { passed: 0, failed: 1, skipped: 0 },
        evidence: [{ message: '301 requests accepted within 2.0 s; the limit is 300 a minute' }],
        reasons: [],
        info: {},
      },
    ];
    const out = renderConsoleSummary(r, { color: false, columns: WIDE });
    expect(out).toMatch(
      /\n {2}pro +per-minute limit +300\/min +NOT HELD +301 requests accepted within 2\.0 s +ratelimit\.enforced\n/,
    );
  });

  it('has a latency table per operation, the thresholds and where the files are', () => {
    expect(plain).toMatch(/ {2}operation +count +p50 +p95 +p99 +max\n/);
    for (const op of report.operations) expect(plain).toMatch(new RegExp(`\\n  ${op.operation} +${op.count} `));
    expect(plain).toContain('  PASS p(95) < 250ms  observed 20.2 ms');
    expect(plain).toContain('  FAIL rate(429) < 1%  observed 25%');
    expect(plain).toContain('Reports in /tmp/r/: report.json, junit.xml, summary.md, report.html');
  });

  it('uses colour only when asked', () => {
    expect(plain).not.toContain('\x1b[');
    for (const columns of [80, 200]) {
      const coloured = renderConsoleSummary(report, { color: true, columns });
      expect(coloured).toContain('\x1b[31m');
      expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(renderConsoleSummary(report, { color: false, columns }));
    }
  });

  it("never sends a target's control characters to the terminal", () => {
    const r: Report = structuredClone(report);
    r.checks.find((c) => c.id === 'ratelimit.reset-is-timestamp')!.byPlan[0]!.evidence[0]!.message =
      'evil \x1b[2J\x07 text';
    const out = renderConsoleSummary(r, { color: false });
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(out).toContain('evil \\x1b[2J\\x07 text');
  });
});

describe('renderConsoleSummary skips', () => {
  it('gives the checks the run never called for one line and shortens its list; other skips say why', () => {
    const out = renderConsoleSummary(sampleReport(), { color: false, columns: 400 });
    const report = sampleReport();
    const skipped = report.checks.filter((c) => c.status === 'skip');
    const ids = skipped.filter((c) => c.byPlan[0]!.reasons[0]!.startsWith('not exercised: ')).map((c) => c.id);
    expect(ids.length).toBeGreaterThan(5);
    const line = out.split('\n').find((l) => l.includes(UNEXERCISED_LINE))!;
    expect(line).toBe(`  SKIP ${UNEXERCISED_LINE}: ${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more`);
    const other = skipped.find((c) => !c.byPlan[0]!.reasons[0]!.startsWith('not exercised: '))!;
    expect(out).toContain(`  SKIP ${other.byPlan[0]!.reasons[0]}: ${other.id}`);
  });
});

describe('renderConsoleSummary: a check cut short by an ended probe, with no owner failed', () => {
  it('is listed under its own heading as failing the run, with the plan and why the probe ended', () => {
    const reason = 'not judged: the probe ended early (its own time bound passed: 2 min 00 s of real time)';
    const { report: r, check: c } = cutShortReport(reason);
    const out = renderConsoleSummary(r, { color: false, columns: 400 });
    expect(out).toContain(
      `Not judged, and nothing failed for it: a probe ended early\n  FAIL ratelimit.quota-restored (critical) on free: ${reason}`,
    );
    // Without the mark, the same skip is an ordinary one.
    delete c.byPlan[0]!.cutShort;
    expect(renderConsoleSummary(r, { color: false, columns: 400 })).not.toContain('Not judged, and nothing failed');
  });
});

describe('renderConsoleSummary counts and keys', () => {
  it("gives a check's overall counts and every plan's, and they add up (as in summary.md)", () => {
    for (const seed of [1, 2, 3]) {
      const report = sampleReport({ seed });
      const out = renderConsoleSummary(report, { color: false, columns: 400 });
      const lines = out.split('\n').filter((l) => /^ {2}(FAIL|WARN) .* failed(: |$)/.test(l));
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) {
        const m =
          /^ {2}(?:FAIL|WARN) (.+?) \((?:critical|major|minor|advisory|info)\) (\d+) of (\d+) failed(?:: (.*))?$/.exec(
            line,
          )!;
        expect(m, line).not.toBeNull();
        const check = report.checks.find((c) => c.id === m[1])!;
        expect([Number(m[2]), Number(m[3])]).toEqual([check.counts.failed, check.counts.failed + check.counts.passed]);
        const parts = (m[4] ?? '')
          .split(', ')
          .filter(Boolean)
          .map((p) => /^\S+ (\d+)\/(\d+)$/.exec(p)!);
        if (parts.length > 0) {
          expect(parts.reduce((a, p) => a + Number(p[1]), 0)).toBe(check.counts.failed);
          expect(parts.reduce((a, p) => a + Number(p[2]), 0)).toBe(check.counts.failed + check.counts.passed);
        }
      }
    }
  });

  it('never cuts the key list in the middle of a label: whole keys, then "and N more"', () => {
    const report = sampleReport();
    const keys = Array.from({ length: 40 }, (_, i) => ({
      label: `staging-key-${i} (…${String(i).padStart(4, '0')})`,
      plan: 'free' as const,
      sacrificial: i === 0,
    }));
    const line = renderConsoleSummary({ ...report, keys }, { color: false, columns: 1000 }).split('\n')[1]!;
    const m = /; keys (.*) and (\d+) more$/.exec(line)!;
    const shown = m[1]!.split(/, (?=staging)/);
    expect(shown.length + Number(m[2])).toBe(40);
    for (const [i, entry] of shown.entries())
      expect(entry).toBe(`${keys[i]!.label} (free${i === 0 ? ', sacrificial' : ''})`);
    // A short list is shown whole.
    expect(renderConsoleSummary(report, { color: false, columns: 400 }).split('\n')[1]).toMatch(
      /; keys free#1 \(…abcd\) \(free\), pro#1 \(…wxyz\) \(pro\)$/,
    );
  });
});
