/**
 * Focus from the command line (docs/cli.md, "Focus"): `petload run --check ID` and `--probe NAME` run only what
 * judges the named checks, on the plans asked, against the embedded reference server at its 60x clock; every other
 * check is out of scope in report.json and in every output, and the exit code follows the checks in scope. A
 * focused run costs less than the full pass (requests and windows, as counted, never timed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../checks/catalogue.js';
import { CompareSchema } from '../drift/schema.js';
import { readReportJson, reportFilesIn, runCli, scratch } from '../testing/cli.js';

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

/** `petload run compliance --plan free ...` into a fresh folder: the result and the folder. */
async function compliance(...args: string[]) {
  const dir = join(scratch('petload-focus-').dir, 'r');
  const r = await runCli(['run', 'compliance', '--plan', 'free', '--quiet', '--report-dir', dir, ...args]);
  return { ...r, dir };
}

describe.concurrent('run --check', () => {
  it('against limit-not-enforced: fails exactly ratelimit.enforced, the other checks out of scope in every output, exit 1', {
    timeout: 30_000,
  }, async () => {
    const r = await compliance('--check', 'ratelimit.enforced', '--fault', 'limit-not-enforced');
    expect(r.code, r.stderr).toBe(1);
    const report = readReportJson(r.dir);
    expect(report.focus).toEqual({ checks: ['ratelimit.enforced'], probes: [] });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([['ratelimit.enforced', 'fail']]);
    expect(report.outOfScope).toEqual(CHECK_IDS.filter((id) => id !== 'ratelimit.enforced'));
    expect(report.summary).toMatchObject({ checks: 1, failed: 1, skipped: 0 });
    expect(report.verdict).toBe('fail');
    expect(reportFilesIn(r.dir)).toHaveLength(4);
    const line = 'Out of scope (--check ratelimit.enforced): 45 checks';
    expect(r.stdout).toContain(`petload compliance: FAIL (focus: --check ratelimit.enforced)`);
    expect(r.stdout).toContain(`${line}: not judged, not in the verdict`);
    expect(read(r.dir, 'summary.md')).toContain(`${line}: not judged, not in the verdict.`);
    expect(read(r.dir, 'summary.md')).toContain('`contract.error-shape`');
    expect(read(r.dir, 'report.html')).toContain(`<details class="partial" id="out-of-scope"><summary>${line}`);
    const junit = read(r.dir, 'junit.xml');
    expect(junit).toContain('<property name="focus" value="--check ratelimit.enforced"/>');
    expect(junit).toMatch(/<property name="outOfScope" value="contract\.transport, /);
    // One test case: the check in scope; none skipped for the checks out of scope.
    expect(junit).toMatch(/<testsuites name="petload.compliance" tests="1" failures="1" errors="0" skipped="0"/);
    // `petload report` renders the same from report.json.
    const again = join(r.dir, 'again');
    const rendered = await runCli(['report', join(r.dir, 'report.json'), '--out', again]);
    expect(rendered.code, rendered.stderr).toBe(1);
    expect(rendered.stdout).toContain(line);
    expect(read(again, 'summary.md')).toContain(line);
  });

  it('against the compliant server: passes, exit 0', { timeout: 30_000 }, async () => {
    const r = await compliance('--check', 'ratelimit.enforced');
    expect(r.code, r.stderr).toBe(0);
    const report = readReportJson(r.dir);
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([['ratelimit.enforced', 'pass']]);
    expect(report.verdict).toBe('pass');
  });

  it('a passive check outside the focus that fails on the focused traffic: a note, not the verdict (exit 0)', {
    timeout: 30_000,
  }, async () => {
    // Enforce's 429 carries no Retry-After: retry-after.present fails on it, outside the focus.
    const r = await compliance('--check', 'ratelimit.enforced', '--fault', 'retry-after-missing');
    expect(r.code, r.stderr).toBe(0);
    const report = readReportJson(r.dir);
    expect(report.checks.map((c) => c.id)).toEqual(['ratelimit.enforced']);
    expect(report.notes).toContainEqual(
      expect.stringMatching(
        /^outside the focus: retry-after\.present failed \d+ times? on the focused run's traffic; run without --check and --probe to judge it$/,
      ),
    );
  });
});

describe.concurrent('run --probe', () => {
  it('auth against auth-bypass: fails exactly auth.invalid-key, exit 1; the compliant server: exit 0', {
    timeout: 30_000,
  }, async () => {
    const [bad, good] = await Promise.all([
      compliance('--probe', 'auth', '--fault', 'auth-bypass'),
      compliance('--probe', 'auth'),
    ]);
    expect(bad.code, bad.stderr).toBe(1);
    const report = readReportJson(bad.dir);
    expect(report.focus).toEqual({ checks: [], probes: ['auth'] });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['auth.missing-key', 'pass'],
      ['auth.invalid-key', 'fail'],
      ['auth.challenge', 'pass'],
    ]);
    expect(report.outOfScope).toHaveLength(CHECK_IDS.length - 3);
    expect(bad.stdout).toContain('Out of scope (--probe auth): 43 checks');
    expect(good.code, good.stderr).toBe(0);
    expect(readReportJson(good.dir).checks.map((c) => c.status)).toEqual(['pass', 'pass', 'pass']);
  });
});

describe.concurrent('a focused run costs less than the full pass', () => {
  it('fewer requests and fewer planned windows, in report.json and --dry-run; compare sees no check gone', {
    timeout: 40_000,
  }, async () => {
    const [full, focused, fullDry, focusedDry] = await Promise.all([
      compliance(),
      compliance('--check', 'ratelimit.enforced'),
      runCli(['run', 'compliance', '--plan', 'free', '--dry-run']),
      runCli(['run', 'compliance', '--plan', 'free', '--dry-run', '--check', 'ratelimit.enforced']),
    ]);
    expect(full.code, full.stderr).toBe(0);
    expect(focused.code, focused.stderr).toBe(0);
    const a = readReportJson(full.dir);
    const b = readReportJson(focused.dir);
    expect(b.totals.requests).toBeLessThan(a.totals.requests);
    expect(b.schedule!.planned.requests + b.schedule!.planned.unkeyed).toBeLessThan(
      a.schedule!.planned.requests + a.schedule!.planned.unkeyed,
    );
    expect(b.schedule!.planned.windows).toBeLessThan(a.schedule!.planned.windows);
    // The dry run prints the same smaller estimate: `about N requests`.
    const estimate = (out: string) => Number(/about (\d+) requests/.exec(out)?.[1]);
    expect(fullDry.code).toBe(0);
    expect(focusedDry.code).toBe(0);
    expect(focusedDry.stdout).toContain(
      'Focus (--check ratelimit.enforced): 1 check judged by probe enforce; 45 out of scope',
    );
    expect(estimate(focusedDry.stdout)).toBeLessThan(estimate(fullDry.stdout));
    expect(fullDry.stdout).toMatch(/ restore /);
    expect(focusedDry.stdout).not.toMatch(/ restore /);

    // The focused run compared with the full one: the 45 checks are out of scope, neither gone nor a regression.
    const compared = await runCli(['compare', join(full.dir, 'report.json'), join(focused.dir, 'report.json')]);
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toContain('45 out of scope of a focused run, not compared');
    expect(compared.stdout).not.toMatch(/judged before, not now/);
    const comparison = CompareSchema.parse(JSON.parse(read(focused.dir, 'compare.json')));
    expect(comparison.checks.outOfScope).toHaveLength(45);
    expect(comparison.checks.newlySkipped).toEqual([]);
    expect(comparison.regressed).toBe(false);
  });
});

describe.concurrent('run --check and --probe refused', () => {
  it.each([
    [
      ['--check', 'ratelimit.enforce'],
      '--check: expected a check id (petload list checks), found "ratelimit.enforce" (did you mean "ratelimit.enforced"?)',
    ],
    [['--probe', 'retry-after'], '--probe: expected a probe name (petload list probes), found "retry-after"'],
    [
      ['--check', 'ban.probe'],
      '--check ban.probe is outside the scenario compliance: none of its probes or load judges it; it is in the scenario ban-probe',
    ],
    [
      ['--probe', 'plan-audit'],
      '--probe plan-audit is outside the scenario compliance: it is not one of its probes; it is in the scenario plan-audit',
    ],
  ])('%j: exit 2 before anything is sent, naming what and where', { timeout: 20_000 }, async (args, message) => {
    const r = await compliance(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`petload: ${message}`);
    expect(reportFilesIn(r.dir)).toEqual([]);
  });
});
