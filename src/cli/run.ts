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
import { PLAN_NAMES, PUBLISHED_FIGURES, layerFigures, type PlanFigures, type PlanName } from '../api/plans.js';
import { loadKeyEntries, parseKeyEntriesText, resolveKeys, type KeyEntry } from '../config/keys-file.js';
import type { ApiKey } from '../core/api-key.js';
import { loadPlansFile } from '../config/plan-figures.js';
import type { Scenario } from '../config/scenario.js';
import { createRedactor } from '../config/redactor.js';
import { loadScenario } from '../config/load-scenario.js';
import { applyOverrides } from '../config/overrides.js';
import { parseThreshold } from '../checks/thresholds.js';
import { isLoopback, parseTargetUrl } from '../engine/target.js';
import { ERRORS, EXIT, PetloadError } from '../core/errors.js';
import type { Failure } from '../engine/finalize.js';
import { createPlanBoard } from './plan-board.js';
import { appendGithubSummary, githubSummaryFile } from './github-summary.js';
import { createProgressReporter, type ProgressStats } from './progress.js';
import type { ProbeProgress } from '../core/progress.js';
import { FAULT_NAMES, type FaultName } from '../reference-server/faults.js';
import { WINDOW_REPORTS, type WindowReport } from '../reference-server/limiter.js';
import { shardSpecFrom } from '../shard/spec.js';

interface RunArgs {
  scenarios: string[];
  rate?: string;
  duration?: string;
  target?: string;
  'keys-file'?: string;
  'plans-file'?: string;
  plan?: PlanName[];
  'time-scale'?: string;
  fault?: FaultName[];
  'window-report'?: WindowReport;
  'count-errors'?: 'yes' | 'no';
  'ban-threshold'?: string;
  'ban-seconds'?: string;
  threshold?: string[];
  'report-dir'?: string;
  timeout?: string;
  quiet?: boolean;
  'allow-quota-exhaustion'?: boolean;
  'github-summary'?: boolean;
  key?: string;
  shards?: string;
  'shard-index'?: string;
  'start-at'?: string;
  'run-id'?: string;
}

/** A keys source, validated; its figures are resolved per scenario (resolveKeys). */
export interface KeySource {
  readonly name: string;
  readonly entries: readonly KeyEntry[];
}

/** Keys for an external target: --keys-file, else PETLOAD_KEYS_FILE, else PETLOAD_KEYS (the JSON itself). */
export function keySourceFromEnvironment(file: string | undefined, env: NodeJS.ProcessEnv): KeySource {
  const path = file ?? env.PETLOAD_KEYS_FILE;
  if (path) return { name: path, entries: loadKeyEntries(path) };
  if (env.PETLOAD_KEYS) return { name: 'PETLOAD_KEYS', entries: parseKeyEntriesText(env.PETLOAD_KEYS, 'PETLOAD_KEYS') };
  throw new PetloadError(
    'E_NO_KEYS',
    'a run against --target needs keys: give --keys-file F, or set PETLOAD_KEYS_FILE or PETLOAD_KEYS',
  );
}

/**
 * The figures of a scenario's run: published, then the scenario's planLimits, then the plans file; a key's
 * own figures win over all of them (resolveKeys).
 */
export function runFigures(scenario: Scenario, plansFile: PlanFigures | undefined): PlanFigures {
  return layerFigures(PUBLISHED_FIGURES, scenario.planLimits, plansFile);
}

const MAX_TIMEOUT_MS = 600_000;
const MAX_TIME_SCALE = 100_000;

/** --timeout: whole milliseconds, 1 to 10 minutes. */
export function parseTimeoutFlag(raw: string): number {
  const ms = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(ms >= 1 && ms <= MAX_TIMEOUT_MS)) {
    throw new PetloadError(
      'E_USAGE',
      `--timeout: expected a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, such as 10000, found ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/** --time-scale: how many times faster than real time the embedded server's clock runs. */
export function parseTimeScaleFlag(raw: string): number {
  const n = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n > 0 && n <= MAX_TIME_SCALE)) {
    throw new PetloadError(
      'E_USAGE',
      `--time-scale: expected a number above 0 and at most ${MAX_TIME_SCALE}, such as 60, found ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/** --ban-threshold: requests the embedded server tolerates inside one running Retry-After before it bans the key. */
export function parseBanThresholdFlag(raw: string): number {
  const n = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n >= 0 && n <= 10_000))
    throw new PetloadError(
      'E_USAGE',
      `--ban-threshold: expected a whole number from 0 to 10000, such as 10, found ${JSON.stringify(raw)}`,
    );
  return n;
}

/** --ban-seconds: how long the embedded server's ban lasts, in seconds of its (possibly scaled) clock. */
export function parseBanSecondsFlag(raw: string): number {
  const n = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n > 0 && n <= 86_400))
    throw new PetloadError(
      'E_USAGE',
      `--ban-seconds: expected a number of seconds above 0 and at most 86400, such as 900, found ${JSON.stringify(raw)}`,
    );
  return n;
}

const EMBEDDED_ONLY = ['fault', 'time-scale', 'window-report', 'count-errors', 'ban-threshold', 'ban-seconds'] as const;

const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

function reportDirFor(base: string | undefined, scenario: string, many: boolean, started: Date): string {
  if (base === undefined) return join('reports', `${stamp(started)}-${scenario}`);
  return many ? join(base, scenario) : base;
}

/** Which exit code wins over several runs: interrupted > internal error (4) > aborted > fail > pass. */
const severityOfExit = (code: number) =>
  code === EXIT.interrupted
    ? 5
    : code === EXIT.internal
      ? 4
      : code === EXIT.aborted
        ? 3
        : code === EXIT.fail
          ? 2
          : code === 0
            ? 0
            : 1;

/** What the CLI says when the report could not be assembled: what went wrong, what was saved, where. */
export function failureLines(failure: Failure): string[] {
  const files = Object.values(failure.files);
  return [
    `petload: the report could not be assembled: ${failure.message}`,
    files.length > 0
      ? `  what the run collected was saved: ${files.join(', ')}${failure.files.json ? ' (report.json has verdict "error" and the raw parts)' : ''}`
      : `  nothing could be saved in ${failure.reportDir}`,
    `  hint: ${ERRORS.E_INTERNAL.hint}`,
  ];
}

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run <scenarios..>',
  describe: 'Run scenarios (shipped names or YAML files) against a target, write reports, set the exit code',
  builder: (y: Argv) =>
    y
      .positional('scenarios', {
        type: 'string',
        array: true,
        describe: 'shipped scenario names (petload list scenarios) or paths to YAML files',
      })
      .option('target', {
        type: 'string',
        describe: 'base URL of the API (ending in /v1); default: the embedded reference server',
      })
      .option('keys-file', {
        type: 'string',
        describe:
          'keys file (JSON): the keys for --target (also PETLOAD_KEYS_FILE or PETLOAD_KEYS); without --target, the keys the embedded server serves',
      })
      .option('plans-file', {
        type: 'string',
        describe:
          'plans file (JSON or YAML): figures of whole plans for the run, for --target and the embedded server (docs/plans.md)',
      })
      .option('plan', {
        type: 'string',
        array: true,
        choices: PLAN_NAMES,
        describe: 'plans to judge (default: every plan with a key)',
      })
      .option('time-scale', {
        type: 'string',
        requiresArg: true,
        describe: "embedded server only: run its clock N times faster (default: the scenario's, else 60)",
      })
      .option('fault', {
        type: 'string',
        array: true,
        choices: FAULT_NAMES,
        describe: 'embedded server only: switch on a fault (repeatable)',
      })
      .option('window-report', {
        type: 'string',
        choices: WINDOW_REPORTS,
        describe: 'embedded server only: which window the headers describe',
      })
      .option('count-errors', {
        type: 'string',
        choices: ['yes', 'no'] as const,
        describe: 'embedded server only: whether 400/404 consume quota',
      })
      .option('ban-threshold', {
        type: 'string',
        requiresArg: true,
        describe: 'embedded server only: requests tolerated inside a running Retry-After before a ban (default 10)',
      })
      .option('ban-seconds', {
        type: 'string',
        requiresArg: true,
        describe: 'embedded server only: length of a ban in server-clock seconds (default 900)',
      })
      .option('threshold', {
        type: 'string',
        array: true,
        describe: 'extra threshold, e.g. "p(95) < 250ms" (repeatable)',
      })
      .option('report-dir', {
        type: 'string',
        describe: 'where reports go (default reports/<UTC timestamp>-<scenario>/)',
      })
      .option('timeout', { type: 'string', requiresArg: true, describe: 'request timeout in ms (default 10000)' })
      .option('rate', {
        type: 'string',
        requiresArg: true,
        describe: 'override the rate of constant-rate phases, e.g. 10/s or 95%',
      })
      .option('duration', {
        type: 'string',
        requiresArg: true,
        describe: 'override the duration of load phases, e.g. 30s or 5m',
      })
      .option('quiet', { type: 'boolean', describe: 'no progress lines; only the summary' })
      .option('dry-run', {
        type: 'boolean',
        describe: 'print the schedule (what runs on which key, in which window) and what it spends; send nothing',
      })
      .option('allow-quota-exhaustion', {
        type: 'boolean',
        describe: "remote targets: run even when the estimate exceeds a key's remaining daily quota",
      })
      .option('shards', {
        type: 'string',
        requiresArg: true,
        describe: 'run one shard of N (needs --target; docs/kubernetes.md)',
      })
      .option('shard-index', {
        type: 'string',
        requiresArg: true,
        describe: "this shard's index, 0..N-1 (default: JOB_COMPLETION_INDEX)",
      })
      .option('start-at', {
        type: 'string',
        requiresArg: true,
        describe: 'sharded run: ISO time at which every shard begins',
      })
      .option('run-id', {
        type: 'string',
        requiresArg: true,
        describe: 'sharded run: the identity all shards share (default: derived)',
      })
      .option('github-summary', {
        type: 'boolean',
        describe:
          'append each summary.md to $GITHUB_STEP_SUMMARY (default: when that variable is set; --no-github-summary: never)',
      })
      .option('key', { type: 'string', hidden: true })
      .check((a) => {
        if (a.key !== undefined) {
          throw new PetloadError(
            'E_KEYS_ON_ARGV',
            'API keys are never given on the command line (they would land in shell history and process lists)',
          );
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
        githubSummaryFile(a['github-summary'], process.env);
        if (a.timeout !== undefined) parseTimeoutFlag(a.timeout);
        if (a['time-scale'] !== undefined) parseTimeScaleFlag(a['time-scale']);
        if (a['ban-threshold'] !== undefined) parseBanThresholdFlag(a['ban-threshold']);
        if (a['ban-seconds'] !== undefined) parseBanSecondsFlag(a['ban-seconds']);
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
    const overrides = {
      ...(argv.rate !== undefined ? { rate: argv.rate } : {}),
      ...(argv.duration !== undefined ? { duration: argv.duration } : {}),
    };
    const scenarios = argv.scenarios.map((s) => ({ arg: s, scenario: applyOverrides(loadScenario(s), overrides) }));
    const shard = shardSpecFrom(
      { shards: argv.shards, shardIndex: argv['shard-index'], startAt: argv['start-at'], runId: argv['run-id'] },
      { scenario: scenarios[0]!.scenario.name, target: argv.target, scenarios: scenarios.length, env: process.env },
    );
    // --keys-file without --target: the embedded server serves those keys (PETLOAD_KEYS_FILE/PETLOAD_KEYS only
    // ever name a remote target's keys, so a variable set for CI never changes what the embedded server serves).
    const keySource =
      argv.target !== undefined
        ? keySourceFromEnvironment(argv['keys-file'], process.env)
        : argv['keys-file'] !== undefined
          ? { name: argv['keys-file'], entries: loadKeyEntries(argv['keys-file']) }
          : undefined;
    const plansFile = argv['plans-file'] !== undefined ? loadPlansFile(argv['plans-file']) : undefined;
    // Every scenario's keys resolved before anything runs: a figure missing for one of them is an error now.
    const keysOf = new Map(
      scenarios.map(({ scenario }) => [
        scenario,
        keySource ? resolveKeys(keySource.entries, keySource.name, runFigures(scenario, plansFile)) : undefined,
      ]),
    );
    const redactWhole = createRedactor([...keysOf.values()].flatMap((k) => k ?? [])).whole;
    // Progress while probes run (one line per plan) and during load phases, on stderr; log lines are printed above
    // it. Redrawn in place only on a terminal: plain lines in CI, or when stdout or stderr is not a terminal.
    const live = process.stderr.isTTY === true && process.stdout.isTTY === true && !process.env.CI;
    const progressStream = {
      write: (t: string) => process.stderr.write(t),
      isTTY: live,
      columns: process.stderr.columns,
    };
    const board = createPlanBoard(progressStream);
    const log = argv.quiet ? () => {} : (line: string) => board.log(line);
    const notice = (line: string) => board.log(line);
    const treatAsRemote = process.env.PETLOAD_TREAT_AS_REMOTE === '1';
    const remote = argv.target !== undefined && (treatAsRemote || !isLoopback(argv.target));
    const githubSummary = githubSummaryFile(argv['github-summary'], process.env);
    if (argv['dry-run']) {
      const { dryRunLines } = await import('../engine/dry-run.js');
      for (const { scenario } of scenarios) {
        const keys = keysOf.get(scenario);
        const lines = dryRunLines({
          scenario,
          ...(argv.target !== undefined ? { target: argv.target } : {}),
          ...(keys ? { keys } : {}),
          ...(argv.plan ? { plans: argv.plan } : {}),
          figures: layerFigures(scenario.planLimits, plansFile),
          ...(argv['time-scale'] !== undefined ? { timeScale: parseTimeScaleFlag(argv['time-scale']) } : {}),
          remote,
        });
        process.stdout.write(`${lines.map(redactWhole).join('\n')}\n`);
      }
      process.exitCode = 0;
      return;
    }

    const controller = new AbortController();
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        process.stderr.write(
          `\n${sig} again: exiting now, without waiting for requests in flight or writing reports\n`,
        );
        process.exit(EXIT.interrupted);
      }
      process.stderr.write(
        `\n${sig}: stopping new requests, finishing those in flight, writing reports (again to exit now)\n`,
      );
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    // Loaded here, not at start-up: the engine brings undici, autocannon and the metrics, which --help, list
    // and validate never need.
    const [{ runScenario }, { renderConsoleSummary }] = await Promise.all([
      import('../engine/run.js'),
      import('../outputs/console.js'),
    ]);
    const progress = createProgressReporter(progressStream);
    let worst = 0;
    for (const { arg, scenario } of scenarios) {
      if (controller.signal.aborted) break;
      const started = new Date();
      const reportDir =
        shard && argv['report-dir'] === undefined
          ? join('reports', shard.runId, `shard-${shard.index}`)
          : reportDirFor(argv['report-dir'], scenario.name, scenarios.length > 1, started);
      // A run against a remote target announces itself (the engine's notice), with more to say.
      if (!remote) log(`petload: ${scenario.name} against ${argv.target ?? 'the embedded reference server'}`);
      if (shard)
        log(
          `petload: shard ${shard.index} of ${shard.count} of run ${shard.runId}${shard.startAt !== undefined ? `, beginning at ${new Date(shard.startAt).toISOString()}` : ''}`,
        );
      const result = await runScenario({
        scenario,
        ...(arg.includes('/') || arg.endsWith('.yaml') || arg.endsWith('.yml') ? { scenarioFile: arg } : {}),
        ...(argv.target !== undefined ? { target: argv.target } : {}),
        ...(keysOf.get(scenario) ? { keys: keysOf.get(scenario)! } : {}),
        ...(plansFile ? { planFigures: plansFile } : {}),
        ...(treatAsRemote ? { treatAsRemote } : {}),
        ...(argv['allow-quota-exhaustion'] ? { allowQuotaExhaustion: true } : {}),
        ...(argv['time-scale'] !== undefined ? { timeScale: parseTimeScaleFlag(argv['time-scale']) } : {}),
        ...(argv.fault ? { faults: argv.fault } : {}),
        ...(argv['window-report'] ? { windowReport: argv['window-report'] } : {}),
        ...(argv['count-errors'] ? { countErrors: argv['count-errors'] === 'yes' } : {}),
        ...(argv['ban-threshold'] !== undefined || argv['ban-seconds'] !== undefined
          ? {
              ban: {
                ...(argv['ban-threshold'] !== undefined
                  ? { threshold: parseBanThresholdFlag(argv['ban-threshold']) }
                  : {}),
                ...(argv['ban-seconds'] !== undefined ? { seconds: parseBanSecondsFlag(argv['ban-seconds']) } : {}),
              },
            }
          : {}),
        ...(argv.plan ? { plans: argv.plan } : {}),
        ...(shard ? { shard } : {}),
        ...(argv.threshold ? { thresholds: argv.threshold } : {}),
        ...(argv.timeout !== undefined ? { timeoutMs: parseTimeoutFlag(argv.timeout) } : {}),
        reportDir,
        signal: controller.signal,
        log,
        notice,
        ...(argv.quiet
          ? {}
          : {
              onProbe: (p: ProbeProgress) => board.probe(p),
              onProgress: (p: ProgressStats) => {
                board.end();
                progress.update(p);
              },
            }),
      });
      board.end();
      progress.done();
      if (result.failure) {
        for (const line of failureLines(result.failure)) notice(line);
      } else {
        const summary = renderConsoleSummary(result.report, {
          color: process.stdout.isTTY === true,
          ...(result.files ? { files: result.files } : {}),
        });
        // The report's free text is redacted already; whole keys once more, as in every report file.
        process.stdout.write(`${redactWhole(summary)}\n`);
      }
      // An aborted run is also a tool error: one line and a hint on stderr, even with --quiet.
      if (!result.failure && (result.exitCode === EXIT.aborted || result.exitCode === EXIT.internal)) {
        notice(
          `petload: ${result.report.abortReason ?? 'the run was aborted'}\n  hint: ${result.hint ?? (result.exitCode === EXIT.internal ? ERRORS.E_INTERNAL.hint : 'See the report.')}`,
        );
      }
      if (githubSummary !== null && result.files) {
        const failed = await appendGithubSummary(githubSummary, result.files.markdown);
        if (failed !== null) notice(failed);
      }
      if (severityOfExit(result.exitCode) > severityOfExit(worst)) worst = result.exitCode;
    }
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Interrupted is 130, even when the signal came after the last run had sent everything.
    process.exitCode = controller.signal.aborted ? EXIT.interrupted : worst;
  },
};
