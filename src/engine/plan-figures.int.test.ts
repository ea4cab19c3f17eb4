/**
 * Plans as data, end to end: a staging whose limits differ from the published table is judged against the
 * figures the run is given (plans file, scenario planLimits, a key's own), through the real CLI against a real
 * reference server on loopback; the embedded server serves a keys file's keys and enforces the run's figures.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { infoProblems } from '../checks/catalogue.js';
import { loadScenario } from '../config/load-scenario.js';
import { createReferenceServer, type ReferenceServer } from '../reference-server/index.js';
import { makeKey } from '../reference-server/test-client.js';
import { readReportJson, runCli, scratch } from '../testing/cli.js';
import { planTableOf } from '../report/plan-table.js';
import type { Report } from '../report/schema.js';
import { runScenario } from './run.js';

const s = scratch('petload-plan-figures-');
const SECRET = 'sk_staging_pro_0123456789';
/** The staging's pro plan: twice the published per-minute figure and a larger day. */
const STAGING_PRO = { perMinute: 600, perDay: 20_000 };
let staging: ReferenceServer;

beforeAll(async () => {
  staging = await createReferenceServer({ host: '127.0.0.1', port: 0, keys: [makeKey(SECRET, 'pro', STAGING_PRO)] });
});
afterAll(async () => {
  await staging.close();
  rmSync(s.dir, { recursive: true, force: true });
});

/** A little traffic (8 requests over 2 s of real time) and no probe: the passive checks judge every answer. */
const light = (extra = '') =>
  s.file(
    `light-${Math.random().toString(36).slice(2)}.yaml`,
    `name: light\ndescription: a little traffic\nplans: [pro]\n${extra}load:\n  mix: { listPets: 1 }\n  phases:\n    - { executor: constant-rate, rate: 4/s, duration: 2s }\n`,
  );

const limitCheck = (r: Report) => r.checks.find((c) => c.id === 'ratelimit.limit-matches-plan')!;

async function runAgainstStaging(
  name: string,
  args: readonly string[],
  scenario = light(),
): Promise<{ code: number | null; report: Report; out: string }> {
  const dir = join(s.dir, name);
  const r = await runCli(['run', scenario, '--target', staging.url, '--quiet', '--report-dir', dir, ...args]);
  expect(`${r.stdout}${r.stderr}`).not.toContain(SECRET);
  return { code: r.code, report: readReportJson(dir), out: r.stdout + r.stderr };
}

describe('a staging whose limits differ from the published table', () => {
  it('fails limit-matches-plan when judged against the published figures', async () => {
    const { code, report } = await runAgainstStaging('published', [
      '--keys-file',
      s.keys([{ key: SECRET, plan: 'pro' }]),
    ]);
    expect(code).toBe(1);
    expect(limitCheck(report).status).toBe('fail');
    expect(report.notes).toContain(
      `Figures judged: ${report.keys[0]!.label} ${PLANS.pro.perMinute}/min, ${PLANS.pro.perDay}/day.`,
    );
    expect(report.keys[0]!.limits).toEqual(PLANS.pro);
  });

  it('passes with its figures in a plans file', async () => {
    const plans = s.file(
      'plans.yaml',
      `plans:\n  pro: { perMinute: ${STAGING_PRO.perMinute}, perDay: ${STAGING_PRO.perDay}, tolerance: 5% }\n`,
    );
    const { code, report, out } = await runAgainstStaging('plans-file', [
      '--keys-file',
      s.keys([{ key: SECRET, plan: 'pro' }]),
      '--plans-file',
      plans,
    ]);
    expect(code, out).toBe(0);
    expect(limitCheck(report).status).toBe('pass');
    expect(limitCheck(report).counts.passed).toBeGreaterThan(0);
    expect(report.notes).toContain(`Figures judged: ${report.keys[0]!.label} 600/min, 20000/day.`);
    // The figures are data: read without the notes, the declared tolerance with them; each check's info as declared.
    expect(report.keys[0]!.limits).toEqual({ perMinute: 600, perDay: 20_000, tolerancePercent: 5 });
    const figures = planTableOf({ ...report, notes: [], planTable: undefined }).find((p) => p.plan === 'pro');
    expect(figures?.sold).toEqual([{ perMinute: 600, perDay: 20_000, keys: [report.keys[0]!.label] }]);
    expect(infoProblems(report.checks)).toEqual([]);
  });

  it("passes with its figures in the scenario's planLimits", async () => {
    const scenario = light(
      `planLimits:\n  pro: { perMinute: ${STAGING_PRO.perMinute}, perDay: ${STAGING_PRO.perDay} }\n`,
    );
    const { code, report, out } = await runAgainstStaging(
      'scenario',
      ['--keys-file', s.keys([{ key: SECRET, plan: 'pro' }])],
      scenario,
    );
    expect(code, out).toBe(0);
    expect(limitCheck(report).status).toBe('pass');
  });

  it("passes with the key's own figures, which win over a plans file", async () => {
    const plans = s.file('wrong-plans.yaml', 'plans:\n  pro: { perMinute: 450 }\n');
    const keys = s.keys([{ key: SECRET, plan: 'pro', perMinute: STAGING_PRO.perMinute, perDay: STAGING_PRO.perDay }]);
    const { code, report, out } = await runAgainstStaging('own', ['--keys-file', keys, '--plans-file', plans]);
    expect(code, out).toBe(0);
    expect(limitCheck(report).status).toBe('pass');
  });

  it('refuses a broken plans file before sending anything, naming the file, the path and what was expected', async () => {
    const plans = s.file('broken-plans.yaml', 'plans:\n  pro: { perMinute: -5 }\n');
    const r = await runCli([
      'run',
      light(),
      '--target',
      staging.url,
      '--keys-file',
      s.keys([{ key: SECRET, plan: 'pro' }]),
      '--plans-file',
      plans,
      '--report-dir',
      join(s.dir, 'broken'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${plans}: invalid plans file\n  plans.pro.perMinute: expected a whole number of requests per minute above 0, found number -5`,
    );
  });
});

describe('the embedded server', () => {
  it('serves the keys of --keys-file without --target, and enforces their figures', async () => {
    const dir = join(s.dir, 'embedded-keys');
    const keys = s.keys([{ key: 'sk_local_free_0123456789', plan: 'free', perMinute: 12, perDay: 500 }]);
    // listPets only: a getPet of an unknown id (404) would not count against the quota.
    const scenario = s.file(
      'burst.yaml',
      'name: b\ndescription: a burst\nload:\n  mix: { listPets: 1 }\n  phases:\n    - { executor: burst, requests: limit+3 }\n',
    );
    const r = await runCli(['run', scenario, '--keys-file', keys, '--quiet', '--report-dir', dir]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = readReportJson(dir);
    expect(report.target.embedded).toBe(true);
    // The file's key, not one made for the run.
    expect(report.keys.map((k) => k.label)).toEqual(['free#1 (…6789)']);
    // 15 simultaneous requests on a key of 12 a minute: 12 accepted, 3 refused, judged against 12.
    expect(report.totals.statusCounts).toEqual({ '200': 12, '429': 3 });
    expect(limitCheck(report).status).toBe('pass');
    expect(`${r.stdout}${r.stderr}`).not.toContain('sk_local_free_0123456789');
  });

  it('gives its made keys the figures of the run (plans file over scenario over published) and judges against them', async () => {
    const scenario = loadScenario(
      s.file(
        'figures.yaml',
        'name: f\ndescription: a burst\nplans: [free, pro]\nplanLimits:\n  free: { perMinute: 10 }\n  pro: { perMinute: 20 }\nload:\n  mix: { listPets: 1 }\n  phases:\n    - { executor: burst, requests: limit+4 }\n',
      ),
    );
    const result = await runScenario({
      scenario,
      target: { kind: 'embedded', planFigures: { pro: { perMinute: 15 } }, timeScale: 60 },
      reportDir: join(s.dir, 'embedded-figures'),
    });
    expect(result.exitCode).toBe(0);
    const limits = Object.fromEntries(
      result.report.keyTimelines.map((k) => [k.plan, new Set(k.remaining.map(([, , limit]) => limit))]),
    );
    // What the server put in X-RateLimit-Limit: free from the scenario, pro from the plans file.
    expect(limits.free).toEqual(new Set([10]));
    expect(limits.pro).toEqual(new Set([15]));
    expect(result.report.totals.statusCounts).toEqual({ '200': 10 + 15, '429': 8 });
    expect(limitCheck(result.report).status).toBe('pass');
  });
});
