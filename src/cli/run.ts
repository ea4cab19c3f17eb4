/**
 * `petload run <scenario or file>...`: runs each scenario in turn against the target (the embedded reference
 * server unless --target), writes its reports, prints a summary, and sets the exit code: the worst of the runs
 * (interrupted 130 > aborted 3 > fail 1 > pass 0). Ctrl-C stops new sends, lets in-flight requests finish,
 * writes the reports with verdict `aborted` and exits 130; a second Ctrl-C exits at once.
 */
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { PLAN_NAMES, type PlanName } from '../api/plans.js';
import { loadKeysFile, parseKeysText, type ApiKey } from '../config/keys-file.js';
import { loadScenario } from '../config/load-scenario.js';
import { parseThreshold } from '../checks/thresholds.js';
import { runScenario, type RunResult } from '../engine/run.js';
import { EXIT, PetloadError } from '../errors.js';
import { renderConsoleSummary } from '../outputs/console.js';
import { createProgressReporter, type ProgressStats } from './progress.js';
import { FAULT_NAMES, type FaultName } from '../server/faults.js';
import { WINDOW_REPORTS, type WindowReport } from '../server/limiter.js';

interface RunArgs {
  scenarios: string[];
  target?: string;
  'keys-file'?: string;
  plan?: PlanName[];
  'time-scale'?: number;
  fault?: FaultName[];
  'window-report'?: WindowReport;
  'count-errors'?: 'yes' | 'no';
  threshold?: string[];
  'report-dir'?: string;
  timeout?: number;
  quiet?: boolean;
  key?: string;
}

/** Keys for an external target: --keys-file, else PETLOAD_KEYS_FILE, else PETLOAD_KEYS (the JSON itself). */
export function keysFromEnvironment(file: string | undefined, env: NodeJS.ProcessEnv): ApiKey[] {
  const path = file ?? env.PETLOAD_KEYS_FILE;
  if (path) return loadKeysFile(path);
  if (env.PETLOAD_KEYS) return parseKeysText(env.PETLOAD_KEYS, 'PETLOAD_KEYS');
  throw new PetloadError('E_NO_KEYS', 'a run against --target needs keys: give --keys-file F, or set PETLOAD_KEYS_FILE or PETLOAD_KEYS');
}

/** Refuse any argument that carries a key: keys belong in the keys file or the environment. */
function refuseKeysOnArgv(argv: readonly string[], keys: readonly ApiKey[]): void {
  for (const k of keys) {
    if (argv.some((a) => a.includes(k.secret))) {
      throw new PetloadError('E_KEYS_ON_ARGV', `a command-line argument contains the API key ${k.label}; keys are never given on the command line`);
    }
  }
}

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

function reportDirFor(base: string | undefined, scenario: string, many: boolean, started: Date): string {
  if (base === undefined) return join('reports', `${stamp(started)}-${scenario}`);
  return many ? join(base, scenario) : base;
}

const severityOfExit = (code: number) => (code === EXIT.interrupted ? 4 : code === EXIT.aborted ? 3 : code === EXIT.fail ? 2 : code === 0 ? 0 : 1);

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run <scenarios..>',
  describe: 'Run scenarios (shipped names or YAML files) against a target, write reports, set the exit code',
  builder: (y: Argv) =>
    y
      .positional('scenarios', { type: 'string', array: true, describe: 'shipped scenario names (petload list scenarios) or paths to YAML files' })
      .option('target', { type: 'string', describe: 'base URL of the API (ending in /v1); default: the embedded reference server' })
      .option('keys-file', { type: 'string', describe: 'keys file (JSON) for --target; also PETLOAD_KEYS_FILE or PETLOAD_KEYS' })
      .option('plan', { type: 'string', array: true, choices: PLAN_NAMES, describe: 'plans to judge (default: every plan with a key)' })
      .option('time-scale', { type: 'number', describe: 'embedded server only: run its clock N times faster (default: the scenario\'s, else 60)' })
      .option('fault', { type: 'string', array: true, choices: FAULT_NAMES, describe: 'embedded server only: switch on a fault (repeatable)' })
      .option('window-report', { type: 'string', choices: WINDOW_REPORTS, describe: 'embedded server only: which window the headers describe' })
      .option('count-errors', { type: 'string', choices: ['yes', 'no'] as const, describe: 'embedded server only: whether 400/404 consume quota' })
      .option('threshold', { type: 'string', array: true, describe: 'extra threshold, e.g. "p(95) < 250ms" (repeatable)' })
      .option('report-dir', { type: 'string', describe: 'where reports go (default reports/<UTC timestamp>-<scenario>/)' })
      .option('timeout', { type: 'number', describe: 'request timeout in ms (default 10000)' })
      .option('quiet', { type: 'boolean', describe: 'no progress lines; only the summary' })
      .option('key', { type: 'string', hidden: true })
      .check((a) => {
        if (a.key !== undefined) {
          throw new PetloadError('E_KEYS_ON_ARGV', 'API keys are never given on the command line (they would land in shell history and process lists)');
        }
        if (a.target !== undefined && (a.fault !== undefined || a['time-scale'] !== undefined || a['window-report'] !== undefined || a['count-errors'] !== undefined)) {
          throw new PetloadError('E_USAGE', '--fault, --time-scale, --window-report and --count-errors apply to the embedded server only, not to --target');
        }
        for (const t of a.threshold ?? []) {
          try {
            parseThreshold(t);
          } catch (e) {
            throw new PetloadError('E_USAGE', `--threshold ${JSON.stringify(t)}: ${(e as Error).message}`);
          }
        }
        return true;
      }) as never,
  handler: async (argv) => {
    const scenarios = argv.scenarios.map((s) => ({ arg: s, scenario: loadScenario(s) }));
    const keys = argv.target !== undefined ? keysFromEnvironment(argv['keys-file'], process.env) : undefined;
    if (keys) refuseKeysOnArgv(process.argv.slice(2), keys);
    const log = argv.quiet ? () => {} : (line: string) => process.stderr.write(`${line}\n`);

    const controller = new AbortController();
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals > 1) process.exit(EXIT.interrupted);
      process.stderr.write(`\n${sig}: stopping new requests, finishing those in flight, writing reports (again to exit now)\n`);
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    const progress = createProgressReporter(process.stderr);
    let worst = 0;
    const results: RunResult[] = [];
    for (const { arg, scenario } of scenarios) {
      if (controller.signal.aborted) break;
      const started = new Date();
      const reportDir = reportDirFor(argv['report-dir'], scenario.name, scenarios.length > 1, started);
      log(`petload: ${scenario.name} against ${argv.target ?? 'the embedded reference server'}`);
      const result = await runScenario({
        scenario,
        ...(arg.includes('/') || arg.endsWith('.yaml') || arg.endsWith('.yml') ? { scenarioFile: arg } : {}),
        ...(argv.target !== undefined ? { target: argv.target } : {}),
        ...(keys ? { keys } : {}),
        ...(argv['time-scale'] !== undefined ? { timeScale: argv['time-scale'] } : {}),
        ...(argv.fault ? { faults: argv.fault } : {}),
        ...(argv['window-report'] ? { windowReport: argv['window-report'] } : {}),
        ...(argv['count-errors'] ? { countErrors: argv['count-errors'] === 'yes' } : {}),
        ...(argv.plan ? { plans: argv.plan } : {}),
        ...(argv.threshold ? { thresholds: argv.threshold } : {}),
        ...(argv.timeout !== undefined ? { timeoutMs: argv.timeout } : {}),
        reportDir,
        signal: controller.signal,
        log,
        ...(argv.quiet ? {} : { onProgress: (p: ProgressStats) => progress.update(p) }),
      });
      progress.done();
      results.push(result);
      process.stdout.write(`${renderConsoleSummary(result.report, { color: process.stdout.isTTY === true, ...(result.files ? { files: result.files } : {}) })}\n`);
      if (severityOfExit(result.exitCode) > severityOfExit(worst)) worst = result.exitCode;
    }
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.exitCode = worst;
  },
};
