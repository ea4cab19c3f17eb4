/**
 * The README is the user's manual and docs/ its chapters: together they must name every public thing the
 * code has (check ids, faults, probes, executors, scenarios, error codes, exit codes, commands); the tables
 * generated from the registries must be current (`npm run docs`); the check catalogue must match the code
 * both ways; every link must lead to a file of the repository; and nothing tracked may point outside it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOCS_WITH_TABLES, renderTables, tablesIn, TABLES } from '../scripts/docs-tables.js';
import { CATALOGUE, CHECK_IDS } from './checks/catalogue.js';
import { commands } from './cli/commands.js';
import { shippedScenarioNames } from './config/load-scenario.js';
import { ERRORS, EXIT } from './core/errors.js';
import { EXECUTOR_NAMES } from './executors/names.js';
import { PROBE_NAMES } from './probes/names.js';
import { FAULT_NAMES } from './reference-server/faults.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const readme = read('README.md');
const docFiles = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const manual = [readme, ...docFiles.map(read)].join('\n');

/**
 * Pages that other branches of the same change add (issue 12); links to them are allowed before they land.
 * Once they exist the link check below reads them like any other page.
 */
describe('README', () => {
  it('is a manual of at most about 300 lines with a table of contents of its sections', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]!).filter((s) => s !== 'Contents');
    const anchor = (s: string) =>
      s
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-');
    for (const s of sections) expect(readme, s).toContain(`- [${s}](#${anchor(s)})`);
  });

  it('has the two-line quick start', () => {
    const block = /## Quick start\n\n```sh\n([^`]*)```/.exec(readme)?.[1] ?? '';
    const lines = block
      .trim()
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, ''));
    expect(lines).toEqual(['npm ci && npm start', 'npm test']);
  });

  it('documents every exit code, as docs/exit-codes.md does', () => {
    for (const code of new Set(Object.values(EXIT))) {
      expect(readme).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
      expect(read('docs/exit-codes.md')).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
    }
  });

  it('names every command', () => {
    for (const c of commands) expect(readme).toContain(`petload ${String(c.command).split(' ')[0]!}`);
  });
});

describe('README and docs/', () => {
  const table: [string, readonly string[]][] = [
    ['check id', CHECK_IDS],
    ['fault', FAULT_NAMES],
    ['probe', PROBE_NAMES],
    ['executor', EXECUTOR_NAMES],
    ['scenario', shippedScenarioNames()],
    ['error code', Object.keys(ERRORS)],
  ];
  for (const [what, names] of table) {
    it(`name every ${what}`, () => {
      expect(names.filter((n) => !manual.includes(`\`${n}\``))).toEqual([]);
    });
  }

  it('have every generated table as the code renders it now (else: npm run docs)', () => {
    const seen = new Set<string>();
    for (const f of DOCS_WITH_TABLES) {
      const text = read(f);
      for (const t of tablesIn(text)) seen.add(t);
      expect(renderTables(text), `${f} is out of date: run npm run docs`).toBe(text);
    }
    expect([...seen].sort()).toEqual(Object.keys(TABLES).sort());
  });

  it('have the check catalogue of the code, both ways: ids, severities, titles, judges', () => {
    const rows = [
      ...read('docs/checks.md').matchAll(
        /^\| `([a-z0-9-]+\.[a-z0-9-]+)` \| ([a-z]+) \| [a-z-]+ \| (.+) \| ([a-z, ]+) \|$/gm,
      ),
    ];
    const documented = new Map(
      rows.map((m) => [m[1]!, { severity: m[2]!, title: m[3]!.replace(/\\\|/g, '|'), judgedBy: m[4]! }]),
    );
    expect([...documented.keys()].filter((id) => !(id in CATALOGUE))).toEqual([]);
    expect(CHECK_IDS.filter((id) => !documented.has(id))).toEqual([]);
    for (const id of CHECK_IDS)
      expect(documented.get(id), id).toEqual({
        severity: CATALOGUE[id].severity,
        title: CATALOGUE[id].title,
        judgedBy: CATALOGUE[id].judgedBy.join(', '),
      });
  });

  it('link only to files that exist in the repository', () => {
    const broken: string[] = [];
    for (const page of ['README.md', ...docFiles]) {
      for (const m of read(page).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const path = normalize(join(dirname(page), target));
        if (path.startsWith('..')) broken.push(`${page}: ${target} leaves the repository`);
        else if (!existsSync(join(ROOT, path))) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the repository', () => {
  it('points nowhere outside itself: no tracked file but .ci/ mentions the shared folder beside it', () => {
    const needle = ['..', 'shared'].join('/');
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f && !f.startsWith('.ci/'));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter(
      (f) => existsSync(join(ROOT, f)) && readFileSync(join(ROOT, f), 'latin1').includes(needle),
    );
    expect(offenders).toEqual([]);
  });

  it('has a LICENSE (MIT) that package.json names', () => {
    expect(read('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} petload authors\n/);
    expect((JSON.parse(read('package.json')) as { license: string }).license).toBe('MIT');
  });

  it('exports its public API name by name, each with a doc comment', () => {
    const index = read('src/index.ts');
    expect(index).not.toMatch(/export \*/);
    const lines = index.split('\n');
    const exports = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('export '));
    expect(exports.length).toBeGreaterThan(30);
    for (const [line, i] of exports) {
      expect(line, line).toMatch(/^export (type )?\{ [A-Za-z_][A-Za-z0-9_]* \} from '\.\/[a-z/-]+\.js';$/);
      expect(lines[i - 1], `the doc comment of: ${line}`).toMatch(/^\/\*\* .+ \*\/$/);
    }
  });
});
