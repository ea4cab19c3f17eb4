#!/usr/bin/env node
// `npm run build`: compiles src/ into dist/ (JavaScript and declarations, tsconfig.build.json), copies the
// assets the compiled code reads next to itself (the HTML report's stylesheet and script), and records the
// CLI's help texts as the compiled CLI prints them (dist/cli/help.json), which bin/petload.js prints for
// `petload --help` and `petload <command> --help` without loading yargs and every command (three quarters
// of the start-up time).
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (p) => fileURLToPath(new URL(`../${p}`, import.meta.url));
const ASSETS = ['outputs/report-page.css', 'outputs/report-page.js'];

rmSync(at('dist'), { recursive: true, force: true });
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
for (const a of ASSETS) copyFileSync(at(`src/${a}`), at(`dist/${a}`));
// The help texts as the compiled CLI prints them (not on a terminal: 110 columns): the top level's, and each
// command's, keyed by the command's name ('' for the top level).
const helpOf = (args) =>
  execFileSync(process.execPath, [at('dist/cli/main.js'), ...args, '--help'], { cwd: root, encoding: 'utf8' });
const { commands } = await import(pathToFileURL(at('dist/cli/commands.js')).href);
const help = { '': helpOf([]) };
for (const c of commands) {
  const name = String(c.command).split(' ')[0];
  help[name] = helpOf([name]);
}
writeFileSync(at('dist/cli/help.json'), `${JSON.stringify(help, null, 1)}\n`);
