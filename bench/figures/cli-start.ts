/**
 * CLI start-up: `petload --help` (bin/petload.js, the compiled CLI in dist/, as an installed package runs it)
 * against `node -e 0`, node's own start-up, taking turns run after run; the goal is the median ratio under 3.
 * `petload list probes` is reported beside it: it loads the whole CLI (yargs and every command), as any
 * command does before its own work. dist/ is built first when it is missing (`npm run build`).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { row, type BenchEnv, type FigureResult } from '../figure.js';
import { runCommand } from '../lib/processes.js';
import { median } from '../lib/stats.js';

const BIN = fileURLToPath(new URL('../../bin/petload.js', import.meta.url));
const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const BUILD = fileURLToPath(new URL('../../scripts/build.js', import.meta.url));
/** Runs of each command per round. */
const RUNS_PER_ROUND = 5;
const TIMEOUT_MS = 30_000;

/** Real ms from spawn to exit of one command (behind the load pinning prefix). */
async function timed(prefix: readonly string[], args: readonly string[]): Promise<number> {
  const [cmd, ...rest] = [...prefix, process.execPath, ...args];
  const t0 = performance.now();
  await runCommand(cmd!, rest, TIMEOUT_MS);
  return performance.now() - t0;
}

export async function cliStartFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin } = env;
  if (!existsSync(MAIN)) {
    env.log('cli-start: dist/ is missing, building it');
    await runCommand(process.execPath, [BUILD], 120_000);
  }
  const node: number[] = [];
  const help: number[] = [];
  const list: number[] = [];
  const runs = Math.max(1, o.rounds) * RUNS_PER_ROUND;
  env.log(`cli-start: ${runs} runs each of node -e 0, petload --help, petload list probes`);
  // One untimed run of each first: the files are then in the page cache for every timed run alike.
  await timed(pin.load, ['-e', '0']);
  await timed(pin.load, [BIN, '--help']);
  await timed(pin.load, [BIN, 'list', 'probes']);
  for (let i = 0; i < runs; i++) {
    node.push(await timed(pin.load, ['-e', '0']));
    help.push(await timed(pin.load, [BIN, '--help']));
    list.push(await timed(pin.load, [BIN, 'list', 'probes']));
  }
  const peer = { value: median(node), unit: 'ms', what: 'node -e 0' };
  return {
    id: 'cli-start',
    rows: [
      row({
        figure: 'CLI start: petload --help against node -e 0',
        measured: { value: median(help), unit: 'ms', what: 'node bin/petload.js --help' },
        peer,
        score: { kind: 'ratio', value: median(help) / median(node), unit: 'x' },
        goal: { kind: 'under', value: 3 },
      }),
      row({
        figure: 'CLI start: petload list probes (the whole CLI loaded)',
        measured: { value: median(list), unit: 'ms', what: 'node bin/petload.js list probes' },
        peer,
        score: { kind: 'ratio', value: median(list) / median(node), unit: 'x' },
        goal: { kind: 'report' },
      }),
    ],
    details: { runs, nodeMs: node, helpMs: help, listMs: list },
  };
}
