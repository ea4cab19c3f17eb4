#!/usr/bin/env node
// Entry point: the compiled CLI in dist/ (`npm run build`, which `npm ci` and `npm pack` run as `prepare`).
// `petload --help` and `petload <command> --help` print the help texts the build recorded from that same CLI
// (dist/cli/help.json), and `petload --version` the package's version, without loading yargs: with yargs and
// the command registry (name lists only; each command loads what it does when it runs), the CLI starts in about
// two and a half times node's own start-up. On a terminal narrower than the recorded width (110 columns) the CLI
// itself prints the help, wrapped to fit.
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const HELP_WIDTH = 110;
const isHelp = (a) => a === '--help' || a === '-h';
const helpFile = new URL('../dist/cli/help.json', import.meta.url);
const main = new URL('../dist/cli/main.js', import.meta.url);
const wide = !process.stdout.isTTY || (process.stdout.columns ?? HELP_WIDTH) >= HELP_WIDTH;

/** The recorded help this command line asks for, or null. */
function recordedHelp() {
  const name =
    args.length === 1 && isHelp(args[0])
      ? ''
      : args.length === 2 && isHelp(args[1]) && /^[a-z]+$/.test(args[0])
        ? args[0]
        : null;
  if (name === null || !wide || !existsSync(helpFile)) return null;
  const texts = JSON.parse(readFileSync(helpFile, 'utf8'));
  return Object.hasOwn(texts, name) ? texts[name] : null;
}

const help = recordedHelp();
if (help !== null) {
  process.stdout.write(help);
} else if (args.length === 1 && args[0] === '--version') {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write(
    'petload: E_INTERNAL: dist/ is missing (a checkout that was never built)\n  hint: run `npm run build` (or `npm ci`) first\n',
  );
  process.exitCode = 4;
}
