#!/usr/bin/env node
// `npm run build`: compiles src/ into dist/ (JavaScript and declarations, tsconfig.build.json: the library that
// `import ... from 'petload'` loads), copies the assets the compiled code reads next to itself (the HTML report's
// stylesheet and script), and bundles the CLI into dist/bundle/ for bin/petload.js.
//
// Why a bundle: node 20 resolves, reads and compiles every ES module of a graph one by one, and the CLI's graph
// is large (zod alone is 95 modules, yargs and its helpers 50): from dist/cli/main.js, `petload validate` started
// in 4x node's own start-up. The bundle is the same compiled code in a few files: one entry and the chunks that
// each command imports when it runs (esbuild's code splitting keeps every dynamic import a separate chunk).
// It holds petload's own code and the packages named in BUNDLED (bundle-cli.js) with what they import; every other dependency
// (undici, autocannon, p-limit, ...) stays an import of node_modules, loaded as before.
// scripts/bundle-cli.js makes the bundle (the tests' global set-up makes one of the sources the same way).
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ASSETS, bundleCli } from './bundle-cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (p) => fileURLToPath(new URL(`../${p}`, import.meta.url));

rmSync(at('dist'), { recursive: true, force: true });
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
for (const a of ASSETS) copyFileSync(at(`src/${a}`), at(`dist/${a}`));

await bundleCli(at('dist/cli/main.js'), at('dist/bundle'));
