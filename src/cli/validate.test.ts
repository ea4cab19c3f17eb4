import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'petload-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STACK_FRAME = /^\s+at /m;

describe('petload validate', () => {
  const good = join(dir, 'good.yaml');
  writeFileSync(good, 'name: mine\ndescription: My checks\nprobes: [auth]\n');
  const bad = join(dir, 'bad.yaml');
  writeFileSync(
    bad,
    'name: bad\ndescription: d\nplans: [free, prp]\nload:\n  phases:\n    - { executor: burst, requets: 5 }\n',
  );

  it('prints ok per valid file (paths and shipped names) and exits 0', async () => {
    const r = await runCli(['validate', good, 'smoke']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`ok ${good} (mine)\nok smoke (smoke)\n`);
    expect(r.code).toBe(0);
  });

  it('lists every problem of an invalid file with file, line, path, expected and found, exits 2, no stack trace', async () => {
    const r = await runCli(['validate', bad, good]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(`ok ${good} (mine)\n`);
    expect(r.stderr).toContain(`invalid scenario ${bad} (3 problems):`);
    expect(r.stderr).toContain(
      `${bad}:3:15 plans[1]: expected one of free, pro, business, enterprise, found "prp" (did you mean "pro"?)`,
    );
    expect(r.stderr).toContain(`${bad}:6:7 load.phases[0].requests: expected a number of requests`);
    expect(r.stderr).toContain(
      `${bad}:6:26 load.phases[0].requets: expected one of the keys executor, requests, found unknown key "requets" (did you mean "requests"?)`,
    );
    expect(r.stderr).toContain('petload: 1 of 2 scenario files is invalid');
    expect(r.stderr).not.toMatch(STACK_FRAME);
  });

  it('names a missing file and an unknown scenario, exits 2, no stack trace', async () => {
    const missing = join(dir, 'missing.yaml');
    const r = await runCli(['validate', missing, 'at-limt']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${missing}: cannot read the scenario file (no such file)`);
    expect(r.stderr).toContain('unknown scenario "at-limt" (did you mean "at-limit"?)');
    expect(r.stderr).toContain('petload: 2 of 2 scenario files are invalid');
    expect(r.stderr).not.toMatch(STACK_FRAME);
  });
});
