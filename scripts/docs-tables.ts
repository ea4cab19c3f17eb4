/**
 * The tables of docs/ that the code's registries define: the check catalogue, the faults of the reference
 * server with the checks each must fail, the shipped scenarios and the error codes. Each sits in a docs file between `<!-- table:NAME -->` and `<!-- /table:NAME -->`; everything around
 * them is written by hand. `npm run docs` rewrites the tables from the code; src/docs.test.ts fails while a
 * file differs from what this renders.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CATALOGUE, CHECK_IDS } from '../src/checks/catalogue.js';
import { FAULT_MATRIX } from '../src/checks/fault-matrix.js';
import { listScenarios } from '../src/config/load-scenario.js';
import { ERRORS } from '../src/core/errors.js';
import { FAULTS, FAULT_NAMES } from '../src/reference-server/faults.js';

/** A table cell: one line, pipes escaped. */
const cell = (s: string) => s.replace(/\s+/g, ' ').replace(/\|/g, '\\|');
const code = (s: string) => `\`${s}\``;

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

export const TABLES: Record<string, () => string> = {
  checks: () =>
    table(
      ['id', 'severity', 'family', 'what must hold', 'judged by'],
      CHECK_IDS.map((id) => [
        code(id),
        CATALOGUE[id].severity,
        CATALOGUE[id].family,
        CATALOGUE[id].title,
        CATALOGUE[id].judgedBy.join(', '),
      ]),
    ),
  faults: () =>
    table(
      ['fault', 'what the server does', 'checks that must fail'],
      FAULT_NAMES.map((f) => [
        code(f),
        FAULTS[f],
        FAULT_MATRIX[f].length === 0 ? 'none' : FAULT_MATRIX[f].map(code).join(', '),
      ]),
    ),
  scenarios: () =>
    table(
      ['scenario', 'what it does'],
      listScenarios().map((s) => [code(s.name), s.description]),
    ),
  errors: () =>
    table(
      ['code', 'exit', 'hint'],
      Object.entries(ERRORS).map(([c, e]) => [code(c), String(e.exit), e.hint]),
    ),
};

const BLOCK = /<!-- table:([a-z-]+) -->\n[\s\S]*?<!-- \/table:\1 -->/g;

/** `text` with every table block rendered afresh from the code; throws on a block of an unknown table. */
export function renderTables(text: string): string {
  return text.replace(BLOCK, (_, name: string) => {
    const render = TABLES[name];
    if (!render) throw new Error(`unknown docs table "${name}" (known: ${Object.keys(TABLES).join(', ')})`);
    return `<!-- table:${name} -->\n${render()}\n<!-- /table:${name} -->`;
  });
}

/** The table names a text has blocks for. */
export function tablesIn(text: string): string[] {
  return [...text.matchAll(BLOCK)].map((m) => m[1]!);
}

export const DOCS_WITH_TABLES = [
  'docs/checks.md',
  'docs/scenarios.md',
  'docs/reference-server.md',
  'docs/exit-codes.md',
] as const;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const f of DOCS_WITH_TABLES) {
    const path = fileURLToPath(new URL(`../${f}`, import.meta.url));
    const before = readFileSync(path, 'utf8');
    const after = renderTables(before);
    if (after !== before) writeFileSync(path, after);
    process.stdout.write(`${after === before ? 'unchanged' : 'rewritten'} ${f}\n`);
  }
}
