/**
 * Safety: the ban probe only ever touches keys marked sacrificial; a run against a remote target says what it
 * will send before it sends it, and stops before using up a key's day unless told it may. Tests may not send
 * traffic off the machine: PETLOAD_TREAT_AS_REMOTE=1 gives a loopback target the remote treatment.
 * A counting proxy (the hostile server, answering honestly) shows what reached the target.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import type { ApiKey } from '../core/api-key.js';
import { loadScenario, parseScenarioText } from '../config/load-scenario.js';
import { createClock } from '../core/clock.js';
import { runScenario } from '../engine/run.js';
import { createReferenceServer, type ReferenceServerOptions } from '../reference-server/index.js';
import { readReportJson, reportFilesIn, runCli, scratch, STACK_LINE } from '../testing/cli.js';
import { honest } from '../testing/hostile/behaviours.js';
import { startHostileServer, type Behaviour } from '../testing/hostile/server.js';

/** A reference server for `entries` behind a proxy that counts requests by Authorization header. */
async function countedTarget(
  ctx: TestContext,
  entries: { key: string; plan: string; sacrificial?: boolean; perMinute?: number; perDay?: number }[],
  options: ReferenceServerOptions = {},
) {
  const keys: ApiKey[] = parseKeys({ keys: entries }, 'test');
  const upstream = await createReferenceServer({ keys, ...options });
  const byAuth = new Map<string, number>();
  const counting: Behaviour = async (r) => {
    const auth = r.req.headers.get('authorization') ?? '(none)';
    byAuth.set(auth, (byAuth.get(auth) ?? 0) + 1);
    return honest(r);
  };
  const proxy = await startHostileServer(upstream.url, counting);
  ctx.onTestFinished(async () => {
    await proxy.close();
    await upstream.close();
  });
  const s = scratch('petload-safety-');
  return {
    keys,
    url: proxy.url,
    requests: () => proxy.requests(),
    byAuth,
    keysFile: s.keys(entries),
    dir: s.dir,
    file: s.file,
  };
}

// Each case has its own target (and child process): they run side by side.
describe.concurrent('the ban probe refuses keys not marked sacrificial', () => {
  it('stops before sending anything when no key is sacrificial', async (ctx) => {
    const t = await countedTarget(ctx, [{ key: 'SECRET-free-0123456789abcdef', plan: 'free' }]);
    const r = await runCli([
      'run',
      'ban-probe',
      '--target',
      t.url,
      '--keys-file',
      t.keysFile,
      '--report-dir',
      `${t.dir}/r`,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'petload: scenario ban-probe needs a key marked "sacrificial": true; none of the keys is',
    );
    expect(r.stderr).toContain('hint: See README.md ("Safety and secrets").');
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(t.requests()).toBe(0);
  });

  it('never sends ban-probe traffic on a key that is not sacrificial', async (ctx) => {
    const entries = [
      { key: 'SECRET-free-victim-0123456789', plan: 'free', sacrificial: true },
      { key: 'SECRET-pro-precious-0123456789', plan: 'pro' },
    ];
    const clock = createClock(120);
    const t = await countedTarget(ctx, entries, { clock });
    const result = await runScenario({
      scenario: loadScenario('ban-probe'),
      target: { kind: 'external', url: t.url, keys: t.keys, clock },
      reportDir: `${t.dir}/r`,
    });
    expect(t.byAuth.get(`Bearer ${entries[0]!.key}`)).toBeGreaterThan(60);
    expect(t.byAuth.has(`Bearer ${entries[1]!.key}`)).toBe(false);
    const ban = result.report.checks.find((c) => c.id === 'ban.probe')!;
    expect(ban.byPlan.find((p) => p.plan === 'pro')!.reasons).toEqual([
      'opt-in: needs a pro key marked "sacrificial": true in the keys file',
    ]);
    // The free plan's probe ran (on the sacrificial key), whatever it found.
    expect(ban.byPlan.find((p) => p.plan === 'free')!.reasons.join()).not.toMatch(/opt-in/);
  });
});

describe.concurrent('a run against a remote target', () => {
  // Only listPets, which always counts: the key's first answer (whatever the load sends first) shows its day spent by one.
  const scenario = (rate: string) =>
    `name: remote\ndescription: a short load\nload:\n  mix: { listPets: 100 }\n  phases:\n    - { executor: constant-rate, rate: ${rate}, duration: 600ms }\n`;
  /** An enterprise key with a small day, headers describing the day window: the quota read finds 49 left. */
  const smallDay = (ctx: TestContext) =>
    countedTarget(ctx, [{ key: 'SECRET-ent-0123456789abcdef', plan: 'enterprise', perMinute: 1000, perDay: 50 }], {
      windowReport: 'day',
    });

  it('announces target, plans, the requests it will send and what each key has left, before anything else, even with --quiet', async (ctx) => {
    const t = await smallDay(ctx);
    const r = await runCli(
      [
        'run',
        t.file('remote.yaml', scenario('50/s')),
        '--target',
        t.url,
        '--keys-file',
        t.keysFile,
        '--report-dir',
        `${t.dir}/r`,
        '--quiet',
      ],
      {
        env: { PETLOAD_TREAT_AS_REMOTE: '1' },
      },
    );
    expect(r.code).toBe(0);
    const label = 'enterprise#1 (…cdef)';
    expect(r.stderr.split('\n').slice(0, 8)).toEqual([
      `petload: remote against the remote target ${t.url}`,
      `  plans enterprise; keys ${label}`,
      '  about 31 requests: enterprise 30 (probes 0, load 30); 1 without a valid key',
      '  expected duration about 1 s, 0.0 minute windows of the target',
      `    ${label}: 30 requests`,
      "  each key's daily quota left is read from the first answer on it, where its headers tell it; nothing is sent for it",
      // From the load's first answer on the key: no request of its own.
      `  ${label}: 49 of 50 requests left today`,
      '',
    ]);
    // Reachability and the load: nothing else.
    expect(t.requests()).toBe(31);
    expect(readReportJson(`${t.dir}/r`).notes).toContain(`Daily quota: ${label}: 49 of 50 requests left today.`);
  });

  it('stops before any traffic when the estimate exceeds what a key can have left today (exit 2)', async (ctx) => {
    const t = await smallDay(ctx);
    const r = await runCli(
      [
        'run',
        t.file('remote.yaml', scenario('100/s')),
        '--target',
        t.url,
        '--keys-file',
        t.keysFile,
        '--report-dir',
        `${t.dir}/r`,
      ],
      {
        env: { PETLOAD_TREAT_AS_REMOTE: '1' },
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "petload: the run would use up a key's daily quota: enterprise needs 60 requests, more than at most 50 left today on its key; nothing was sent",
    );
    expect(r.stderr).toContain(
      'hint: Run fewer plans or a shorter scenario, wait for the day window to reset, or pass --allow-quota-exhaustion',
    );
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(t.requests()).toBe(0);
    expect(reportFilesIn(`${t.dir}/r`)).toEqual([]);
  });

  it('stops at the first answer on a key that has less left today than the run will send on it (exit 2)', async (ctx) => {
    const t = await smallDay(ctx);
    // Another client spent 25 of the key's 50 today.
    for (let i = 0; i < 25; i++)
      await fetch(`${t.url}/pets?limit=1`, { headers: { authorization: 'Bearer SECRET-ent-0123456789abcdef' } });
    const r = await runCli(
      [
        'run',
        t.file('remote.yaml', scenario('50/s')),
        '--target',
        t.url,
        '--keys-file',
        t.keysFile,
        '--report-dir',
        `${t.dir}/r`,
      ],
      { env: { PETLOAD_TREAT_AS_REMOTE: '1' } },
    );
    expect(r.code).toBe(2);
    // The run had begun (one request on the key): what it sent is reported, aborted with the reason.
    expect(reportFilesIn(`${t.dir}/r`)).toContain('report.json');
    const report = readReportJson(`${t.dir}/r`);
    expect(report.verdict).toBe('aborted');
    expect(report.abortReason).toMatch(/^the run would use up a key's daily quota: enterprise#1/);
    expect(r.stderr).toContain('  enterprise#1 (…cdef): 24 of 50 requests left today');
    expect(r.stderr).toContain(
      "petload: the run would use up a key's daily quota: enterprise#1 (…cdef) is to be sent 29 more requests, more than the 24 it has left today; nothing more was sent",
    );
    // Reachability and the key's first request, which read its day.
    expect(t.requests()).toBe(25 + 2);
  });

  it('goes ahead with --allow-quota-exhaustion, saying so', async (ctx) => {
    const t = await smallDay(ctx);
    const r = await runCli(
      [
        'run',
        t.file('remote.yaml', scenario('100/s')),
        '--target',
        t.url,
        '--keys-file',
        t.keysFile,
        '--report-dir',
        `${t.dir}/r`,
        '--allow-quota-exhaustion',
      ],
      {
        env: { PETLOAD_TREAT_AS_REMOTE: '1' },
      },
    );
    expect([0, 1]).toContain(r.code);
    expect(r.stderr).toContain(
      "going ahead anyway (--allow-quota-exhaustion): the run would use up a key's daily quota",
    );
    // Past the two requests a refused run sends (reachability, quota read): the load ran and a report was written.
    // How many of the 60 paced sends go out depends on the machine (late sends are dropped, Remaining=0 pauses).
    expect(t.requests()).toBeGreaterThan(12);
    expect(reportFilesIn(`${t.dir}/r`).length).toBeGreaterThan(0);
  });

  it('goes ahead when the headers do not tell the day, and says the day is unknown', async (ctx) => {
    const entries = [
      { key: 'SECRET-free-0123456789abcdef', plan: 'free' },
      { key: 'SECRET-free-1123456789abcdef', plan: 'free' },
    ];
    const t = await countedTarget(ctx, entries, { windowReport: 'minute' });
    const said: string[] = [];
    const result = await runScenario({
      scenario: parseScenarioText(scenario('10/s'), 'remote.yaml'),
      target: { kind: 'external', url: t.url, keys: t.keys, treatAsRemote: true },
      notice: (l) => said.push(l),
      reportDir: `${t.dir}/r`,
    });
    expect(result.exitCode).toBe(0);
    // Once for the run, not once per key, and nothing sent to learn it: reachability and the load only.
    expect(said.filter((l) => l.includes('unknown'))).toEqual([
      "  today's remaining quota is unknown (free#1 (…cdef)'s first answer: its rate-limit headers describe the minute window); nothing is sent to learn it, and each plan's requests fit in its keys' full daily quotas",
    ]);
    expect(t.requests()).toBe(1 + result.report.totals.requests);
  });

  it('is not announced for a loopback target without the testing aid', async (ctx) => {
    const t = await countedTarget(ctx, [{ key: 'SECRET-free-0123456789abcdef', plan: 'free' }]);
    const said: string[] = [];
    const result = await runScenario({
      scenario: parseScenarioText(scenario('10/s'), 'remote.yaml'),
      target: { kind: 'external', url: t.url, keys: t.keys },
      notice: (l) => said.push(l),
      reportDir: `${t.dir}/r`,
    });
    expect(result.exitCode).toBe(0);
    expect(said).toEqual([]);
    // Reachability and the load: no quota read.
    expect(t.requests()).toBe(1 + 6);
  });
});
