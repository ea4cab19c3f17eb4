import { describe, expect, it } from 'vitest';
import { parseThreshold } from '../checks/thresholds.js';
import { evaluateThreshold } from '../checks/threshold-eval.js';
import { type Report, ReportSchema } from '../report/schema.js';
import { isPetloadError } from '../core/errors.js';
import {
  createHistogram,
  decodeHistogram,
  type Histogram,
  percentile,
  record,
  summarize,
} from '../metrics/histogram.js';
import { SAMPLE_COUNTS, sampleRun } from '../testing/sample-report.js';
import { combineStatus, mergeReports } from './merge-reports.js';

const a = sampleRun({ seed: 1 });
const b = sampleRun({ seed: 2, requests: 300, startedAt: '2030-01-01T00:00:30.000Z' });
const merged = mergeReports([
  { report: a.report, source: 'a/report.json' },
  { report: b.report, source: 'b/report.json' },
]);

function histogramOf(samples: number[]): Histogram {
  const h = createHistogram();
  for (const s of samples) record(h, s);
  return h;
}

const check = (r: Report, id: string) => r.checks.find((c) => c.id === id)!;

describe('mergeReports', () => {
  it("gives the same percentiles as one histogram built from both runs' samples", () => {
    expect(merged.operations.map((o) => o.operation)).toEqual(['listPets', 'createPet', 'getPet']);
    for (const op of merged.operations) {
      const both = histogramOf([...a.latencies[op.operation]!, ...b.latencies[op.operation]!]);
      expect(op.latency).toEqual(summarize(both));
      const h = decodeHistogram(op.histograms.all!);
      for (const p of [0, 25, 50, 90, 95, 99, 99.9, 100]) expect(percentile(h, p)).toBe(percentile(both, p));
    }
  });

  it("keeps each key's figures as data, reading an older run's from its notes (the legacy path)", () => {
    expect(merged.keys.map((k) => k.limits)).toEqual(a.report.keys.map((k) => k.limits));
    // An older run: its figures only in its note; the merge records them as `keys[].limits`.
    const old: Report = {
      ...b.report,
      keys: b.report.keys.map(({ limits: _, ...k }) => ({ ...k, label: `old ${k.label}` })),
      notes: [`Figures judged: ${b.report.keys.map((k) => `old ${k.label} 7/min, 70/day`).join('; ')}.`],
    };
    const both = mergeReports([
      { report: a.report, source: 'a/report.json' },
      { report: old, source: 'old/report.json' },
    ]);
    expect(both.keys.filter((k) => k.label.startsWith('old ')).map((k) => k.limits)).toEqual(
      b.report.keys.map(() => ({ perMinute: 7, perDay: 70 })),
    );
  });

  it('adds the counts', () => {
    expect(merged.totals.requests).toBe(540);
    expect(merged.totals.requests).toBe(a.report.totals.requests + b.report.totals.requests);
    for (const op of merged.operations) {
      const [x, y] = [a, b].map((r) => r.report.operations.find((o) => o.operation === op.operation)!);
      expect(op.count).toBe(x!.count + y!.count);
      for (const [status, n] of Object.entries(op.statusCounts))
        expect(n).toBe((x!.statusCounts[status] ?? 0) + (y!.statusCounts[status] ?? 0));
    }
    expect(merged.timeline.buckets.reduce((n, t) => n + t.sent, 0)).toBe(540);
  });

  it('combines check results per plan: counts added, evidence capped at 5, a failure wins', () => {
    const reset = check(merged, 'ratelimit.reset-is-timestamp');
    const free = reset.byPlan.find((o) => o.plan === 'free')!;
    expect(free.status).toBe('fail');
    expect(free.counts.failed).toBe(
      check(a.report, reset.id).byPlan[0]!.counts.failed + check(b.report, reset.id).byPlan[0]!.counts.failed,
    );
    expect(free.evidence).toHaveLength(5);
    expect(reset.byPlan.find((o) => o.plan === 'pro')!.status).toBe('pass');
    expect(reset.status).toBe('fail');
    expect(merged.checks.map((c) => c.id)).toEqual(a.report.checks.map((c) => c.id));
  });

  it('lets a pass win over a skip and a failure over a pass', () => {
    expect(combineStatus(['skip', 'pass', 'skip'])).toBe('pass');
    expect(combineStatus(['pass', 'fail', 'skip'])).toBe('fail');
    expect(combineStatus(['skip'])).toBe('skip');
    const judged: Report = structuredClone(a.report);
    const iso = check(judged, 'ratelimit.key-isolation');
    iso.status = 'pass';
    iso.counts = { passed: 1, failed: 0, skipped: 0 };
    iso.byPlan[0] = { ...iso.byPlan[0]!, status: 'pass', counts: iso.counts, reasons: [] };
    const m = mergeReports([
      { report: a.report, source: 'a' },
      { report: judged, source: 'j' },
    ]);
    const out = check(m, 'ratelimit.key-isolation');
    expect(out.status).toBe('pass');
    expect(out.byPlan[0]!.counts).toEqual({ passed: 1, failed: 0, skipped: 1 });
  });

  it('judges thresholds again on the merged metrics', () => {
    const t = merged.thresholds.find((x) => x.expression === 'p(95) < 250ms')!;
    expect(t.observed).toBe(
      percentile(histogramOf([...Object.values(a.latencies).flat(), ...Object.values(b.latencies).flat()]), 95),
    );
    expect(t.observed).toBe(evaluateThreshold(parseThreshold(t.expression), merged).observed);
    expect(t.ok).toBe(true);
    const rate = merged.thresholds.find((x) => x.expression === 'rate(429) < 1%')!;
    const refused = merged.totals.statusCounts['429']!;
    expect(rate.observed).toBeCloseTo((refused * 100) / merged.totals.requests, 10);
    expect(check(merged, rate.checkId).status).toBe('fail');
  });

  it('recomputes the verdict and the summary', () => {
    expect(ReportSchema.parse(merged)).toEqual(merged);
    expect(merged.verdict).toBe('fail');
    expect(merged.exitCode).toBe(1);
    const { line: _, ...counts } = SAMPLE_COUNTS;
    expect(merged.summary).toEqual(counts);
    expect(merged.startedAt).toBe('2030-01-01T00:00:00.000Z');
    expect(merged.endedAt).toBe('2030-01-01T00:01:30.000Z');
    expect(merged.durationMs).toBe(90_000);
    expect(merged.notes[0]).toBe('merged from 2 runs: a/report.json, b/report.json');

    const passing = (r: Report): Report => {
      const p: Report = structuredClone(r);
      p.thresholds = [];
      p.checks = p.checks.filter((c) => !c.id.startsWith('threshold.') && c.severity !== 'minor');
      const reset = check(p, 'ratelimit.reset-is-timestamp');
      reset.status = 'pass';
      for (const o of reset.byPlan) o.status = 'pass';
      return p;
    };
    const ok = mergeReports([
      { report: passing(a.report), source: 'a' },
      { report: passing(b.report), source: 'b' },
    ]);
    expect([ok.verdict, ok.exitCode, ok.summary.failed]).toEqual(['pass', 0, 0]);
    const oneFails = mergeReports([
      { report: passing(a.report), source: 'a' },
      { report: b.report, source: 'b' },
    ]);
    expect([oneFails.verdict, oneFails.exitCode]).toEqual(['fail', 1]);
  });

  it('keeps an aborted run aborted, naming it', () => {
    const aborted: Report = { ...b.report, verdict: 'aborted', exitCode: 130, abortReason: 'interrupted' };
    const m = mergeReports([
      { report: a.report, source: 'a.json' },
      { report: aborted, source: 'b.json' },
    ]);
    expect([m.verdict, m.exitCode, m.abortReason]).toEqual(['aborted', 130, 'b.json: interrupted']);
  });

  it('refuses runs of different scenarios', () => {
    const other = sampleRun({ seed: 3, scenario: 'burst' }).report;
    try {
      mergeReports([
        { report: a.report, source: 'a.json' },
        { report: other, source: 'c.json' },
      ]);
      expect.unreachable();
    } catch (e) {
      expect(isPetloadError(e) && e.code).toBe('E_USAGE');
      expect((e as Error).message).toBe(
        'cannot merge runs of different scenarios: a.json is "compliance", c.json is "burst"',
      );
    }
  });
});

describe('mergeReports of focused runs', () => {
  /** A sample run as a focused run reports it: only the checks in scope, the others out of scope. */
  const focused = (r: Report, checks: string[]): Report => {
    const ids = r.checks.map((c) => c.id);
    return {
      ...r,
      focus: { checks, probes: [] },
      outOfScope: ids.filter((id) => !checks.includes(id)),
      checks: r.checks.filter((c) => checks.includes(c.id)),
      thresholds: [],
    };
  };
  const one = focused(a.report, ['ratelimit.reset-is-timestamp']);
  const two = focused(b.report, ['contract.transport']);

  it('keeps the union of the focuses, and out of scope what none of the runs judged', () => {
    const m = mergeReports([
      { report: one, source: 'one/report.json' },
      { report: two, source: 'two/report.json' },
    ]);
    expect(ReportSchema.parse(m)).toEqual(m);
    expect(m.focus).toEqual({ checks: ['ratelimit.reset-is-timestamp', 'contract.transport'], probes: [] });
    expect(m.checks.map((c) => c.id).sort()).toEqual(['contract.transport', 'ratelimit.reset-is-timestamp']);
    expect(m.outOfScope).toHaveLength(a.report.checks.length - 2);
    expect(m.outOfScope).not.toContain('contract.transport');
    expect(m.summary.checks).toBe(2);
  });

  it('has no focus when a run of the whole scenario is among those merged', () => {
    const m = mergeReports([
      { report: one, source: 'one/report.json' },
      { report: b.report, source: 'b/report.json' },
    ]);
    expect(m.focus).toBeUndefined();
    expect(m.outOfScope).toBeUndefined();
    expect(m.checks).toHaveLength(b.report.checks.length);
  });
});
