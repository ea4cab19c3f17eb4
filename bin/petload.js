#!/usr/bin/env node
// Entry point: the CLI as the build bundled it (dist/bundle/, `npm run build`, which `npm ci` and `npm pack` run
// as `prepare`): the compiled code of dist/cli/main.js in a few files, so that a command starts without node
// resolving and compiling some three hundred modules one by one (scripts/build.js says more).
import { existsSync } from 'node:fs';

const main = new URL('../dist/bundle/petload.js', import.meta.url);
if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write(
    'petload: E_INTERNAL: dist/ is missing (a checkout that was never built)\n  hint: run `npm run build` (or `npm ci`) first\n',
  );
  process.exitCode = 4;
}
