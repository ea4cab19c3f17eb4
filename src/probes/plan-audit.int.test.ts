/**
 * The plan audit (ratelimit.day-enforced) over real loopback HTTP against the reference server, whose day window
 * is made short by the plan's figures: a server that enforces the sold day figure passes; one that enforces
 * another day figure fails, naming both; and on an unscaled clock the audit keeps the timing of a real day window
 * (a day of 100 at 60 a minute: about a minute and forty seconds).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { infoProblems } from '../checks/catalogue.js';
import { parseKeys } from '../config/keys-file.js';
import { loadScenario } from '../config/load-scenario.js';
import { createClock } from '../core/clock.js';
import { runScenario } from '../engine/run.js';
import { createReferenceServer } from '../reference-server/index.js';
import type { Report } from '../report/schema.js';

const dayEnforced = (r: Report) => r.checks.find((c) => c.id === 'ratelimit.day-enforced')!.byPlan[0]!;
const reportDir = () => mkdtempSync(join(tmpdir(), 'petload-audit-'));

/** An audit of one free key whose sold figures are `sold`, against a server that enforces `served`. */
async function audit(sold: { perMinute: number; perDay: number }, served: typeof sold, scale: number) {
  const secret = `audit-${Math.random().toString(16).slice(2)}-key`;
  const clock = createClock(scale);
  const [servedKey] = parseKeys({ keys: [{ key: secret, plan: 'free', ...served }] }, 'test');
  const [soldKey] = parseKeys({ keys: [{ key: secret, plan: 'free', audit: true, ...sold }] }, 'test');
  const server = await createReferenceServer({ keys: [servedKey!], clock });
  try {
    return await runScenario({
      scenario: loadScenario('plan-audit'),
      target: { kind: 'external', url: server.url, keys: [soldKey!], clock },
      reportDir: reportDir(),
    });
  } finally {
    await server.close();
  }
}

// Side by side: the unscaled day waits real minutes, the others their scaled clocks.
describe.concurrent('the plan audit (ratelimit.day-enforced)', () => {
  it('holds a short day on the embedded server: exactly the day figure, then the day 429', {
    timeout: 60_000,
  }, async ({ expect }) => {
    const r = await runScenario({
      scenario: loadScenario('plan-audit'),
      plans: ['free'],
      target: { kind: 'embedded', planFigures: { free: { perDay: 150 } }, timeScale: 60 },
      reportDir: reportDir(),
    });
    const o = dayEnforced(r.report);
    expect(o.status, JSON.stringify(o)).toBe('pass');
    expect(o.info).toMatchObject({ dayLimitSold: 150, acceptedInDay: 150 });
    expect(typeof o.info.dayEnd).toBe('string');
    expect(infoProblems(r.report.checks)).toEqual([]);
    const row = r.report.planTable?.find((p) => p.plan === 'free')?.rows.find((x) => x.figure === 'per-day limit');
    expect(row).toMatchObject({ status: 'held', check: 'ratelimit.day-enforced' });
    expect(r.report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
  });

  it('with the day-not-enforced fault on, fails exactly ratelimit.day-enforced', { timeout: 60_000 }, async ({
    expect,
  }) => {
    const r = await runScenario({
      scenario: loadScenario('plan-audit'),
      plans: ['free'],
      target: { kind: 'embedded', planFigures: { free: { perDay: 150 } }, timeScale: 60, faults: ['day-not-enforced'] },
      reportDir: reportDir(),
    });
    const o = dayEnforced(r.report);
    expect(o.evidence[0]?.message).toMatch(
      /^no refusal for the day came: \d+ requests accepted \(the plan sells 150 a day\)/,
    );
    expect(r.report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual(['ratelimit.day-enforced']);
  });

  it('fails naming both figures when the served day differs from the sold one', { timeout: 90_000 }, async ({
    expect,
  }) => {
    const r = await audit({ perMinute: 60, perDay: 800 }, { perMinute: 60, perDay: 700 }, 60);
    const o = dayEnforced(r.report);
    expect(o.status).toBe('fail');
    expect(o.evidence[0]!.message).toMatch(/^700 requests accepted in the day window; the plan sells 800 a day/);
    expect(o.info).toMatchObject({ dayLimitSold: 800, acceptedInDay: 700 });
    // The plans table shows it: the per-day cell not held, with the figure measured.
    const row = r.report.planTable?.find((p) => p.plan === 'free')?.rows.find((x) => x.figure === 'per-day limit');
    expect(row).toMatchObject({ status: 'not held', check: 'ratelimit.day-enforced' });
  });

  it('refuses to run without a key marked for the audit, saying why', async ({ expect }) => {
    const [key] = parseKeys({ keys: [{ key: 'not-for-audit-key', plan: 'free' }] }, 'test');
    const server = await createReferenceServer({ keys: [key!] });
    try {
      await expect(
        runScenario({
          scenario: loadScenario('plan-audit'),
          target: { kind: 'external', url: server.url, keys: [key!] },
          reportDir: reportDir(),
        }),
      ).rejects.toMatchObject({ code: 'E_SAFETY', message: expect.stringMatching(/"audit": true.*whole day/) });
    } finally {
      await server.close();
    }
  });

  it('keeps the timing of a day window on an unscaled clock', { timeout: 240_000 }, async ({ expect }) => {
    const started = Date.now();
    const r = await audit({ perMinute: 60, perDay: 100 }, { perMinute: 60, perDay: 100 }, 1);
    const o = dayEnforced(r.report);
    expect(o.status, JSON.stringify(o)).toBe('pass');
    expect(o.info).toMatchObject({ acceptedInDay: 100 });
    // A day of 100 at 60 a minute cannot be spent in less than a minute and a half of real time.
    expect(Date.now() - started).toBeGreaterThan(90_000);
  });
});
