#!/usr/bin/env node
// `npm test`: the lint, the type check and the tests, side by side rather than in turn (much of the tests' time is
// waiting on clocks, which the CPU-bound steps fill). The files that wait real minutes (vitest project `waits`) and
// the others (projects `work` and `units`, vitest.config.ts) run in two vitest processes at once. The lint and the
// type check, which no clock hurts, run below the normal CPU priority (niceness 15): they take the CPU the tests
// leave idle and never slow a test that waits on a clock. The packaging test takes both cores for a while and runs
// a compliance pass on a scaled clock: it runs last, alone. The second vitest's output streams as it runs; each
// other step's output is printed whole when it ends. Any step that fails fails `npm test` (exit 1), named in the
// last lines.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;

/**
 * Each step: its command, its niceness (its children inherit it), whether its output streams, and the steps it starts
 * after (else at once).
 */
const STEPS = [
  { name: 'biome', cmd: [bin('biome'), 'check', '.'], nice: 15 },
  { name: 'tsc', cmd: [bin('tsc'), '--noEmit'], nice: 15 },
  { name: 'vitest waits', cmd: [bin('vitest'), 'run', '--project', 'waits'], nice: 0 },
  {
    name: 'vitest work, units',
    cmd: [bin('vitest'), 'run', '--project', 'work', '--project', 'units'],
    nice: 0,
    live: true,
  },
  {
    name: 'vitest package',
    cmd: [bin('vitest'), 'run', '--config', 'vitest.package.config.ts'],
    nice: 0,
    after: ['vitest waits', 'vitest work, units'],
  },
];

const started = performance.now();
const seconds = (ms) => `${Math.round(ms / 1000)} s`;
const children = new Set();

/** Runs one step; resolves with its outcome. Buffered output is printed whole, under a header, once it ends. */
function run(step) {
  const at = performance.now();
  const child = spawn(step.cmd[0], step.cmd.slice(1), {
    stdio: step.live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env: process.stdout.isTTY && !step.live ? { ...process.env, FORCE_COLOR: '1' } : process.env,
  });
  children.add(child);
  // Before the child starts its own (node takes a while to load vitest); a platform that refuses keeps the default.
  if (step.nice > 0 && child.pid !== undefined) {
    try {
      setPriority(child.pid, step.nice);
    } catch {}
  }
  const out = [];
  child.stdout?.on('data', (d) => out.push(d));
  child.stderr?.on('data', (d) => out.push(d));
  return new Promise((resolve) => {
    const done = (code, signal) => {
      children.delete(child);
      const ok = code === 0;
      const took = seconds(performance.now() - at);
      const status = ok ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`;
      if (!step.live) {
        process.stdout.write(
          `\n──── npm test: ${step.name} ${status} in ${took} (${step.cmd.slice(1).join(' ')}) ────\n`,
        );
        process.stdout.write(Buffer.concat(out));
        process.stdout.write(`──── end of ${step.name} ────\n`);
      }
      resolve({ name: step.name, ok, status, took });
    };
    child.on('error', (e) => {
      out.push(Buffer.from(`${e.message}\n`));
      done(null, null);
    });
    child.on('close', done);
  });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const c of children) c.kill(signal);
    process.exitCode = 130;
  });
}

const running = new Map();
for (const step of STEPS) {
  const before = Promise.all((step.after ?? []).map((name) => running.get(name)));
  running.set(
    step.name,
    before.then(() => run(step)),
  );
}
const results = await Promise.all(running.values());
const failed = results.filter((r) => !r.ok);
process.stdout.write(`\nnpm test: ${results.map((r) => `${r.name} ${r.status} (${r.took})`).join(', ')}\n`);
process.stdout.write(
  failed.length === 0
    ? `npm test: all passed in ${seconds(performance.now() - started)}\n`
    : `npm test: FAILED: ${failed.map((r) => r.name).join(', ')} (their output is above)\n`,
);
process.exitCode = failed.length === 0 ? (process.exitCode ?? 0) : 1;
