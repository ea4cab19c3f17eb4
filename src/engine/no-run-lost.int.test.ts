/**
 * No run is lost: when the report cannot be assembled or does not validate (forced here through the engine's
 * amendReport seam, on a real run against the embedded server), report.json still records what the run
 * collected, with verdict `error`, the other formats are rendered from what was assembled, and the run ends
 * with exit 4 and a failure saying where. And a dead target, with keys that begin with their plan's name,
 * ends in exit 3 with a report whose verdict is `aborted` (through the real CLI).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { parseScenarioText } from '../config/load-scenario.js';
import { createReferenceServer } from '../reference-server/index.js';
import { EXIT } from '../core/errors.js';
import { readReportFile } from '../outputs/read.js';
import { REPORT_FILES, readReportJson, reportFilesIn, runCli, scratch } from '../testing/cli.js';
import { filesUnder, findSecret } from '../testing/secrets.js';
import { ErrorReportSchema } from './error-report.js';
import type { Report } from '../report/schema.js';
import { runScenario } from './run.js';

const SCENARIO = parseScenarioText(
  `name: tiny
description: Two quick probes
timeScale: 60
probes: [auth, list]
`,
  'tiny.yaml',
);

async function runWith(amendReport: (r: Report) => Report) {
  const dir = mkdtempSync(join(tmpdir(), 'petload-no-run-lost-'));
  const result = await runScenario({ scenario: SCENARIO, reportDir: dir, plans: ['free', 'pro'], amendReport });
  return { dir, result };
}

describe('a report that cannot be assembled', () => {
  it.each([
    [
      'fails validation',
      (r: Report) => ({ ...r, plans: ['gold'] }) as unknown as Report,
      /does not match its schema \(plans\[0\]/,
    ],
    [
      'throws while being assembled',
      () => {
        throw new Error('injected assembly failure');
      },
      /injected assembly failure/,
    ],
  ])(
    '%s: report.json keeps the raw parts with verdict error, the other formats are written, exit 4',
    async (_what, amend, why) => {
      const { dir, result } = await runWith(amend);
      expect(result.exitCode).toBe(EXIT.internal);
      expect(result.failure?.message).toMatch(why);
      expect(result.failure?.reportDir).toBe(dir);
      expect(Object.values(result.failure?.files ?? {}).sort()).toEqual(REPORT_FILES.map((f) => join(dir, f)).sort());
      expect(reportFilesIn(dir)).toEqual([...REPORT_FILES]);

      const doc = ErrorReportSchema.parse(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')));
      expect(doc.verdict).toBe('error');
      expect(doc.exitCode).toBe(4);
      expect(doc.error).toMatch(why);
      expect(doc.plans).toEqual(['free', 'pro']);
      // The raw parts are there: the probes' outcomes and the metrics of the requests they sent.
      const outcomes = doc.parts.outcomes as { id: string; plan: string | null; passed: number }[];
      expect(outcomes.some((o) => o.id === 'list.schema' && o.plan === 'free' && o.passed > 0)).toBe(true);
      expect((doc.parts.metrics as { totals: { requests: number } }).totals.requests).toBeGreaterThan(0);
      // The other formats say what happened instead of a verdict.
      expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(/ABORTED[\s\S]*the report could not be assembled/);
      // `petload report` refuses it with a clear message, not a schema dump.
      expect(() => readReportFile(join(dir, 'report.json'))).toThrow(/could not be assembled \(verdict error\)/);
    },
  );

  it('a run that assembles as usual has no failure and writes a valid report', async () => {
    const { dir, result } = await runWith((r) => r);
    expect(result.failure).toBeUndefined();
    expect(result.exitCode).toBe(0);
    expect(readReportJson(dir).verdict).toBe('pass');
  });
});

describe('a dead target, with keys that begin with their plan name', () => {
  it('exits 3 with report.json verdict aborted, one line saying it is unreachable, and no key anywhere', async () => {
    const s = scratch('petload-dead-');
    const secrets = ['free-key-1', 'pro-key-1'];
    const keys = s.keys([
      { key: secrets[0]!, plan: 'free' },
      { key: secrets[1]!, plan: 'pro' },
    ]);
    const dir = join(s.dir, 'R');
    const r = await runCli([
      'run',
      'smoke',
      '--target',
      'http://127.0.0.1:9/v1',
      '--keys-file',
      keys,
      '--report-dir',
      dir,
    ]);
    expect(r.code, r.stderr).toBe(EXIT.aborted);
    const report = readReportJson(dir);
    expect(report.verdict).toBe('aborted');
    expect(report.exitCode).toBe(3);
    expect(report.plans).toEqual(['free', 'pro']);
    expect(report.keys.map((k) => [k.label, k.plan])).toEqual([
      ['free#1 (…ey-1)', 'free'],
      ['pro#1 (…ey-1)', 'pro'],
    ]);
    expect(r.stderr.split('\n').filter((l) => /unreachable/.test(l))).toEqual([
      'petload: target http://127.0.0.1:9/v1 is unreachable: ECONNREFUSED (nothing listens on 127.0.0.1:9)',
    ]);
    expect(r.stderr).not.toMatch(/bug in petload/);
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
    for (const f of filesUnder(dir)) for (const k of secrets) expect(f.text.includes(k), f.path).toBe(false);
    expect(findSecret(`${r.stdout}\n${r.stderr}`, secrets)).toBeNull();
  });
});

describe('keys that begin with their plan name, against a live target', () => {
  it('the run passes, the report keeps every plan and label, and no key is anywhere', async () => {
    const entries = [
      { key: 'free-key-1', plan: 'free' },
      { key: 'pro-key-1', plan: 'pro' },
      { key: 'business-key-1', plan: 'business' },
    ];
    const server = await createReferenceServer({ keys: parseKeys({ keys: entries }, 'test') });
    try {
      const s = scratch('petload-plan-named-');
      const keys = s.keys(entries);
      const scenario = s.file(
        'probes.yaml',
        'name: probes\ndescription: the quick probes\nprobes: [auth, list, create-get, unknown-id]\n',
      );
      const dir = join(s.dir, 'R');
      const r = await runCli(['run', scenario, '--target', server.url, '--keys-file', keys, '--report-dir', dir]);
      expect(r.code, r.stderr).toBe(0);
      const report = readReportJson(dir);
      expect(report.verdict).toBe('pass');
      expect(report.plans).toEqual(['free', 'pro', 'business']);
      expect(report.keys.map((k) => k.label)).toEqual(['free#1 (…ey-1)', 'pro#1 (…ey-1)', 'business#1 (…ey-1)']);
      expect(new Set(report.checks.flatMap((c) => c.byPlan.map((o) => o.plan)))).toEqual(
        new Set([null, 'free', 'pro', 'business']),
      );
      // One line per plan on stderr (not a TTY), not one per probe.
      expect(r.stderr.split('\n').filter((l) => /^(free|pro|business|all plans): /.test(l))).toHaveLength(4);
      expect(r.stderr).not.toMatch(/^probe /m);
      for (const f of filesUnder(dir)) for (const e of entries) expect(f.text.includes(e.key), f.path).toBe(false);
      // (A window of 8 characters of `business-key-1` is the plan name itself: only whole keys are looked for here.)
      for (const e of entries) expect(`${r.stdout}\n${r.stderr}`.includes(e.key)).toBe(false);
    } finally {
      await server.close();
    }
  });
});
