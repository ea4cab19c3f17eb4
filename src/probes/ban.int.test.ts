/**
 * The ban probe measures the reference server's ban rule over real loopback HTTP, on a scaled clock: the threshold,
 * the status and code of the ban, its duration on the target's clock and the recovery, for two settings; and a
 * target that never bans leaves the check unpassed. (That it refuses keys not marked sacrificial: safety.int.test.ts.)
 *
 * The clock runs 20 times faster than real time, not 60 as the shipped scenario does: the probe lets each refusal
 * age 0.4 real seconds (the server forgives requests within 250 real ms of a 429) and must use up a minute's quota
 * within one window, which a 1-second minute does not always leave room for on a loaded machine.
 */
const SCALE = 20;
import { describe, expect, it, type TestContext } from 'vitest';
import { infoOf, infoProblems } from '../checks/catalogue.js';
import { parseKeys } from '../config/keys-file.js';
import { loadScenario } from '../config/load-scenario.js';
import { createClock } from '../core/clock.js';
import type { Report } from '../report/schema.js';
import { runScenario } from '../engine/run.js';
import { createReferenceServer } from '../reference-server/index.js';
import { readReportJson, runCli, scratch } from '../testing/cli.js';

function banOutcome(report: Report) {
  const check = report.checks.find((c) => c.id === 'ban.probe');
  const free = check?.byPlan.find((p) => p.plan === 'free');
  if (!free) throw new Error('no ban.probe outcome for the free plan');
  return free;
}

/** What the probe must report against a server that bans after `n` tolerated knocks for `s` server seconds. */
function expectMeasured(report: Report, n: number, s: number): void {
  const ban = banOutcome(report);
  expect(ban.status).toBe('pass');
  // The facts as ban.probe declares them (src/report/check-info.ts), typed.
  expect(infoProblems(report.checks)).toEqual([]);
  const f = infoOf('ban.probe', ban);
  expect(f.knocks).toBeGreaterThan(0);
  expect(Math.abs(f.banThreshold! - n)).toBeLessThanOrEqual(1);
  expect(f.banStatus).toBe(429);
  expect(f.banCode).toBe('key_banned');
  expect(f.banEnded).toBe(true);
  // The duration lies within the uncertainty the probe states, plus Date's rounding (a second of a 20 times faster
  // clock is 50 real ms: a busy machine holds a poll back longer, and the probe says so in its uncertainty). That
  // uncertainty is under a quarter of the ban, so a wrong duration (a ban of 200 s judged against 300) still fails.
  const u = f.banDurationUncertaintySeconds!;
  expect(Math.abs(f.banDurationSeconds! - s)).toBeLessThanOrEqual(u + 1);
  expect(u).toBeLessThan(s / 4);
  expect(f.recovered).toBe(true);
  expect(f.recoveryStatus).toBe(200);
  // The knocks were deliberate: petload's own discipline still holds, and nothing else failed.
  expect(report.checks.find((c) => c.id === 'backoff.respects-retry-after')?.status).toBe('pass');
  expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
  expect(report.verdict).toBe('pass');
}

describe.concurrent('the ban probe measures the ban', () => {
  it('on the embedded server with --ban-threshold 3 --ban-seconds 120 (the CLI)', async () => {
    const s = scratch('petload-ban-');
    const r = await runCli([
      'run',
      'ban-probe',
      '--plan',
      'free',
      '--ban-threshold',
      '3',
      '--ban-seconds',
      '120',
      '--time-scale',
      String(SCALE),
      '--quiet',
      '--report-dir',
      `${s.dir}/r`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = readReportJson(`${s.dir}/r`);
    expect(report.target.variant).toMatchObject({ banThreshold: '3', banSeconds: '120' });
    expectMeasured(report, 3, 120);
  });

  it('on a reference server as --target, banning after 7 knocks for 300 s of its scaled clock', async (ctx: TestContext) => {
    const keys = parseKeys(
      { keys: [{ key: 'SECRET-free-victim-0123456789', plan: 'free', sacrificial: true }] },
      'test',
    );
    const clock = createClock(SCALE);
    const server = await createReferenceServer({ keys, clock, banThreshold: 7, banSeconds: 300 });
    ctx.onTestFinished(() => server.close());
    const s = scratch('petload-ban-');
    const result = await runScenario({
      scenario: loadScenario('ban-probe'),
      target: { kind: 'external', url: server.url, keys, clock },
      reportDir: `${s.dir}/r`,
    });
    expectMeasured(result.report, 7, 300);
  });

  it('does not pass when no knock changes the answer within its bound', async () => {
    const s = scratch('petload-ban-');
    const result = await runScenario({
      scenario: loadScenario('ban-probe'),
      plans: ['free'],
      target: { kind: 'embedded', timeScale: SCALE, ban: { threshold: 10_000 } },
      reportDir: `${s.dir}/r`,
    });
    const ban = banOutcome(result.report);
    expect(ban.status).toBe('skip');
    expect(ban.reasons.join()).toMatch(/^no change within the bound: \d+ knocks inside [1-3] Retry-After wait\(s\)/);
    const f = ban.info as Record<string, unknown>;
    expect(f.knocks).toBeGreaterThan(10);
    // Three rounds; one may have brought no 429 (its window rolled over while the quota was being used up).
    expect(f.refusalsKnockedInside).toBeGreaterThanOrEqual(1);
    expect(f.refusalsKnockedInside).toBeLessThanOrEqual(3);
    expect(f.banStatus).toBeUndefined();
  });
});
