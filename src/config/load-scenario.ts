/**
 * Loading scenarios: a bare name is a shipped file (scenarios/<name>.yaml of this package), anything
 * else a path. Every problem of a file is reported at once, one line each:
 * `<file>:<line>:<col> <path>: expected …, found …`. The result is deeply frozen.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { PetloadError } from '../core/errors.js';
import { deepFreeze } from '../core/readonly.js';
import { type Env, substituteEnv } from './env-subst.js';
import { ScenarioSchema, type Scenario } from './scenario.js';
import { describeIssues, didYouMean, formatPath } from '../core/zod-issues.js';

/** The package's shipped scenarios, found from this file's place in the package. */
export const SCENARIOS_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));

/** Scenario files are small; a bigger file is a mistake (or not a scenario). */
const MAX_BYTES = 1_000_000;

interface Located {
  readonly line: number;
  readonly col: number;
  readonly text: string;
}

/**
 * Shipped scenarios renamed for what they prove, by their old names: a nightly job that names one keeps working.
 * `day-quota` could not fail on an unenforced day (its backoff holds back at Remaining 0): it proves the pacing,
 * and `plan-audit` answers whether the day limit holds.
 */
export const RENAMED: Readonly<Record<string, string>> = { 'day-quota': 'day-pacing' };

/** Names of the shipped scenarios, sorted. */
export function shippedScenarioNames(): string[] {
  return readdirSync(SCENARIOS_DIR)
    .filter((f) => extname(f) === '.yaml')
    .map((f) => basename(f, '.yaml'))
    .sort();
}

/** The shipped scenarios, for `petload list scenarios`. */
export function listScenarios(): { name: string; description: string }[] {
  return shippedScenarioNames().map((name) => {
    const s = loadScenario(name);
    return { name: s.name, description: s.description };
  });
}

/** A bare name has no slash and no YAML extension; anything else is a path. */
function isBareName(nameOrPath: string): boolean {
  return !/[\\/]/.test(nameOrPath) && !/\.ya?ml$/i.test(nameOrPath);
}

/** Paths in messages: relative to the working directory when the file is under it. */
function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/**
 * Load and validate a scenario by shipped name or by path. Throws PetloadError('E_SCENARIO') listing every issue.
 * `${VAR}` references in its values are read from `env` (default: the process's environment).
 */
export function loadScenario(nameOrPath: string, options: { env?: Env } = {}): Scenario {
  const env = options.env ?? process.env;
  if (isBareName(nameOrPath) && Object.hasOwn(RENAMED, nameOrPath)) return loadScenario(RENAMED[nameOrPath]!, options);
  if (isBareName(nameOrPath)) {
    const names = shippedScenarioNames();
    if (!names.includes(nameOrPath)) {
      const hint = didYouMean(nameOrPath, names);
      throw new PetloadError(
        'E_SCENARIO',
        `unknown scenario "${nameOrPath}"${hint ? ` (did you mean "${hint}"?)` : ''}; shipped: ${names.join(', ')}`,
      );
    }
    const file = join(SCENARIOS_DIR, `${nameOrPath}.yaml`);
    return parseScenarioText(readScenarioFile(file), displayPath(file), { expectedName: nameOrPath, env });
  }
  return parseScenarioText(readScenarioFile(nameOrPath), displayPath(nameOrPath), { env });
}

function readScenarioFile(file: string): string {
  try {
    if (statSync(file).size > MAX_BYTES) {
      throw new PetloadError(
        'E_SCENARIO',
        `${displayPath(file)}: expected a scenario file of at most ${MAX_BYTES} bytes, found a bigger file`,
      );
    }
    return readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof PetloadError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? (e as Error).message);
    const shipped = basename(file).replace(/\.ya?ml$/i, '');
    const hint =
      code === 'ENOENT' && shippedScenarioNames().includes(shipped)
        ? ` (did you mean the shipped scenario "${shipped}"?)`
        : '';
    throw new PetloadError('E_SCENARIO', `${displayPath(file)}: cannot read the scenario file (${why})${hint}`);
  }
}

/**
 * Parse and validate the text of a scenario file. `file` names it in messages. A shipped scenario's
 * `name` must equal its file's base name (`expectedName`). With `env`, `${VAR}` references in its values are
 * substituted first (./env-subst.ts); without, they stay as written.
 */
export function parseScenarioText(
  text: string,
  file: string,
  options: { expectedName?: string; env?: Env } = {},
): Scenario {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number) => lines.linePos(offset);

  if (doc.errors.length > 0) {
    fail(
      file,
      doc.errors.map((e) => {
        const key = /^[^:\n]*/.exec(text.slice(e.pos[0]))![0].trim();
        const what = e.code === 'DUPLICATE_KEY' ? `the key ${key} appears twice` : e.message.split('\n')[0];
        return { ...at(e.pos[0]), text: `YAML syntax: ${what}` };
      }),
    );
  }

  let input: unknown;
  try {
    input = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // Unresolvable or excessive aliases: the yaml package throws instead of reporting a position.
    fail(file, [{ line: 1, col: 1, text: `YAML: ${(e as Error).message}` }]);
  }

  if (input === null || input === undefined) {
    fail(file, [
      {
        line: 1,
        col: 1,
        text: '(top level): expected a mapping with at least name and description, found an empty document',
      },
    ]);
  }

  if (options.env !== undefined) input = substituted(input, options.env, file, doc, lines);
  const issues: Located[] = [];
  const result = ScenarioSchema.safeParse(input);
  if (!result.success) {
    for (const i of describeIssues(result.error, input, { schema: ScenarioSchema })) {
      issues.push({ ...locate(doc, lines, i.path, i.at), text: `${formatPath(i.path)}: ${i.text}` });
    }
  }
  const name = (input as { name?: unknown } | null)?.name;
  if (options.expectedName !== undefined && typeof name === 'string' && name !== options.expectedName) {
    issues.push({
      ...locate(doc, lines, ['name'], 'value'),
      text: `name: expected "${options.expectedName}" (the file's base name), found ${JSON.stringify(name)}`,
    });
  }
  if (issues.length > 0 || !result.success) fail(file, issues);
  return deepFreeze(result.data);
}

/** The document with its `${VAR}` references substituted; an unset variable without a default is an error. */
function substituted(input: unknown, env: Env, file: string, doc: Document, lines: LineCounter): unknown {
  const { value, unset } = substituteEnv(input, env);
  if (unset.length > 0) {
    fail(
      file,
      unset.map((u) => ({
        ...locate(doc, lines, u.path, 'value'),
        text: `${formatPath(u.path)}: the environment variable ${u.variable} is not set (set it, or give a default: \${${u.variable}:-value})`,
      })),
    );
  }
  return value;
}

function fail(file: string, issues: readonly Located[]): never {
  const sorted = [...issues].sort((a, b) => a.line - b.line || a.col - b.col);
  const n = sorted.length;
  throw new PetloadError(
    'E_SCENARIO',
    `invalid scenario ${file} (${n} problem${n === 1 ? '' : 's'}):\n${sorted.map((i) => `  ${file}:${i.line}:${i.col} ${i.text}`).join('\n')}`,
  );
}

/**
 * Line and column of a path in the document: the key itself for an unknown key, the value otherwise;
 * for a path that is not there (a missing key), the key of the nearest mapping that is.
 */
function locate(
  doc: Document,
  lines: LineCounter,
  path: readonly PropertyKey[],
  at: 'key' | 'value',
): { line: number; col: number } {
  let node: unknown = doc.contents;
  let key: Node | undefined;
  let found = true;
  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(seg));
      if (pair === undefined) {
        found = false;
        break;
      }
      key = isScalar(pair.key) ? pair.key : undefined;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number' && node.items[seg] !== undefined) {
      key = undefined;
      node = node.items[seg];
    } else {
      found = false;
      break;
    }
  }
  const valueNode = node as Node | null | undefined;
  const target = found && at === 'value' ? (valueNode ?? key) : (key ?? valueNode);
  const offset = target?.range?.[0];
  return offset === undefined ? { line: 1, col: 1 } : lines.linePos(offset);
}
