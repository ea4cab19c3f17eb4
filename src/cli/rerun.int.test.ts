/**
 * `petload rerun` through the real CLI over loopback: a compliance run on one plan against the embedded server with
 * two faults (limit-not-enforced, error-shape), then its report judged again with the same faults (still failing, and
 * fewer requests), with none (fixed), with another fault that breaks a check judged again differently (newly failing),
 * and against a compliant `petload serve` (--target, today's keys); a report that cannot be read, and one whose
 * target is unreachable.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RerunRecord } from '../drift/rerun-text.js';
import type { Report } from '../report/schema.js';
import { readReportJson, runCli, STACK_LINE, scratch, startServe } from '../testing/cli.js';
import { deadPort } from '../testing/hostile/server.js';
import { filesUnder, findSecret, recognisableKey } from '../testing/secrets.js';

const root = mkdtempSync(join(tmpdir(), 'petload-rerun-'));
const FAULTY = join(root, 'faulty');
const FAULTS = ['--fault', 'limit-not-enforced', '--fault', 'error-shape'];
const CLI_MS = { killAfterMs: 60_000 };

/** `petload rerun REPORT --report-dir DIR ...more`: its result, and the new report and rerun.json it wrote. */
async function rerun(name: string, more: readonly string[] = [], env: NodeJS.ProcessEnv = {}) {
  const dir = join(root, name);
  const r = await runCli(['rerun', FAULTY, '--report-dir', dir, '--quiet', ...more], { ...CLI_MS, env });
  const record = (): RerunRecord => JSON.parse(readFileSync(join(dir, 'rerun.json'), 'utf8'));
  return { ...r, dir, report: () => readReportJson(dir), record };
}

const pairs = (xs: readonly { id: string; plan: string | null }[]) => xs.map((x) => `${x.id} [${x.plan ?? '-'}]`);

let first: Report;
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(async () => {
  const r = await runCli(['run', 'compliance', '--plan', 'free', ...FAULTS, '--report-dir', FAULTY, '--quiet'], CLI_MS);
  expect(r.code, r.stderr).toBe(1);
  first = readReportJson(FAULTY);
}, 60_000);

// Each re-run has its own report folder and embedded server: they run side by side.
describe.concurrent('petload rerun of a compliance report with two faults', { timeout: 60_000 }, () => {
  it('prints what it judges again before it runs, and against the same faults: still failing, exit 1, fewer requests', async () => {
    const r = await rerun('same');
    expect(r.code, r.stderr).toBe(1);
    const list = r.stdout.split('\n');
    const record = r.record();
    const chosen = new Set(record.chosen.map((c) => c.check));
    const head = /^petload rerun: (\d+) checks of .*faulty\/report\.json \(.*, fail\) to judge again on free:$/.exec(
      list[0]!,
    );
    expect(Number(head?.[1])).toBe(chosen.size);
    expect(list[1]).toBe('  failed: contract.error-shape [-, free], ratelimit.enforced [free]');
    // No 429 under limit-not-enforced: what waits on one is judged again, and nothing that passed everywhere.
    expect(record.chosen).toEqual(
      expect.arrayContaining([
        { check: 'ratelimit.quota-restored', plan: 'free', why: 'waits on', detail: expect.any(String) },
        { check: 'retry-after.present', plan: 'free', why: 'not exercised', detail: 'not exercised: no 429 response' },
      ]),
    );
    const passed = first.checks.filter((c) => c.byPlan.every((o) => o.status === 'pass')).map((c) => c.id);
    expect(passed.length).toBeGreaterThan(0);
    expect(passed.filter((id) => chosen.has(id))).toEqual([]);
    const now = r.report();
    expect(now.focus?.checks).toContain('ratelimit.enforced');
    expect(now.focus?.checks).not.toContain('ratelimit.day-enforced');
    expect(now.totals.requests).toBeGreaterThan(0);
    expect(now.totals.requests).toBeLessThan(first.totals.requests);
    expect(pairs(record.stillFailing)).toEqual([
      'contract.error-shape [-]',
      'contract.error-shape [free]',
      'ratelimit.enforced [free]',
    ]);
    expect(record.fixed).toEqual([]);
    expect(pairs(record.stillNotJudged)).toContain('retry-after.present [free]');
    expect(record.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^petload rerun compliance: 3 still failing(, .+)?$/m);
    expect(readFileSync(join(r.dir, 'rerun.md'), 'utf8')).toMatch(/^## Re-run of compliance: 3 still failing/);
  });

  it('with the faults gone (--no-fault): fixed, the skips they caused now judged, exit 0', async () => {
    const r = await rerun('fixed', ['--no-fault']);
    expect(r.code, r.stderr).toBe(0);
    const record = r.record();
    expect(record.now.faults).toEqual([]);
    expect(pairs(record.fixed)).toEqual([
      'contract.error-shape [-]',
      'contract.error-shape [free]',
      'ratelimit.enforced [free]',
    ]);
    expect(pairs(record.nowJudged)).toEqual(
      expect.arrayContaining([
        'ratelimit.quota-restored [free]',
        'retry-after.present [free]',
        'retry-after.honest [free]',
      ]),
    );
    expect([...record.stillFailing, ...record.newlyFailing, ...record.notConfirmed]).toEqual([]);
    expect(r.stdout).toMatch(/^ {2}FIXED ratelimit\.enforced \[free\]$/m);
  });

  it('with another fault that breaks a check judged again (no Retry-After on 429): newly failing, exit 1', async () => {
    const r = await rerun('other-fault', ['--fault', 'retry-after-missing']);
    expect(r.code, r.stderr).toBe(1);
    const record = r.record();
    expect(record.now.faults).toEqual(['retry-after-missing']);
    expect(pairs(record.newlyFailing)).toEqual(['retry-after.present [free]']);
    expect(record.newlyFailing[0]).toMatchObject({ baseline: 'skip', current: 'fail' });
    expect(pairs(record.fixed)).toContain('ratelimit.enforced [free]');
    expect(r.stdout).toMatch(/^ {2}NEWLY FAILING retry-after\.present \[free\]: /m);
  });

  it("an error-shape report against a compliant `petload serve` (--target, today's keys from --keys-file): fixed, exit 0", async (ctx) => {
    // One fault only: judged again against an external target (whose windows petload waits out in real time, the
    // serve's scaled clock unknown to it), the error bodies need no window of their own.
    const errorShape = join(root, 'error-shape');
    const run = [
      'run',
      'compliance',
      '--plan',
      'free',
      '--fault',
      'error-shape',
      '--quiet',
      '--report-dir',
      errorShape,
    ];
    expect((await runCli(run, CLI_MS)).code).toBe(1);
    const s = scratch('petload-rerun-serve-');
    const secrets = [1, 2, 3].map(() => recognisableKey('free'));
    const keys = s.keys(secrets.map((key) => ({ key, plan: 'free' })));
    const server = await startServe(['--keys-file', keys, '--time-scale', '60'], (kill) => ctx.onTestFinished(kill));
    const dir = join(root, 'serve');
    const args = ['rerun', errorShape, '--target', server.url, '--keys-file', keys, '--report-dir', dir, '--quiet'];
    const r = await runCli(args, CLI_MS);
    expect(r.code, r.stderr).toBe(0);
    const record: RerunRecord = JSON.parse(readFileSync(join(dir, 'rerun.json'), 'utf8'));
    expect(record.now.target).toBe(server.url);
    expect(pairs(record.fixed)).toEqual(['contract.error-shape [-]', 'contract.error-shape [free]']);
    // Today's keys, from the keys file: labels only in every file and line, as for run.
    const labels = secrets.map((k, i) => `free#${i + 1} (…${k.slice(-4)})`);
    expect(readReportJson(dir).keys.map((k) => k.label)).toEqual(labels);
    const written = filesUnder(dir).map((f) => f.text);
    expect(findSecret([r.stdout, r.stderr, ...written].join('\n'), secrets)).toBeNull();
  });

  it('--dry-run: the list and the focused schedule, nothing sent, no rerun.json', async () => {
    const r = await rerun('dry', ['--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('failed: contract.error-shape [-, free], ratelimit.enforced [free]');
    expect(existsSync(join(r.dir, 'report.json'))).toBe(false);
    expect(existsSync(join(r.dir, 'rerun.json'))).toBe(false);
  });
});

describe.concurrent('petload rerun refuses what it cannot re-judge', () => {
  const s = scratch('petload-rerun-bad-');
  it('a report that is not there, or not JSON: one line and a hint, exit 2', async () => {
    const missing = await runCli(['rerun', join(s.dir, 'nothing-here')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.split('\n')[0]).toBe(`petload: ${join(s.dir, 'nothing-here')}: no such file or directory`);
    expect(missing.stderr).toContain('hint: Give the report.json of a run, or the folder it is in');
    const garbled = s.file('report.json', '{"schemaVersion": 1, "checks": [');
    const bad = await runCli(['rerun', s.dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toMatch(new RegExp(`^petload: ${garbled}: not valid JSON \\(`));
    expect(`${missing.stderr}${bad.stderr}`).not.toMatch(STACK_LINE);
  });

  it('a report with nothing to judge again: says so, sends nothing, exit 0', async () => {
    const passing = { ...first, checks: first.checks.filter((c) => c.status === 'pass') };
    const path = s.file('passing.json', JSON.stringify(passing));
    const dir = join(s.dir, 'passing');
    const r = await runCli(['rerun', path, '--report-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('petload rerun: nothing to judge again');
    expect(existsSync(dir)).toBe(false);
  });

  it('a report whose target is unreachable: the run aborts with one line, exit 3, nothing compared', async () => {
    const port = await deadPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const report = { ...first, target: { url, embedded: false, timeScale: 1, faults: [] } };
    const path = s.file('unreachable.json', JSON.stringify(report));
    const dir = join(s.dir, 'unreachable');
    const keys = JSON.stringify({ keys: [{ key: 'rerun-free-key-000000009', plan: 'free' }] });
    const r = await runCli(['rerun', path, '--report-dir', dir, '--quiet'], { env: { PETLOAD_KEYS: keys } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('petload:'))).toEqual([
      `petload: target ${url} is unreachable: ECONNREFUSED (nothing listens on 127.0.0.1:${port})`,
    ]);
    expect(existsSync(join(dir, 'rerun.json'))).toBe(false);
  });
});
