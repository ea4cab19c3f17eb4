/**
 * The layers of src/ hold: every import of a non-test file goes from a folder to one its row of LAYERS allows,
 * the table has no two folders allowed to import each other, every folder of src/ has a row, and
 * docs/architecture.md shows the same table (so that the drawing and the code stay in step). Within the folders,
 * no file imports itself through others (type imports included).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Which folders of src/ each folder may import, from the bottom up (a file directly under src/, index.ts,
 * counts as a folder of its own name). Keep in step with docs/architecture.md.
 */
const LAYERS: Readonly<Record<string, readonly string[]>> = {
  api: [],
  core: ['api'],
  report: ['api', 'core'],
  http: ['api', 'core'],
  'reference-server': ['api', 'core'],
  metrics: ['api', 'core', 'report', 'http'],
  checks: ['api', 'core', 'report', 'http', 'metrics', 'reference-server'],
  backoff: ['api', 'core', 'report', 'http', 'checks'],
  probes: ['api', 'core', 'report', 'http', 'metrics', 'checks', 'backoff'],
  executors: ['api', 'core', 'report', 'http', 'metrics', 'checks', 'backoff'],
  config: ['api', 'core', 'report', 'checks', 'probes', 'executors'],
  shard: ['api', 'core', 'report', 'config', 'probes', 'executors'],
  outputs: ['api', 'core', 'report', 'metrics', 'checks', 'config', 'shard'],
  drift: ['api', 'core', 'report', 'metrics', 'checks', 'outputs'],
  live: ['api', 'core', 'metrics', 'checks', 'outputs'],
  journal: ['api', 'core', 'report', 'metrics', 'checks'],
  k8s: ['api', 'core'],
  engine: [
    'api',
    'core',
    'report',
    'http',
    'reference-server',
    'metrics',
    'checks',
    'backoff',
    'probes',
    'executors',
    'config',
    'shard',
    'outputs',
    'journal',
  ],
  cli: [
    'api',
    'core',
    'report',
    'http',
    'reference-server',
    'metrics',
    'checks',
    'backoff',
    'probes',
    'executors',
    'config',
    'shard',
    'outputs',
    'k8s',
    'engine',
    'drift',
    'live',
    'journal',
  ],
  index: [
    'api',
    'core',
    'report',
    'http',
    'reference-server',
    'metrics',
    'checks',
    'backoff',
    'probes',
    'executors',
    'config',
    'shard',
    'outputs',
    'engine',
    'drift',
    'live',
    'journal',
  ],
  // Test helpers: imported by tests and the bench only, never by a non-test file of another folder.
  testing: [
    'api',
    'core',
    'report',
    'http',
    'reference-server',
    'metrics',
    'checks',
    'backoff',
    'probes',
    'executors',
    'config',
    'shard',
    'outputs',
    'engine',
    'drift',
  ],
};

const SRC = dirname(fileURLToPath(import.meta.url));

interface Edge {
  readonly from: string;
  readonly to: string;
  /** The importing file, relative to src/. */
  readonly file: string;
  readonly specifier: string;
}

/** Relative specifiers of static imports and re-exports, side-effect imports and dynamic imports. */
function importSpecifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1]!);
  return out.filter((s) => s.startsWith('.'));
}

/** The folder of src/ a path under src/ belongs to (`index` for src/index.ts). */
function folderOf(pathUnderSrc: string): string {
  const first = pathUnderSrc.split(/[\\/]/)[0]!;
  return first.replace(/\.(?:ts|js)$/, '');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every import from one folder of src/ into another, read from the non-test files. */
function folderEdges(root: string): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(root)) {
    const rel = relative(root, file);
    const from = folderOf(rel);
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      const target = relative(root, resolve(dirname(file), specifier));
      if (target.startsWith('..')) continue;
      const to = folderOf(target);
      if (to !== from) edges.push({ from, to, file: rel, specifier });
    }
  }
  return edges;
}

/** The edges the table does not allow, as `from -> to (file imports specifier)`. */
function violations(edges: readonly Edge[], layers: Readonly<Record<string, readonly string[]>>): string[] {
  return edges
    .filter((e) => !(layers[e.to] !== undefined && layers[e.from]?.includes(e.to)))
    .map((e) => `${e.from} -> ${e.to} (${e.file} imports ${e.specifier})`);
}

/** Pairs of folders that may import each other, directly or through others. */
function cycles(layers: Readonly<Record<string, readonly string[]>>): string[] {
  const reaches = (a: string, b: string, seen = new Set<string>()): boolean =>
    (layers[a] ?? []).some((n) => {
      if (n === b) return true;
      if (seen.has(n)) return false;
      seen.add(n);
      return reaches(n, b, seen);
    });
  return Object.keys(layers).filter((a) => reaches(a, a));
}

/** Each non-test file of src/ (relative to src/) and the files of src/ it imports, type imports included. */
function fileGraph(root: string): Map<string, string[]> {
  const files = sourceFiles(root);
  const known = new Set(files.map((f) => relative(root, f)));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importSpecifiers(readFileSync(file, 'utf8'))
      .map((s) => relative(root, resolve(dirname(file), s)).replace(/\.js$/, '.ts'))
      .filter((t) => known.has(t));
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected parts of a graph (Tarjan), each a list of its nodes. */
function stronglyConnected(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const parts: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      part.push(w);
      if (w === v) break;
    }
    parts.push(part);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return parts;
}

/** One circle through `start` within `part`, as `start -> … -> start` (breadth first: a shortest one). */
function circleThrough(graph: ReadonlyMap<string, readonly string[]>, part: readonly string[], start: string): string {
  const inPart = new Set(part);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of graph.get(v) ?? []) {
      if (!inPart.has(w) || cameFrom.has(w)) continue;
      cameFrom.set(w, v);
      if (w === start) break;
      queue.push(w);
    }
    if (cameFrom.has(start)) break;
  }
  const path: string[] = [];
  for (let v = cameFrom.get(start)!; v !== start; v = cameFrom.get(v)!) path.unshift(v);
  return [start, ...path, start].join(' -> ');
}

/** The import circles of a file graph, one line each: a circle through the first file (in order) of each part. */
function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return stronglyConnected(graph)
    .filter((part) => part.length > 1 || (graph.get(part[0]!) ?? []).includes(part[0]!))
    .map((part) => circleThrough(graph, part, [...part].sort()[0]!))
    .sort();
}

/** The table of docs/architecture.md: rows `| \`folder\` | \`a\`, \`b\` |` (a dash for none). */
function documentedLayers(markdown: string): Record<string, string[]> {
  const rows: Record<string, string[]> = {};
  for (const m of markdown.matchAll(/^\| `([a-z0-9-]+)` \| ([^|]*) \|/gm)) {
    rows[m[1]!] = [...m[2]!.matchAll(/`([a-z0-9-]+)`/g)].map((x) => x[1]!);
  }
  return rows;
}

describe('the layers of src/', () => {
  const edges = folderEdges(SRC);

  it('reads the imports it checks (the reader sees every form of import)', () => {
    const src = [
      "import { a } from './a.js';",
      "import type {\n  B,\n  C,\n} from '../b/c.js';",
      "export { d } from './d.js';",
      "export * from '../e.js';",
      "import './side-effect.js';",
      "const f = await import('./f.js');",
      "import * as z from 'zod';",
    ].join('\n');
    expect(importSpecifiers(src)).toEqual(
      expect.arrayContaining(['./a.js', '../b/c.js', './d.js', '../e.js', './side-effect.js', './f.js']),
    );
    expect(importSpecifiers(src)).not.toContain('zod');
    // The walk found the tree: the folders that import others are there.
    for (const f of ['engine', 'checks', 'outputs', 'cli']) expect(edges.some((e) => e.from === f)).toBe(true);
  });

  it('refuses an import the table does not allow, and a table with a cycle', () => {
    const upward: Edge = { from: 'http', to: 'engine', file: 'http/client.ts', specifier: '../engine/run.js' };
    expect(violations([upward], LAYERS)).toEqual(['http -> engine (http/client.ts imports ../engine/run.js)']);
    expect(violations([{ ...upward, to: 'nowhere' }], { ...LAYERS, http: [...LAYERS.http!, 'nowhere'] })).toHaveLength(
      1,
    );
    expect(cycles({ a: ['b'], b: ['c'], c: ['a'] })).toEqual(['a', 'b', 'c']);
  });

  it('has every import between folders allowed by the table', () => {
    expect(violations(edges, LAYERS)).toEqual([]);
  });

  it('has no two folders that may import each other', () => {
    expect(cycles(LAYERS)).toEqual([]);
  });

  it('has a row for every folder of src/ with code', () => {
    // Folders of non-test files (src/robustness holds tests only).
    const folders = [...new Set(sourceFiles(SRC).map((f) => folderOf(relative(SRC, f))))];
    expect(folders.filter((f) => LAYERS[f] === undefined)).toEqual([]);
    expect(Object.keys(LAYERS).filter((f) => !folders.includes(f))).toEqual([]);
  });

  it('has no code directly under src/ but the public API, which nothing imports', () => {
    // Whoever groups the files of src/ by folder, the root is then a folder that imports and is never imported.
    const root = sourceFiles(SRC).filter((f) => !relative(SRC, f).includes('/'));
    expect(root.map((f) => relative(SRC, f))).toEqual(['index.ts']);
    expect(edges.filter((e) => e.to === 'index')).toEqual([]);
  });

  it('keeps src/testing for tests: no other non-test file imports it', () => {
    expect(edges.filter((e) => e.to === 'testing').map((e) => e.file)).toEqual([]);
  });

  it('finds and names an import circle among files', () => {
    const graph = new Map([
      ['x/a.ts', ['x/b.ts']],
      ['x/b.ts', ['x/c.ts', 'x/d.ts']],
      ['x/c.ts', ['x/a.ts']],
      ['x/d.ts', []],
      ['x/e.ts', ['x/e.ts']],
    ]);
    expect(importCircles(graph)).toEqual(['x/a.ts -> x/b.ts -> x/c.ts -> x/a.ts', 'x/e.ts -> x/e.ts']);
    expect(
      importCircles(
        new Map([
          ['x/a.ts', ['x/b.ts']],
          ['x/b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no import circle among the files of src/ (type imports included): an interface imports no implementation', () => {
    const graph = fileGraph(SRC);
    // The walk found the files and their imports.
    expect(graph.get(join('executors', 'registry.ts'))).toContain(join('executors', 'burst.ts'));
    expect(importCircles(graph)).toEqual([]);
  });

  it('is the table docs/architecture.md shows', () => {
    const doc = documentedLayers(readFileSync(join(SRC, '..', 'docs', 'architecture.md'), 'utf8'));
    const sorted = (r: Readonly<Record<string, readonly string[]>>) =>
      Object.fromEntries(
        Object.keys(r)
          .sort()
          .map((k) => [k, [...r[k]!].sort()]),
      );
    expect(sorted(doc)).toEqual(sorted(LAYERS));
  });
});
