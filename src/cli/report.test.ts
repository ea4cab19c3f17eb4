/** `petload report` through the real CLI (from its sources: bin/petload-src.js), as a user runs it. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderJson } from '../outputs/json.js';
import { OUTPUTS } from '../outputs/registry.js';
import { runCli } from '../testing/cli.js';
import { sampleReport } from '../testing/sample-report.js';

let dir: string;
const a = sampleReport({ seed: 1 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petload-cli-report-'));
  await writeFile(join(dir, 'a.json'), renderJson(a));
  const broken = JSON.parse(renderJson(a)) as Record<string, unknown>;
  delete broken.verdict;
  (broken.summary as Record<string, unknown>).failed = 'two';
  await writeFile(join(dir, 'broken.json'), JSON.stringify(broken));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('petload report', () => {
  it("renders every format again, prints the summary and exits with the report's exit code", async () => {
    const out = join(dir, 'rendered');
    const r = await runCli(['report', join(dir, 'a.json'), '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^petload compliance: FAIL/);
    expect(r.stdout).toContain(`Reports in ${out}/: report.json, junit.xml, summary.md, report.html`);
    for (const o of Object.values(OUTPUTS)) expect(await readFile(join(out, o.file), 'utf8')).toBe(o.render(a));
  });

  it('refuses a file that is not a report with exit 2 and one clear message', async () => {
    const r = await runCli(['report', join(dir, 'broken.json'), '--out', join(dir, 'never')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^petload: \S+broken\.json: not a valid petload report\n {2}verdict: expected one of pass, fail, aborted/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    await expect(readdir(join(dir, 'never'))).rejects.toThrow();
  });
});
