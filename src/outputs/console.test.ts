import { describe, expect, it } from 'vitest';
import type { Report } from '../engine/report-schema.js';
import { SAMPLE_COUNTS, sampleReport } from '../testing/sample-report.js';
import { renderConsoleSummary } from './console.js';

describe('renderConsoleSummary', () => {
  const report = sampleReport();
  const files = { json: '/tmp/r/report.json', junit: '/tmp/r/junit.xml', markdown: '/tmp/r/summary.md', html: '/tmp/r/report.html' };
  const plain = renderConsoleSummary(report, { color: false, files });

  it('gives the verdict, the failed checks with first evidence and the warnings', () => {
    const lines = plain.split('\n');
    expect(lines[0]).toBe(`petload compliance: FAIL  ${SAMPLE_COUNTS.line}; 240 requests in 1 min 0 s`);
    const i = lines.indexOf('  FAIL ratelimit.reset-is-timestamp [free] (critical) 120 of 120 failed');
    expect(i).toBeGreaterThan(0);
    expect(lines[i + 1]).toMatch(/^ {6}X-RateLimit-Reset \d+ looks like Unix milliseconds, not seconds \(\w+ \/pets\S* .*-> \d+\) key free#1 \(…abcd\)$/);
    expect(plain).toContain('  WARN auth.challenge (minor) 1 of 1 failed');
    expect(plain).toContain('  SKIP needs two keys of the free plan; the keys file has one: ratelimit.key-isolation');
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
    const coloured = renderConsoleSummary(report, { color: true });
    expect(coloured).toContain('\x1b[31m');
    expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(renderConsoleSummary(report, { color: false }));
  });

  it('never sends a target\'s control characters to the terminal', () => {
    const r: Report = structuredClone(report);
    r.checks.find((c) => c.id === 'ratelimit.reset-is-timestamp')!.byPlan[0]!.evidence[0]!.message = 'evil \x1b[2J\x07 text';
    const out = renderConsoleSummary(r, { color: false });
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(out).toContain('evil \\x1b[2J\\x07 text');
  });
});

describe('renderConsoleSummary skips', () => {
  it('says a common skip reason once and shortens its list of checks', () => {
    const out = renderConsoleSummary(sampleReport(), { color: false });
    const report = sampleReport();
    const reason = 'not exercised by scenario compliance: no response it applies to';
    const ids = report.checks.filter((c) => c.status === 'skip' && c.byPlan[0]!.reasons[0] === reason).map((c) => c.id);
    expect(ids.length).toBeGreaterThan(5);
    const line = out.split('\n').find((l) => l.includes(reason))!;
    expect(line).toBe(`  SKIP ${reason}: ${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more`);
  });
});
