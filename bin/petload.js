#!/usr/bin/env node
// Entry point: the compiled CLI in dist/ (`npm run build`, which `npm ci` and `npm pack` run as `prepare`).
// A bare `petload --help` prints the help text the build recorded from that same CLI (dist/cli/help.txt):
// the full CLI loads yargs and every command, three to four times node's own start-up. On a terminal
// narrower than the recorded width (110 columns) the CLI itself prints it, wrapped to fit.
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const HELP_WIDTH = 110;
const help = new URL('../dist/cli/help.txt', import.meta.url);
const main = new URL('../dist/cli/main.js', import.meta.url);
const wide = !process.stdout.isTTY || (process.stdout.columns ?? HELP_WIDTH) >= HELP_WIDTH;

if (args.length === 1 && (args[0] === '--help' || args[0] === '-h') && wide && existsSync(help)) {
  process.stdout.write(readFileSync(help, 'utf8'));
} else if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write('petload: E_INTERNAL: dist/ is missing (a checkout that was never built)\n  hint: run `npm run build` (or `npm ci`) first\n');
  process.exitCode = 4;
}
