/** `petload run` and GitHub Actions' job summary, through the real CLI against the embedded server. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scratch, STACK_LINE } from '../testing/cli.js';
import { appendGithubSummary, githubSummaryFile } from './github-summary.js';

const TINY = (name: string) => `name: ${name}\ndescription: auth probe only\nprobes: [auth]\n`;

describe('--github-summary', () => {
  it("appends each run's summary.md to GITHUB_STEP_SUMMARY when the variable is set, after what was there", async () => {
    const s = scratch();
    const summary = s.file('step-summary.md', '# earlier step\n');
    const a = s.file('first.yaml', TINY('first'));
    const b = s.file('second.yaml', TINY('second'));
    const out = join(s.dir, 'out');
    const r = await runCli(['run', a, b, '--report-dir', out, '--quiet'], { env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.code, r.stderr).toBe(0);
    const first = readFileSync(join(out, 'first', 'summary.md'), 'utf8');
    const second = readFileSync(join(out, 'second', 'summary.md'), 'utf8');
    expect(first).toContain('first');
    expect(readFileSync(summary, 'utf8')).toBe(`# earlier step\n${first}\n${second}\n`);
  });

  it('--no-github-summary leaves the file alone', async () => {
    const s = scratch();
    const summary = s.file('step-summary.md', '# untouched\n');
    const r = await runCli(
      ['run', s.file('one.yaml', TINY('one')), '--report-dir', join(s.dir, 'out'), '--quiet', '--no-github-summary'],
      { env: { GITHUB_STEP_SUMMARY: summary } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(s.dir, 'out', 'summary.md'))).toBe(true);
    expect(readFileSync(summary, 'utf8')).toBe('# untouched\n');
  });

  it('--github-summary without the variable is a usage error before anything runs', async () => {
    const s = scratch();
    const out = join(s.dir, 'out');
    const r = await runCli(['run', s.file('one.yaml', TINY('one')), '--report-dir', out, '--github-summary']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^petload: --github-summary: GITHUB_STEP_SUMMARY is not set/);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(existsSync(out)).toBe(false);
  });

  it('a summary file that cannot be written costs a notice, not the run', async () => {
    const s = scratch();
    const summary = join(s.dir, 'missing-dir', 'summary.md');
    const r = await runCli(['run', s.file('one.yaml', TINY('one')), '--report-dir', join(s.dir, 'out'), '--quiet'], {
      env: { GITHUB_STEP_SUMMARY: summary },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('could not append the summary to GITHUB_STEP_SUMMARY');
    expect(r.stderr).toContain('ENOENT');
    expect(existsSync(join(s.dir, 'out', 'report.json'))).toBe(true);
  });
});

describe('githubSummaryFile', () => {
  it('follows the variable by default, the flag on demand, and --no-github-summary always', () => {
    expect(githubSummaryFile(undefined, {})).toBeNull();
    expect(githubSummaryFile(undefined, { GITHUB_STEP_SUMMARY: '/x' })).toBe('/x');
    expect(githubSummaryFile(undefined, { GITHUB_STEP_SUMMARY: '' })).toBeNull();
    expect(githubSummaryFile(true, { GITHUB_STEP_SUMMARY: '/x' })).toBe('/x');
    expect(githubSummaryFile(false, { GITHUB_STEP_SUMMARY: '/x' })).toBeNull();
    expect(() => githubSummaryFile(true, {})).toThrow(/GITHUB_STEP_SUMMARY is not set/);
  });

  it('appendGithubSummary adds a blank line after the summary and reports a missing source', async () => {
    const s = scratch();
    const md = s.file('summary.md', '## petload\nPASS');
    const target = s.file('target.md', '');
    expect(await appendGithubSummary(target, md)).toBeNull();
    expect(await appendGithubSummary(target, md)).toBeNull();
    expect(readFileSync(target, 'utf8')).toBe('## petload\nPASS\n\n## petload\nPASS\n\n');
    writeFileSync(target, '');
    expect(await appendGithubSummary(target, join(s.dir, 'nope.md'))).toMatch(/ENOENT/);
  });
});
