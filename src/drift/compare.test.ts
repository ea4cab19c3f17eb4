import { describe, expect, it } from 'vitest';
import { isPetloadError, type PetloadError } from '../core/errors.js';
import type { Report } from '../report/schema.js';
import { sampleReport } from '../testing/sample-report.js';
import { compareExitCode, compareReports } from './compare.js';
import { CompareSchema } from './schema.js';
import { logNormal, withLatencies } from '../testing/drift-histograms.js';

/** The sample report with listPets at `listPets` latencies (µs) and the other operations left as they are. */
function run(listPets: readonly number[], edit: (r: Report) => void = () => {}): Report {
  const r = withLatencies(sampleReport(), 'listPets', listPets);
  edit(r);
  return r;
}

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
};

const BASE = logNormal(5000, 4000, 0.4, 11);

describe('compareReports: latency', () => {
  it('finds no drift between a report and itself: p = 1, nothing regressed, every check unchanged', () => {
    const r = run(BASE);
    const c = compareReports(r, r);
    expect(CompareSchema.parse(c)).toEqual(c);
    expect(c.regressed).toBe(false);
    expect(c.regressions).toEqual([]);
    expect(compareExitCode(c)).toBe(0);
    const list = c.operations.find((o) => o.operation === 'listPets')!;
    expect(list.test!.p).toBeCloseTo(1, 9);
    expect(list.test!.direction).toBe('same');
    expect(c.checks.newlyFailing).toEqual([]);
    expect(c.checks.unchanged.passing + c.checks.unchanged.skipped).toBeGreaterThan(10);
    expect(c.checks.stillFailing.map((x) => x.id).sort()).toEqual(
      ['auth.challenge', 'ratelimit.reset-is-timestamp', 'threshold.rate(429) < 1%'].sort(),
    );
    expect(c.differences).toEqual([]);
  });

  it('finds two samples of one distribution alike', () => {
    const c = compareReports(run(BASE), run(logNormal(5000, 4000, 0.4, 12)));
    expect(c.regressed).toBe(false);
    expect(c.operations.find((o) => o.operation === 'listPets')!.test!.p).toBeGreaterThan(0.01);
  });

  it('names a clear shift of one operation as a regression, with its effect size and p-value', () => {
    // +50 ms on every request: every percentile rises far past +20 % and +5 ms.
    const c = compareReports(run(BASE), run(BASE.map((v) => v + 50_000)));
    expect(c.regressed).toBe(true);
    expect(compareExitCode(c)).toBe(1);
    expect(c.regressions).toHaveLength(1);
    const [r] = c.regressions;
    expect(r).toMatchObject({ kind: 'latency', operation: 'listPets', percentile: 'p99' });
    if (r?.kind !== 'latency') throw new Error('not a latency regression');
    expect(r.superiority).toBe(1);
    expect(r.p).toBeLessThan(1e-100);
    expect(r.changeMs).toBeGreaterThan(49);
    expect(r.message).toMatch(
      /^listPets p99 .* ms -> .* ms \(\+.* ms, \+.* %\); 5000 of 5000 requests above the baseline's p99 \(.* expected\), p=< 1e-300; A\(\+5\.0 ms\)=1\.00$/,
    );
    // Only the default percentile (p99) is judged; the others are shown.
    const list = c.operations.find((o) => o.operation === 'listPets')!;
    expect(list.percentiles.filter((p) => p.regression).map((p) => p.percentile)).toEqual(['p99']);
    expect(list.percentiles.find((p) => p.percentile === 'p50')!.threshold).toBeNull();
  });

  it('keeps to the size threshold: a significant rise under +20 % or under +5 ms is no regression', () => {
    // +10 % on every request of 5000: hugely significant, but under 20 %.
    const tenPercent = compareReports(run(BASE), run(BASE.map((v) => Math.round(v * 1.1))));
    const list = tenPercent.operations.find((o) => o.operation === 'listPets')!;
    expect(list.test!.p).toBeLessThan(1e-10);
    expect(list.percentiles.find((p) => p.percentile === 'p99')!.large).toBe(false);
    expect(tenPercent.regressed).toBe(false);
    // Doubled, but a p99 of ~10 ms grows by less than... no: a p99 of 1 ms doubled is +1 ms, under +5 ms.
    const fast = logNormal(5000, 400, 0.2, 13);
    const doubled = compareReports(run(fast), run(fast.map((v) => v * 2)));
    expect(doubled.operations.find((o) => o.operation === 'listPets')!.test!.superiority).toBeGreaterThan(0.9);
    expect(doubled.regressed).toBe(false);
    // The same with thresholds set for the operation: a regression.
    const strict = compareReports(run(fast), run(fast.map((v) => v * 2)), {
      operations: { listPets: { p99: { relative: 0.5, absoluteMs: 0.1 }, p50: { relative: 0.5, absoluteMs: 0.1 } } },
    });
    expect(strict.regressions.map((r) => (r.kind === 'latency' ? r.percentile : r.message))).toEqual(['p50', 'p99']);
  });

  it('wants a broad shift: a tail that grew in 2 % of requests passes by default, not with minSuperiority 0', () => {
    const tail = BASE.map((v, i) => (i % 50 === 0 ? v + 400_000 : v));
    const c = compareReports(run(BASE), run(tail));
    const list = c.operations.find((o) => o.operation === 'listPets')!;
    expect(list.percentiles.find((p) => p.percentile === 'p99')!.large).toBe(true);
    expect(list.test!.superiority).toBeLessThan(0.55);
    expect(c.regressed).toBe(false);
    // The exceedance test sees the tail: ~150 requests above the baseline's p99 where ~50 are expected.
    const p99 = list.percentiles.find((p) => p.percentile === 'p99')!;
    expect(p99.exceedance!.above).toBeGreaterThan(140);
    expect(p99.exceedance!.p).toBeLessThan(1e-10);
    // Where runs are quiet, the tail alone can be judged.
    const quiet = compareReports(run(BASE), run(tail), { minSuperiority: 0 });
    expect(quiet.regressions.map((r) => (r.kind === 'latency' ? `${r.operation} ${r.percentile}` : r.message))).toEqual(
      ['listPets p99'],
    );
  });

  it('takes a busy machine for no regression: a few ms on every request and a slower tail', () => {
    // A fast target (p50 2 ms); the current run's machine adds 3 ms to every request and 30 ms to one in ten.
    const fast = logNormal(3000, 2000, 0.5, 14);
    const busy = fast.map((v, i) => v + 3000 + (i % 10 === 0 ? 30_000 : 0));
    const c = compareReports(run(fast), run(busy));
    const list = c.operations.find((o) => o.operation === 'listPets')!;
    const p99 = list.percentiles.find((p) => p.percentile === 'p99')!;
    // Large and significant, and most requests are slower...
    expect(p99.large).toBe(true);
    expect(p99.exceedance!.p).toBeLessThan(1e-10);
    expect(list.test!.superiority).toBeGreaterThan(0.9);
    // ...but few by more than 5 ms: no regression.
    expect(list.test!.superiorityBeyondMargin).toBeLessThan(0.3);
    expect(c.regressed).toBe(false);
    // Every request 8 ms slower is a regression of a p99 of ~6 ms.
    expect(compareReports(run(fast), run(fast.map((v) => v + 8000))).regressed).toBe(true);
  });

  it('does not judge an operation with too few requests, and says why', () => {
    const c = compareReports(run(BASE.slice(0, 5)), run(BASE.slice(0, 5).map((v) => v + 100_000)));
    const list = c.operations.find((o) => o.operation === 'listPets')!;
    expect(list.test).toBeNull();
    expect(list.note).toMatch(/too few requests to judge \(5 and 5; at least 10 each\)/);
    expect(c.regressed).toBe(false);
  });

  it('reports throughput and error rate per operation', () => {
    const r = run(BASE);
    const c = compareReports(r, r);
    const list = c.operations.find((o) => o.operation === 'listPets')!;
    expect(list.baseline!.rps).toBeCloseTo((r.totals.rps * 5000) / r.totals.requests, 9);
    expect(list.baseline!.errorRate).toBe(0);
  });
});

describe('compareReports: checks', () => {
  const failing = (r: Report, id: string, plan: 'free' | 'pro', message: string) => {
    const c = r.checks.find((x) => x.id === id)!;
    c.status = 'fail';
    const o = c.byPlan.find((p) => p.plan === plan) ?? {
      plan,
      status: 'fail' as const,
      counts: { passed: 0, failed: 1, skipped: 0 },
      evidence: [],
      reasons: [],
      info: {},
    };
    Object.assign(o, { status: 'fail', counts: { passed: 0, failed: 1, skipped: 0 }, evidence: [{ message }] });
    if (!c.byPlan.includes(o)) c.byPlan.push(o);
  };

  it('names a newly failing critical check as a regression, with what it says now', () => {
    const before = run(BASE);
    const after = run(BASE, (r) => failing(r, 'ratelimit.headers-present', 'pro', 'no X-RateLimit-Limit on a 200'));
    const c = compareReports(before, after);
    expect(c.regressed).toBe(true);
    expect(c.regressions).toEqual([
      expect.objectContaining({ kind: 'check', id: 'ratelimit.headers-present', plan: 'pro', severity: 'critical' }),
    ]);
    expect(c.checks.newlyFailing[0]).toMatchObject({ baseline: 'pass', current: 'fail' });
    expect(c.checks.newlyFailing[0]!.currentDetail).toBe('no X-RateLimit-Limit on a 200');
    // And the other way round: fixed, no regression.
    const back = compareReports(after, before);
    expect(back.regressed).toBe(false);
    expect(back.checks.fixed.map((x) => `${x.id} [${x.plan}]`)).toEqual(['ratelimit.headers-present [pro]']);
  });

  it('lists a newly failing minor check without calling it a regression', () => {
    const before = run(BASE, (r) => {
      const c = r.checks.find((x) => x.id === 'auth.challenge')!;
      c.status = 'pass';
      for (const o of c.byPlan)
        Object.assign(o, { status: 'pass', evidence: [], counts: { passed: 1, failed: 0, skipped: 0 } });
    });
    const c = compareReports(before, run(BASE));
    expect(c.checks.newlyFailing.map((x) => x.id)).toEqual(['auth.challenge']);
    expect(c.regressed).toBe(false);
  });

  it('lists a check newly skipped with both runs said', () => {
    const after = run(BASE, (r) => {
      const c = r.checks.find((x) => x.id === 'ratelimit.reset-is-timestamp')!;
      const o = c.byPlan.find((p) => p.plan === 'pro')!;
      Object.assign(o, {
        status: 'skip',
        reasons: ['no answer carried a Reset'],
        counts: { passed: 0, failed: 0, skipped: 1 },
      });
    });
    const c = compareReports(run(BASE), after);
    expect(c.checks.newlySkipped).toEqual([
      expect.objectContaining({
        id: 'ratelimit.reset-is-timestamp',
        plan: 'pro',
        baseline: 'pass',
        current: 'skip',
        currentDetail: 'no answer carried a Reset',
      }),
    ]);
  });
});

describe('compareReports: which runs it compares', () => {
  it('refuses reports of different scenarios or targets, naming both (E_USAGE, exit 2)', () => {
    const other = run(BASE, (r) => {
      r.scenario.name = 'at-limit';
    });
    const e = thrown(() => compareReports(run(BASE), other));
    expect(isPetloadError(e)).toBe(true);
    expect((e as PetloadError).code).toBe('E_USAGE');
    expect((e as PetloadError).exitCode).toBe(2);
    expect((e as Error).message).toContain('scenario "compliance" (baseline) vs "at-limit" (current)');
    expect((e as PetloadError).hint).toContain('--allow-different');
    const remote = run(BASE, (r) => {
      r.target.embedded = false;
      r.target.url = 'https://staging.example.com/v1';
    });
    expect((thrown(() => compareReports(run(BASE), remote)) as Error).message).toContain(
      'target embedded (baseline) vs https://staging.example.com/v1 (current)',
    );
    const allowed = compareReports(run(BASE), other, { allowDifferent: true });
    expect(allowed.differences).toContain('scenario: compliance (baseline) vs at-limit (current)');
  });

  it('takes two embedded runs on different ports for one target, and lists the faults that differ', () => {
    const c = compareReports(
      run(BASE, (r) => {
        r.target.url = 'http://127.0.0.1:1111/v1';
        r.target.faults = [];
      }),
      run(BASE, (r) => {
        r.target.url = 'http://127.0.0.1:2222/v1';
        r.target.faults = ['slow'];
      }),
    );
    expect(c.baseline.target).toBe('embedded');
    expect(c.differences).toEqual(['faults: none (baseline) vs slow (current)']);
  });

  it('takes a merged sharded report as one report', () => {
    const merged = run(BASE, (r) => {
      r.shard = { runId: 'nightly-42', count: 3 };
    });
    const c = compareReports(run(BASE), merged);
    expect(c.current.shard).toEqual({ runId: 'nightly-42', count: 3, index: null });
    expect(c.differences).toEqual(['shards: not sharded (baseline) vs merged from 3 shards (current)']);
    expect(c.regressed).toBe(false);
  });

  it('refuses invalid options as a usage error naming the field', () => {
    const e = thrown(() => compareReports(run(BASE), run(BASE), { alpha: 2 }));
    expect((e as PetloadError).code).toBe('E_USAGE');
    expect((e as Error).message).toMatch(/alpha/);
  });
});
