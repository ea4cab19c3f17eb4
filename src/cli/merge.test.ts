/** `petload merge` through the real CLI (from its sources: bin/petload-src.js), as a user runs it. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../report/schema.js';
import { renderJson } from '../outputs/json.js';
import { runCli } from '../testing/cli.js';
import { sampleReport } from '../testing/sample-report.js';

let dir: string;
const a = sampleReport({ seed: 1 });
const b = sampleReport({ seed: 2 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petload-cli-merge-'));
  await writeFile(join(dir, 'a.json'), renderJson(a));
  await writeFile(join(dir, 'b.json'), renderJson(b));
  await writeFile(join(dir, 'burst.json'), renderJson(sampleReport({ scenario: 'burst' })));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('petload merge', () => {
  it('merges runs of one scenario into every format', async () => {
    const out = join(dir, 'merged');
    const r = await runCli(['merge', join(dir, 'a.json'), join(dir, 'b.json'), '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const merged = ReportSchema.parse(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')));
    expect(merged.totals.requests).toBe(a.totals.requests + b.totals.requests);
    // The merged run failed a check: its reproduction scripts come with it (docs/reproductions.md).
    expect((await readdir(out)).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'repro', 'summary.md']);
  });

  it('refuses runs of different scenarios', async () => {
    const r = await runCli(['merge', join(dir, 'a.json'), join(dir, 'burst.json'), '--out', join(dir, 'mixed')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `cannot merge runs of different scenarios: ${join(dir, 'a.json')} is "compliance", ${join(dir, 'burst.json')} is "burst"`,
    );
  });
});
