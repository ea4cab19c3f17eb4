/**
 * Scope is a contract (docs/scenarios.md, "Scope"): a plan the scenario's `plans:` or --plan names without a key
 * stops `petload run` with exit 2 before any traffic, one line naming the plan and where its key was expected; a
 * partial run (--partial, or partial: true in the scenario) judges the others and names the plan not judged in
 * the verdict line of the console and of every report file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countingServer, readReportJson, reportFilesIn, runCli, scratch } from '../testing/cli.js';

const PRO_KEY = 'SECRET-pro-0123456789abcdef';

const scenario = (partial: boolean) =>
  [
    'name: two-plans',
    'description: pro and business',
    'plans: [pro, business]',
    'probes: [list]',
    ...(partial ? ['partial: true'] : []),
  ].join('\n');

describe('run: every plan in scope has a key', () => {
  it.each([
    [
      '--keys-file',
      (file: string) => ({ args: ['--keys-file', file], env: {} }),
      /in the keys file \S+keys\.json \(--keys-file\)$/m,
    ],
    [
      'PETLOAD_KEYS_FILE',
      (file: string) => ({ args: [], env: { PETLOAD_KEYS_FILE: file } }),
      /in the keys file \S+keys\.json \(named by PETLOAD_KEYS_FILE: a file or a mounted secret\)$/m,
    ],
    [
      'PETLOAD_KEYS',
      (file: string) => ({ args: [], env: { PETLOAD_KEYS: readFileSync(file, 'utf8') } }),
      /in the keys JSON of the environment variable PETLOAD_KEYS$/m,
    ],
  ])(
    'a plan of the scenario without a key (keys from %s): exit 2 before any traffic, naming the plan',
    { timeout: 30_000 },
    async (_source, keysFrom, where) => {
      const target = await countingServer();
      try {
        const s = scratch('petload-scope-');
        const file = s.keys([{ key: PRO_KEY, plan: 'pro' }]);
        const given = keysFrom(file);
        const r = await runCli(
          [
            'run',
            s.file('two.yaml', scenario(false)),
            '--target',
            target.url,
            ...given.args,
            '--report-dir',
            join(s.dir, 'r'),
          ],
          { env: { PETLOAD_KEYS_FILE: undefined, PETLOAD_KEYS: undefined, ...given.env } },
        );
        expect(r.code).toBe(2);
        const first = r.stderr.split('\n').find((l) => l.startsWith('petload: plan'));
        expect(first).toMatch(
          /^petload: plan business \(named by the scenario's plans:\) has no key: expected a key \{"plan": "business"\} /,
        );
        expect(first).toMatch(where);
        expect(target.requests()).toBe(0);
        expect(reportFilesIn(join(s.dir, 'r'))).toEqual([]);
        expect(r.stderr + r.stdout).not.toContain(PRO_KEY);
      } finally {
        await target.close();
      }
    },
  );

  it('--plan naming a plan without a key is refused the same way', { timeout: 30_000 }, async () => {
    const target = await countingServer();
    try {
      const s = scratch('petload-scope-');
      const keys = s.keys([{ key: PRO_KEY, plan: 'pro' }]);
      const r = await runCli(
        ['run', 'smoke', '--target', target.url, '--keys-file', keys, '--plan', 'pro', '--plan', 'free'],
        { env: { PETLOAD_KEYS_FILE: undefined, PETLOAD_KEYS: undefined } },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^petload: plan free \(named by --plan\) has no key: expected a key \{"plan": "free"\} in the keys file /m,
      );
      expect(target.requests()).toBe(0);
    } finally {
      await target.close();
    }
  });

  it.each([
    ['--partial', false, ['--partial']],
    ['partial: true in the scenario', true, []],
  ])(
    'a partial run (%s) judges the plans with a key and names the other in every verdict line',
    { timeout: 60_000 },
    async (_how, inScenario, flags) => {
      const s = scratch('petload-scope-');
      const keys = s.keys([{ key: PRO_KEY, plan: 'pro' }]);
      const dir = join(s.dir, 'r');
      const r = await runCli([
        'run',
        s.file('two.yaml', scenario(inScenario)),
        '--keys-file',
        keys,
        ...flags,
        '--report-dir',
        dir,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const words = 'partial: business not judged, no key';
      expect(r.stdout).toMatch(/^petload two-plans: PASS \(partial: business not judged, no key\) /m);
      const report = readReportJson(dir);
      expect(report.verdict).toBe('pass');
      expect(report.plans).toEqual(['pro']);
      expect(report.notJudged).toEqual([{ plan: 'business', reason: 'no key' }]);
      expect(report.checks.flatMap((c) => c.byPlan.map((p) => p.plan))).not.toContain('business');
      const md = readFileSync(join(dir, 'summary.md'), 'utf8');
      expect(md).toContain(`## petload two-plans: PASS (${words})`);
      const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
      expect(junit).toContain('<property name="notJudged" value="business (no key)"/>');
      expect(junit).toMatch(
        /<testcase classname="petload\.scope" name="scope \[business\]"[^>]*><skipped message="plan business not judged: no key/,
      );
      const html = readFileSync(join(dir, 'report.html'), 'utf8');
      expect(html).toContain(`<title>petload two-plans: PASS (${words})</title>`);
      expect(html).toContain(`<div class="partial" id="partial">${words}</div>`);
    },
  );
});
