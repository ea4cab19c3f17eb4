#!/usr/bin/env node
// `npm run test:durations`: records how long each test file took in a whole run (vitest's JSON report, written by
// the script's first step), into src/testing/test-durations.json, which the test sequencer
// (src/testing/longest-first.ts) reads to start the longest files first. Run it on the 2-core machine CI uses, after
// a change that makes a file much longer or shorter, and commit the file.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const [report] = process.argv.slice(2);
if (report === undefined) {
  process.stderr.write('usage: node scripts/test-durations.js <vitest JSON report>\n');
  process.exit(2);
}
const root = new URL('..', import.meta.url).pathname;
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const took = testResults
  .map((f) => [relative(root, f.name).replaceAll('\\', '/'), Math.round((f.endTime - f.startTime) / 100) / 10])
  .sort((a, b) => b[1] - a[1]);
const out = new URL('../src/testing/test-durations.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(Object.fromEntries(took), null, 1)}\n`);
rmSync(report, { force: true });
process.stdout.write(`test durations: ${took.length} files recorded in ${relative(root, out.pathname)}\n`);
