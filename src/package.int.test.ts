/**
 * The package as a user gets it: `npm pack` (which builds dist/ through `prepare`), the tarball installed into
 * an empty folder, then the CLI run through npx and the library imported with plain node, with no TypeScript
 * anywhere at run time. Dependencies come through npm as usual (its cache, else the registry).
 * The pack runs in a copy of the repository's files (tracked, or new and not ignored) with its node_modules
 * linked in, so that it proves a clean checkout packs, and never rebuilds this checkout's dist/ under other tests.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_IDS } from './checks/catalogue.js';
import { commands } from './cli/commands.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/**
 * The environment of a child npm: without the npm_* variables that `npm test` hands its scripts (one of them,
 * npm_config_local_prefix, would point a nested `npm install` at this repository instead of the temp folder).
 */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return {
    ...env,
    NO_COLOR: '1',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  timeoutMs = 120_000,
  env: NodeJS.ProcessEnv = {},
): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {
    cwd,
    env: { ...cleanEnv(), ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 2 ** 20,
  });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  if (r.error || r.status !== 0)
    throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const temp = mkdtempSync(join(tmpdir(), 'petload-pack-'));
const checkout = join(temp, 'checkout');
const app = join(temp, 'app');

/** The repository's files as a fresh clone plus uncommitted work has them, copied into `checkout`. */
function copyCheckout(): void {
  const files = ok(run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT), 'git ls-files')
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(ROOT, f))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(checkout, f)), { recursive: true });
    copyFileSync(join(ROOT, f), join(checkout, f));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');
}
let tarball = '';
let packed: string[] = [];

beforeAll(() => {
  // npm pack runs `prepare` (the build) first; its JSON names the tarball and every file in it.
  copyCheckout();
  expect(existsSync(join(checkout, 'dist'))).toBe(false);
  const out = ok(run(NPM, ['pack', '--json', '--pack-destination', temp], checkout, 180_000), 'npm pack');
  const info = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = join(temp, info[0]!.filename);
  packed = info[0]!.files.map((f) => f.path);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'petload-consumer', private: true, type: 'module' }));
  ok(
    run(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app, 240_000),
    'npm install <tarball>',
  );
}, 420_000);

afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('the npm package', () => {
  it('ships the compiled code, its declarations, the CLI, the scenarios, docs and LICENSE, and nothing for development', () => {
    const expected = [
      'package.json',
      'LICENSE',
      'README.md',
      'bin/petload.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'dist/bundle/petload.js',
      'dist/bundle/report-page.js',
      'dist/outputs/report-page.css',
      'dist/outputs/report-page.js',
      'scenarios/compliance.yaml',
      'docs/checks.md',
      'docs/examples/github-nightly.yml',
    ];
    for (const f of expected) expect(packed, f).toContain(f);
    const development = packed.filter(
      (f) =>
        /\.test\.|(^|\/)(src|bench|scripts|\.ci|reports|testing)\//.test(f) ||
        (f.endsWith('.ts') && !f.endsWith('.d.ts')) ||
        (f.startsWith('bin/') && f !== 'bin/petload.js'),
    );
    expect(development).toEqual([]);
  });

  // Each case spawns npx or node synchronously: on a crowded machine one spawn can take seconds, so each case is
  // given room beyond the 30 s default (a bound on waiting, not on speed: no case asserts a time).
  it('installs without a TypeScript compiler or loader', () => {
    const modules = join(app, 'node_modules');
    expect(existsSync(join(modules, 'petload', 'dist', 'index.js'))).toBe(true);
    for (const dev of ['tsx', 'typescript', 'vitest', 'esbuild'])
      expect(existsSync(join(modules, dev)), dev).toBe(false);
  });

  it('runs `npx petload run compliance`: exit 0 and the four reports', () => {
    const r = run(NPX, ['--no', '--', 'petload', 'run', 'compliance', '--report-dir', 'out', '--quiet'], app);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(join(app, 'out')).sort()).toEqual([
      'journal.ndjson',
      'junit.xml',
      'report.html',
      'report.json',
      'summary.md',
    ]);
    const report = JSON.parse(readFileSync(join(app, 'out', 'report.json'), 'utf8')) as {
      verdict: string;
      checks: { id: string }[];
    };
    expect(report.verdict).toBe('pass');
    expect(report.checks.map((c) => c.id)).toEqual(expect.arrayContaining([...CHECK_IDS]));
    // The page inlines the stylesheet, script and uPlot found from dist/ and node_modules.
    const html = readFileSync(join(app, 'out', 'report.html'), 'utf8');
    expect(html).toContain('uPlot');
    expect(html.length).toBeGreaterThan(50_000);
  }, 120_000);

  it('bundles the compiled CLI: the same help texts and version, the shipped scenarios, and report.html again', () => {
    const main = join(app, 'node_modules', 'petload', 'dist', 'cli', 'main.js');
    // The commands' help texts as yargs prints them (not on a terminal: 110 columns), and the version.
    for (const args of [
      ['--help'],
      ...commands.map((c) => [String(c.command).split(' ')[0]!, '--help']),
      ['--version'],
    ]) {
      const bundled = ok(run(NPX, ['--no', '--', 'petload', ...args], app), `petload ${args.join(' ')}`);
      expect(bundled, args.join(' ')).toBe(
        ok(run(process.execPath, [main, ...args], app), `main.js ${args.join(' ')}`),
      );
      // Printable ASCII: the bundle measures such text without loading string-width (scripts/build.js).
      expect(bundled, args.join(' ')).toMatch(/^[\x20-\x7e\n]*$/);
    }
    // What the texts say, beyond being the same in both: the commands, and the package's own version.
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(ok(run(NPX, ['--no', '--', 'petload', '--version'], app), 'petload --version').trim()).toBe(version);
    expect(ok(run(NPX, ['--no', '--', 'petload', '--help'], app), 'petload --help')).toContain(
      'petload run <scenarios..>',
    );
    expect(ok(run(NPX, ['--no', '--', 'petload', 'run', '--help'], app), 'petload run --help')).toContain(
      '--github-summary',
    );
    // One language whatever the locale: yargs would translate its complaints (`Unbekanntes Argument: frob`).
    for (const locale of ['de_DE.UTF-8', 'ja_JP.UTF-8']) {
      const env = { LANG: locale, LC_ALL: locale, LANGUAGE: locale.slice(0, 2) };
      const bundled = run(NPX, ['--no', '--', 'petload', 'run', 'compliance', '--frob'], app, 60_000, env);
      const compiled = run(process.execPath, [main, 'run', 'compliance', '--frob'], app, 60_000, env);
      for (const r of [bundled, compiled]) {
        expect(r.status, locale).toBe(2);
        expect(r.stderr, locale).toContain('petload: unknown option --frob\n  hint: See `petload run --help`.\n');
      }
      expect(ok(run(NPX, ['--no', '--', 'petload', 'run', '--help'], app, 60_000, env), 'help')).toContain('Options:');
    }
    // A shipped scenario found by name, from the bundle's place in the package.
    expect(ok(run(NPX, ['--no', '--', 'petload', 'validate', 'compliance'], app), 'petload validate')).toBe(
      'ok compliance (compliance)\n',
    );
    // The report of the run above read back and every format written again: the page's assets found by the bundle.
    const r = run(NPX, ['--no', '--', 'petload', 'report', join('out', 'report.json'), '--out', 'again'], app);
    expect(r.status, r.stderr).toBe(0);
    const html = readFileSync(join(app, 'again', 'report.html'), 'utf8');
    expect(html).toContain('uPlot');
    expect(html).toBe(readFileSync(join(app, 'out', 'report.html'), 'utf8'));
  }, 120_000);

  it('is imported with plain node: runScenario against createReferenceServer', () => {
    writeFileSync(
      join(app, 'use.mjs'),
      `import { runScenario, createReferenceServer, parseScenarioText, createClock, CHECK_IDS } from 'petload';
const clock = createClock(60);
const server = await createReferenceServer({ clock });
try {
  const scenario = parseScenarioText('name: api-use\\ndescription: from the package\\nprobes: [auth, list]\\n', 'api-use.yaml');
  const r = await runScenario({ scenario, target: { kind: 'external', url: server.url, keys: server.keys, clock }, reportDir: 'api-out' });
  console.log(JSON.stringify({ exitCode: r.exitCode, verdict: r.report.verdict, checks: CHECK_IDS.length, files: Object.keys(r.files ?? {}) }));
} finally {
  await server.close();
}
`,
    );
    const r = run(process.execPath, ['use.mjs'], app, 60_000);
    expect(r.status, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      exitCode: number;
      verdict: string;
      checks: number;
      files: string[];
    };
    expect(got).toEqual({
      exitCode: 0,
      verdict: 'pass',
      checks: CHECK_IDS.length,
      files: ['json', 'junit', 'markdown', 'html'],
    });
    expect(existsSync(join(app, 'api-out', 'report.json'))).toBe(true);
  }, 120_000);

  it('has type declarations a TypeScript project resolves through the package exports', () => {
    writeFileSync(
      join(app, 'use.ts'),
      `import { runScenario, createReferenceServer, type RunResult, type ReferenceServer, type CheckId } from 'petload';
const server: Promise<ReferenceServer> = createReferenceServer({ port: 0 });
const result: (s: ReferenceServer) => Promise<RunResult> = (s) =>
  runScenario({ scenario: null as never, target: { kind: 'external', url: s.url }, reportDir: 'x' });
// The flat form of earlier versions still type-checks (deprecated)…
const flat = (s: ReferenceServer) => runScenario({ scenario: null as never, target: s.url, reportDir: 'x' });
// @ts-expect-error: a fault is the embedded server's, not an external target's
const mixed = (s: ReferenceServer) => runScenario({ scenario: null as never, target: { kind: 'external', url: s.url, faults: ['flaky'] }, reportDir: 'x' });
// @ts-expect-error: …but not with a mix of both kinds' settings either
const flatMixed = (s: ReferenceServer) => runScenario({ scenario: null as never, target: s.url, faults: ['flaky'], reportDir: 'x' });
const id: CheckId = 'ratelimit.enforced';
// @ts-expect-error: not a check id
const wrong: CheckId = 'ratelimit.nope';
export { server, result, flat, mixed, flatMixed, id, wrong };
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2023',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = run(process.execPath, [tsc, '-p', 'tsconfig.json'], app, 60_000);
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);
});
