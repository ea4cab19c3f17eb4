/**
 * With no fault, and with every compliant variant of the reference server, the compliance run finds zero failures
 * of any severity, and every catalogue id is in the report (pass, or skip with a reason).
 */
import { describe, it } from 'vitest';
import { CHECK_IDS, infoProblems } from '../checks/catalogue.js';
import type { MinuteLimiter, WindowReport } from '../reference-server/limiter.js';
import { complianceRun } from '../testing/compliance-run.js';

const VARIANTS: {
  windowReport?: WindowReport;
  countErrors?: boolean;
  minuteLimiter?: MinuteLimiter;
  instances?: number;
}[] = [
  {},
  { windowReport: 'minute' },
  { windowReport: 'day' },
  { windowReport: 'tightest', countErrors: true },
  { countErrors: false },
  // A sliding log: Reset moves forward with each request, truthfully; the plan's promise is kept.
  { minuteLimiter: 'sliding-log', windowReport: 'minute' },
  // A fleet over one shared, atomic counter: two instances in turn, clocks a second apart, answers out of order.
  { instances: 2 },
];

type Variant = (typeof VARIANTS)[number];

// Side by side: each run mostly waits on its scaled clock. The fleet alone, after them: its two instances and the
// client share this process's one thread, and three compliance passes beside it on a busy machine starved its answers
// past the request timeout (a timing of this test's, not the fleet's).
describe.concurrent('compliant reference server', () => {
  for (const v of VARIANTS.filter((x) => x.instances === undefined)) compliantRun(v);
});
describe('compliant reference server, a fleet', () => {
  for (const v of VARIANTS.filter((x) => x.instances !== undefined)) compliantRun(v);
});

function compliantRun(v: Variant): void {
  it(`passes with no failure of any severity: ${JSON.stringify(v)}`, { timeout: 120_000 }, async ({ expect }) => {
    const r = await complianceRun(v);
    const failures = r.report.checks
      .filter((c) => c.status === 'fail')
      .map((c) => `${c.id}: ${c.byPlan.flatMap((p) => p.evidence.map((e) => e.message)).join(' | ')}`);
    expect(failures).toEqual([]);
    expect(r.report.verdict).toBe('pass');
    expect(r.exitCode).toBe(0);
    expect(r.report.checks.map((c) => c.id)).toEqual(expect.arrayContaining(CHECK_IDS));
    for (const c of r.report.checks.filter((c) => c.status === 'skip')) {
      expect(c.byPlan.flatMap((p) => p.reasons).length, `${c.id} is skipped without a reason`).toBeGreaterThan(0);
    }
    // The probes that exist to judge a check did judge it on a compliant server.
    const judged = new Set(r.report.checks.filter((c) => c.status === 'pass').map((c) => c.id));
    for (const id of [
      'ratelimit.enforced',
      'ratelimit.no-over-admission',
      'ratelimit.key-isolation',
      'retry-after.honest',
      'ratelimit.quota-restored',
      'auth.no-quota-drain',
    ]) {
      expect(judged.has(id), `${id} was not judged`).toBe(true);
    }
    // The reference server's limiter is a fixed window from each key's first request, and is named so wherever
    // the headers describe the minute window (unless it keeps a sliding log).
    const algorithm = r.report.checks.find((c) => c.id === 'ratelimit.algorithm')!;
    if (v.minuteLimiter === 'sliding-log') {
      // Read from the moves of its Reset where the answers show them, else unknown: never a fixed window.
      for (const p of algorithm.byPlan) expect(p.info.shape, p.plan ?? '').toMatch(/^(sliding window|unknown)/);
    } else if (v.windowReport === undefined || v.windowReport === 'minute') {
      expect(algorithm.byPlan.map((p) => [p.plan, p.info.shape])).toEqual(
        algorithm.byPlan.map((p) => [p.plan, "fixed window from a key's first request"]),
      );
      expect(algorithm.byPlan.length).toBeGreaterThan(0);
    }
    // One counter answers every key: no fleet is read into the interleaving of concurrent answers.
    const read = algorithm.byPlan.filter((p) => p.info.shape !== undefined);
    expect(read.map((p) => p.info.counters)).toEqual(read.map(() => '1'));
    // The run's facts are data: each check's info as its catalogue entry declares it, each key's figures typed.
    expect(infoProblems(r.report.checks)).toEqual([]);
    expect(r.report.keys.filter((k) => k.limits === undefined)).toEqual([]);
  });
}
