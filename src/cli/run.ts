/**
 * `petload run <scenario or file>...`: runs each scenario in turn against the target (the embedded reference
 * server unless --target), writes its reports, prints a summary, and sets the exit code: the worst of the runs
 * (interrupted 130 > aborted 3 > fail 1 > pass 0). Ctrl-C (or SIGTERM) stops new sends, lets in-flight requests
 * finish for up to 2 s, writes the reports with verdict `aborted` and exits 130; a second one exits at once.
 * Against a remote target the engine first announces the run and guards the keys' daily quota (src/engine/quota-gate.ts);
 * PETLOAD_TREAT_AS_REMOTE=1 gives a loopback target that treatment, for tests.
 *
 * This file is the command as the parser sees it (its flags and their checks) and loads only name lists: what a
 * run does (./run-scenarios.ts, which brings the scenario schema, the engine, undici, autocannon and the metrics)
 * is imported when the command runs, so that every other command starts without it.
 */
import { existsSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { PLAN_NAMES, type PlanName } from '../api/plans.js';
import { ERRORS, PetloadError } from '../core/errors.js';
import type { Failure } from '../engine/finalize.js';
import { FAULT_NAMES, type FaultName } from '../reference-server/faults.js';
import { WINDOW_REPORTS, type WindowReport } from '../reference-server/limiter.js';
import { parseLingerFlag, parsePortFlag } from './run-sinks.js';
import { githubSummaryFile } from './github-summary.js';
import { type NetworkArgs, networkOptions } from './network-options.js';

export interface RunArgs extends NetworkArgs {
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
  'dry-run'?: boolean;
  'allow-quota-exhaustion'?: boolean;
  live?: string;
  'metrics-port'?: string;
  'metrics-host'?: string;
  'metrics-linger'?: string;
  'github-summary'?: boolean;
  baseline?: string;
  key?: string;
  shards?: string;
  'shard-index'?: string;
  'start-at'?: string;
  'run-id'?: string;
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

/** What is run and where: the scenarios, the target and its keys and plans. */
function targetOptions(y: Argv): Argv {
  return y
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
    });
}

/** The embedded reference server's settings (refused with --target: EMBEDDED_ONLY). */
function embeddedServerOptions(y: Argv): Argv {
  return y
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
    });
}

/** How the run is judged, where its reports go, and what its load phases send. */
function runOptions(y: Argv): Argv {
  return y
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
    .option('live', {
      type: 'string',
      describe: 'a live page of the run on 127.0.0.1 (a free port, or PORT); its address is printed',
    })
    .option('metrics-port', {
      type: 'string',
      requiresArg: true,
      describe: 'an OpenMetrics endpoint /metrics for Prometheus on PORT during the run (docs/live.md)',
    })
    .option('metrics-host', {
      type: 'string',
      requiresArg: true,
      describe: 'the address the metrics endpoint binds to (default 127.0.0.1)',
    })
    .option('metrics-linger', {
      type: 'string',
      requiresArg: true,
      describe: 'seconds the metrics endpoint stays up after the last run, for a last scrape (default 10)',
    })
    .option('dry-run', {
      type: 'boolean',
      describe: 'print the schedule (what runs on which key, in which window) and what it spends; send nothing',
    })
    .option('allow-quota-exhaustion', {
      type: 'boolean',
      describe: "remote targets: run even when the estimate exceeds a key's remaining daily quota",
    });
}

/** A sharded run (docs/kubernetes.md), the job summary, and the hidden --key that is always refused. */
function shardAndSummaryOptions(y: Argv): Argv {
  return y
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
    .option('baseline', {
      type: 'string',
      requiresArg: true,
      describe:
        "compare each run with its baseline (a report.json, or a folder of reports: the scenario's is found) and write compare.* beside the report",
    })
    .option('key', { type: 'string', hidden: true });
}

/**
 * The flags' own checks, in this order, before anything runs. The target URL and the thresholds are parsed by
 * the modules that use them (the engine's target, the metrics' thresholds), loaded only when those flags are given.
 */
async function checkRunFlags(a: Partial<RunArgs>): Promise<true> {
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
  if (a.target !== undefined) (await import('../http/target-url.js')).parseTargetUrl(a.target);
  githubSummaryFile(a['github-summary'], process.env);
  if (a.live !== undefined) parsePortFlag('--live', a.live);
  if (a['metrics-port'] !== undefined) parsePortFlag('--metrics-port', a['metrics-port']);
  parseLingerFlag(a['metrics-linger']);
  if (a.baseline !== undefined && !existsSync(a.baseline))
    throw new PetloadError('E_USAGE', `--baseline: ${a.baseline}: no such file or directory`);
  if (a.timeout !== undefined) parseTimeoutFlag(a.timeout);
  (await import('./network-flags.js')).readNetworkFlags(a, process.env);
  if (a['time-scale'] !== undefined) parseTimeScaleFlag(a['time-scale']);
  if (a['ban-threshold'] !== undefined) parseBanThresholdFlag(a['ban-threshold']);
  if (a['ban-seconds'] !== undefined) parseBanSecondsFlag(a['ban-seconds']);
  if (a.threshold !== undefined && a.threshold.length > 0) {
    const { parseThreshold } = await import('../checks/thresholds.js');
    for (const t of a.threshold) {
      try {
        parseThreshold(t);
      } catch (e) {
        throw new PetloadError('E_USAGE', `--threshold: ${(e as Error).message}`);
      }
    }
  }
  return true;
}

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run <scenarios..>',
  describe: 'Run scenarios (shipped names or YAML files) against a target, write reports, set the exit code',
  builder: (y: Argv) =>
    shardAndSummaryOptions(networkOptions(runOptions(embeddedServerOptions(targetOptions(y))))).check((a) =>
      checkRunFlags(a as Partial<RunArgs>),
    ) as never,
  handler: async (argv) => {
    const { runScenarios } = await import('./run-scenarios.js');
    process.exitCode = await runScenarios(argv);
  },
};
