#!/usr/bin/env node
// `npm run build`: compiles src/ into dist/ (JavaScript and declarations, tsconfig.build.json), copies the
// assets the compiled code reads next to itself (the HTML report's stylesheet and script), and records the
// CLI's top-level help as the compiled CLI prints it (dist/cli/help.txt), which bin/petload.js prints for a
// bare `petload --help` without loading yargs and every command (about a third of the start-up time).
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (p) => fileURLToPath(new URL(`../${p}`, import.meta.url));
const ASSETS = ['outputs/report-page.css', 'outputs/report-page.js'];

rmSync(at('dist'), { recursive: true, force: true });
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
for (const a of ASSETS) copyFileSync(at(`src/${a}`), at(`dist/${a}`));
const help = execFileSync(process.execPath, [at('dist/cli/main.js'), '--help'], { cwd: root, encoding: 'utf8', env: { ...process.env, COLUMNS: '' } });
writeFileSync(at('dist/cli/help.txt'), help);
