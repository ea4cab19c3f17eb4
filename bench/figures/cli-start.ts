/**
 * CLI start-up: every command that sends nothing, run as an installed package runs it (bin/petload.js, the
 * bundled CLI in dist/bundle/), against `node -e 0`, node's own start-up, taking turns run after run. Each
 * command's row gives the median of its runs over the median of node's; the goal is within 3x for each:
 * - `--help`: yargs and the command registry (name lists only), printing the help;
 * - `list probes`: the same, printing the probes;
 * - `validate <a shipped scenario file>`: the scenario loader and its schema;
 * - `report <report.json> --out DIR`: reading a report and writing every format again;
 * - `k8s <scenario> ...`: the scenario, its shards and the manifests.
 * Each command is timed from spawn to exit, its own work included. The children run without PETLOAD_KEYS and
 * PETLOAD_KEYS_FILE (a keys source named on the command line or in the environment loads the keys file's reader
 * before parsing). dist/ is built first when it is missing (`npm run build`).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { row, type BenchEnv, type FigureResult, type Row } from '../figure.js';
import { runCommand } from '../lib/processes.js';
import { median } from '../lib/stats.js';

const BIN = fileURLToPath(new URL('../../bin/petload.js', import.meta.url));
const MAIN = fileURLToPath(new URL('../../dist/bundle/petload.js', import.meta.url));
const BUILD = fileURLToPath(new URL('../../scripts/build.js', import.meta.url));
const SCENARIO = fileURLToPath(new URL('../../scenarios/compliance.yaml', import.meta.url));
const TIMEOUT_MS = 30_000;
/** Each command's start-up against node's: at most this many times as long. */
const GOAL_RATIO = 3;

/** One command line of petload, timed against node's start-up. */
interface CliCase {
  /** The key of its samples in the details. */
  readonly id: string;
  /** The command as the table shows it. */
  readonly shown: string;
  readonly args: readonly string[];
  /** The exit code the command gives (`report` exits with the report's own). */
  readonly exit: number;
}

/** The commands that send nothing, with their inputs in `dir` (a report.json made from the sample report). */
async function cliCases(dir: string): Promise<CliCase[]> {
  const [{ sampleReport }, { renderJson }] = await Promise.all([
    import('../../src/testing/sample-report.js'),
    import('../../src/outputs/json.js'),
  ]);
  const report = sampleReport({ seed: 1 });
  const reportFile = join(dir, 'report.json');
  await writeFile(reportFile, renderJson(report));
  const k8s = [
    '--target',
    'https://api.example.com/v1',
    '--shards',
    '2',
    '--image',
    'registry.example.com/petload:0.1.0',
  ];
  return [
    { id: 'help', shown: '--help', args: ['--help'], exit: 0 },
    { id: 'list', shown: 'list probes', args: ['list', 'probes'], exit: 0 },
    { id: 'validate', shown: 'validate scenarios/compliance.yaml', args: ['validate', SCENARIO], exit: 0 },
    {
      id: 'report',
      shown: 'report report.json --out DIR',
      args: ['report', reportFile, '--out', join(dir, 'rendered')],
      exit: report.exitCode,
    },
    {
      id: 'k8s',
      shown: 'k8s compliance --shards 2 ...',
      args: ['k8s', 'compliance', ...k8s, '--keys-secret', 'petload-keys', '--start-at', '2030-01-01T00:00:00Z'],
      exit: 0,
    },
  ];
}

/** The environment of the children: no keys source, no job summary. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.PETLOAD_KEYS;
  delete env.PETLOAD_KEYS_FILE;
  delete env.GITHUB_STEP_SUMMARY;
  return env;
}

/** Real ms from spawn to exit of one command (behind the load pinning prefix). */
async function timed(prefix: readonly string[], args: readonly string[], exit = 0): Promise<number> {
  const [cmd, ...rest] = [...prefix, process.execPath, ...args];
  const t0 = performance.now();
  await runCommand(cmd!, rest, { timeoutMs: TIMEOUT_MS, env: childEnv(), expectedExit: exit });
  return performance.now() - t0;
}

function cliRow(c: CliCase, samples: readonly number[], nodeMs: readonly number[]): Row {
  const ratio = median(samples) / median(nodeMs);
  return row({
    figure: `CLI start: petload ${c.shown} against node -e 0`,
    measured: { value: median(samples), unit: 'ms', what: `node bin/petload.js ${c.shown}` },
    peer: { value: median(nodeMs), unit: 'ms', what: 'node -e 0' },
    score: { kind: 'ratio', value: ratio, unit: 'x' },
    goal: { kind: 'at-most', value: GOAL_RATIO, unit: 'x' },
  });
}

export async function cliStartFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin } = env;
  if (!existsSync(MAIN)) {
    env.log('cli-start: dist/ is missing, building it');
    await runCommand(process.execPath, [BUILD], { timeoutMs: 120_000 });
  }
  const dir = await mkdtemp(join(tmpdir(), 'petload-cli-start-'));
  try {
    const cases = await cliCases(dir);
    const node: number[] = [];
    const samples = new Map<string, number[]>(cases.map((c) => [c.id, []]));
    const runs = Math.max(1, o.rounds) * o.cliStartRunsPerRound;
    env.log(`cli-start: ${runs} runs each of node -e 0, ${cases.map((c) => `petload ${c.shown}`).join(', ')}`);
    // One untimed run of each first: the files are then in the page cache for every timed run alike.
    await timed(pin.load, ['-e', '0']);
    for (const c of cases) await timed(pin.load, [BIN, ...c.args], c.exit);
    for (let i = 0; i < runs; i++) {
      node.push(await timed(pin.load, ['-e', '0']));
      for (const c of cases) samples.get(c.id)!.push(await timed(pin.load, [BIN, ...c.args], c.exit));
    }
    return {
      id: 'cli-start',
      rows: cases.map((c) => cliRow(c, samples.get(c.id)!, node)),
      details: {
        runs,
        goalRatio: GOAL_RATIO,
        nodeMs: node,
        commands: Object.fromEntries(cases.map((c) => [c.id, { args: c.shown, ms: samples.get(c.id)! }])),
        ratios: Object.fromEntries(cases.map((c) => [c.id, median(samples.get(c.id)!) / median(node)])),
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
