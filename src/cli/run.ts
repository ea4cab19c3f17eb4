/**
 * `petload run <scenario or file>...`: runs each scenario in turn against the target (the embedded reference
 * server unless --target), writes its reports, prints a summary, and sets the exit code: the worst of the runs
 * (interrupted 130 > aborted 3 > fail 1 > pass 0). Ctrl-C (or SIGTERM) stops new sends, lets in-flight requests
 * finish for up to 2 s, writes the reports with verdict `aborted` and exits 130; a second one exits at once.
 * Against a remote target the engine first announces the run and checks the keys' daily quota (src/engine/quota.ts);
 * PETLOAD_TREAT_AS_REMOTE=1 gives a loopback target that treatment, for tests.
 */
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { PLAN_NAMES, type PlanName } from '../api/plans.js';
import { loadKeysFile, parseKeysText, type ApiKey } from '../config/keys-file.js';
import { loadScenario } from '../config/load-scenario.js';
import { applyOverrides } from '../config/overrides.js';
import { parseThreshold } from '../checks/thresholds.js';
import { isLoopback, parseTargetUrl } from '../engine/target.js';
import { EXIT, PetloadError } from '../errors.js';
import { createProgressReporter, type ProgressStats } from './progress.js';
import { FAULT_NAMES, type FaultName } from '../server/faults.js';
import { WINDOW_REPORTS, type WindowReport } from '../server/limiter.js';

interface RunArgs {
  scenarios: string[];
  rate?: string;
  duration?: string;
  target?: string;
  'keys-file'?: string;
  plan?: PlanName[];
  'time-scale'?: string;
  fault?: FaultName[];
  'window-report'?: WindowReport;
  'count-errors'?: 'yes' | 'no';
  threshold?: string[];
  'report-dir'?: string;
  timeout?: string;
  quiet?: boolean;
  'allow-quota-exhaustion'?: boolean;
  key?: string;
}

/** Keys for an external target: --keys-file, else PETLOAD_KEYS_FILE, else PETLOAD_KEYS (the JSON itself). */
export function keysFromEnvironment(file: string | undefined, env: NodeJS.ProcessEnv): ApiKey[] {
  const path = file ?? env.PETLOAD_KEYS_FILE;
  if (path) return loadKeysFile(path);
  if (env.PETLOAD_KEYS) return parseKeysText(env.PETLOAD_KEYS, 'PETLOAD_KEYS');
  throw new PetloadError('E_NO_KEYS', 'a run against --target needs keys: give --keys-file F, or set PETLOAD_KEYS_FILE or PETLOAD_KEYS');
}

const MAX_TIMEOUT_MS = 600_000;
const MAX_TIME_SCALE = 100_000;

/** --timeout: whole milliseconds, 1 to 10 minutes. */
export function parseTimeoutFlag(raw: string): number {
  const ms = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(ms >= 1 && ms <= MAX_TIMEOUT_MS)) {
    throw new PetloadError('E_USAGE', `--timeout: expected a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, such as 10000, found ${JSON.stringify(raw)}`);
  }
  return ms;
}

/** --time-scale: how many times faster than real time the embedded server's clock runs. */
export function parseTimeScaleFlag(raw: string): number {
  const n = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n > 0 && n <= MAX_TIME_SCALE)) {
    throw new PetloadError('E_USAGE', `--time-scale: expected a number above 0 and at most ${MAX_TIME_SCALE}, such as 60, found ${JSON.stringify(raw)}`);
  }
  return n;
}

const EMBEDDED_ONLY = ['fault', 'time-scale', 'window-report', 'count-errors'] as const;

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
      .option('time-scale', { type: 'string', requiresArg: true, describe: 'embedded server only: run its clock N times faster (default: the scenario\'s, else 60)' })
      .option('fault', { type: 'string', array: true, choices: FAULT_NAMES, describe: 'embedded server only: switch on a fault (repeatable)' })
      .option('window-report', { type: 'string', choices: WINDOW_REPORTS, describe: 'embedded server only: which window the headers describe' })
      .option('count-errors', { type: 'string', choices: ['yes', 'no'] as const, describe: 'embedded server only: whether 400/404 consume quota' })
      .option('threshold', { type: 'string', array: true, describe: 'extra threshold, e.g. "p(95) < 250ms" (repeatable)' })
      .option('report-dir', { type: 'string', describe: 'where reports go (default reports/<UTC timestamp>-<scenario>/)' })
      .option('timeout', { type: 'string', requiresArg: true, describe: 'request timeout in ms (default 10000)' })
      .option('rate', { type: 'string', requiresArg: true, describe: 'override the rate of constant-rate phases, e.g. 10/s or 95%' })
      .option('duration', { type: 'string', requiresArg: true, describe: 'override the duration of load phases, e.g. 30s or 5m' })
      .option('quiet', { type: 'boolean', describe: 'no progress lines; only the summary' })
      .option('dry-run', { type: 'boolean', describe: 'print the schedule (what runs on which key, in which window) and what it spends; send nothing' })
      .option('allow-quota-exhaustion', {
        type: 'boolean',
        describe: 'remote targets: run even when the estimate exceeds a key\'s remaining daily quota',
      })
      .option('key', { type: 'string', hidden: true })
      .check((a) => {
        if (a.key !== undefined) {
          throw new PetloadError('E_KEYS_ON_ARGV', 'API keys are never given on the command line (they would land in shell history and process lists)');
        }
        const embeddedOnly = EMBEDDED_ONLY.filter((f) => a[f] !== undefined).map((f) => `--${f}`);
        if (a.target !== undefined && embeddedOnly.length > 0) {
          const what = embeddedOnly.join(' and ');
          throw new PetloadError(
            'E_USAGE',
            `${what} appl${embeddedOnly.length === 1 ? 'ies' : 'y'} to the embedded reference server only, not to --target (a remote target runs on its own clock and settings)`,
          );
        }
        if (a.target !== undefined) parseTargetUrl(a.target);
        if (a.timeout !== undefined) parseTimeoutFlag(a.timeout);
        if (a['time-scale'] !== undefined) parseTimeScaleFlag(a['time-scale']);
        for (const t of a.threshold ?? []) {
          try {
            parseThreshold(t);
          } catch (e) {
            throw new PetloadError('E_USAGE', `--threshold: ${(e as Error).message}`);
          }
        }
        return true;
      }) as never,
  handler: async (argv) => {
    const overrides = { ...(argv.rate !== undefined ? { rate: argv.rate } : {}), ...(argv.duration !== undefined ? { duration: argv.duration } : {}) };
    const scenarios = argv.scenarios.map((s) => ({ arg: s, scenario: applyOverrides(loadScenario(s), overrides) }));
    const keys = argv.target !== undefined ? keysFromEnvironment(argv['keys-file'], process.env) : undefined;
    const log = argv.quiet ? () => {} : (line: string) => process.stderr.write(`${line}\n`);
    const notice = (line: string) => process.stderr.write(`${line}\n`);
    const treatAsRemote = process.env.PETLOAD_TREAT_AS_REMOTE === '1';
    const remote = argv.target !== undefined && (treatAsRemote || !isLoopback(argv.target));
    if (argv['dry-run']) {
      const { dryRunLines } = await import('../engine/dry-run.js');
      const { createRedactor } = await import('../config/keys-file.js');
      const redact = createRedactor(keys ?? []);
      for (const { scenario } of scenarios) {
        const lines = dryRunLines({
          scenario,
          ...(argv.target !== undefined ? { target: argv.target } : {}),
          ...(keys ? { keys } : {}),
          ...(argv.plan ? { plans: argv.plan } : {}),
          ...(argv['time-scale'] !== undefined ? { timeScale: parseTimeScaleFlag(argv['time-scale']) } : {}),
          remote,
        });
        process.stdout.write(`${lines.map(redact).join('\n')}\n`);
      }
      process.exitCode = 0;
      return;
    }

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

    // Loaded here, not at start-up: the engine brings undici, autocannon and the metrics, which --help, list
    // and validate never need.
    const [{ runScenario }, { renderConsoleSummary }] = await Promise.all([import('../engine/run.js'), import('../outputs/console.js')]);
    const progress = createProgressReporter(process.stderr);
    let worst = 0;
    for (const { arg, scenario } of scenarios) {
      if (controller.signal.aborted) break;
      const started = new Date();
      const reportDir = reportDirFor(argv['report-dir'], scenario.name, scenarios.length > 1, started);
      // A run against a remote target announces itself (the engine's notice), with more to say.
      if (!remote) log(`petload: ${scenario.name} against ${argv.target ?? 'the embedded reference server'}`);
      const result = await runScenario({
        scenario,
        ...(arg.includes('/') || arg.endsWith('.yaml') || arg.endsWith('.yml') ? { scenarioFile: arg } : {}),
        ...(argv.target !== undefined ? { target: argv.target } : {}),
        ...(keys ? { keys } : {}),
        ...(treatAsRemote ? { treatAsRemote } : {}),
        ...(argv['allow-quota-exhaustion'] ? { allowQuotaExhaustion: true } : {}),
        ...(argv['time-scale'] !== undefined ? { timeScale: parseTimeScaleFlag(argv['time-scale']) } : {}),
        ...(argv.fault ? { faults: argv.fault } : {}),
        ...(argv['window-report'] ? { windowReport: argv['window-report'] } : {}),
        ...(argv['count-errors'] ? { countErrors: argv['count-errors'] === 'yes' } : {}),
        ...(argv.plan ? { plans: argv.plan } : {}),
        ...(argv.threshold ? { thresholds: argv.threshold } : {}),
        ...(argv.timeout !== undefined ? { timeoutMs: parseTimeoutFlag(argv.timeout) } : {}),
        reportDir,
        signal: controller.signal,
        log,
        notice,
        ...(argv.quiet ? {} : { onProgress: (p: ProgressStats) => progress.update(p) }),
      });
      progress.done();
      process.stdout.write(`${renderConsoleSummary(result.report, { color: process.stdout.isTTY === true, ...(result.files ? { files: result.files } : {}) })}\n`);
      // An aborted run is also a tool error: one line and a hint on stderr, even with --quiet.
      if (result.exitCode === EXIT.aborted) notice(`petload: ${result.report.abortReason ?? 'the run was aborted'}\n  hint: ${result.hint ?? 'See the report.'}`);
      if (severityOfExit(result.exitCode) > severityOfExit(worst)) worst = result.exitCode;
    }
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Interrupted is 130, even when the signal came after the last run had sent everything.
    process.exitCode = controller.signal.aborted ? EXIT.interrupted : worst;
  },
};
