/**
 * `petload run <scenario or file>...`: runs each scenario in turn against the target (the embedded reference
 * server unless --target), writes its reports, prints a summary, and sets the exit code: the worst of the runs
 * (interrupted 130 > aborted 3 > fail 1 > pass 0). Ctrl-C (or SIGTERM) stops new sends, lets in-flight requests
 * finish for up to 2 s, writes the reports with verdict `aborted` and exits 130; a second one exits at once.
 * Against a remote target the engine first announces the run and guards the keys' daily quota (src/engine/quota-gate.ts);
 * PETLOAD_TREAT_AS_REMOTE=1 gives a loopback target that treatment, for tests.
 *
 * This file is the command as the parser sees it (its flags, their names and choices) and loads only name lists:
 * the flags' values are parsed and checked once by ./run-flags.ts (zod), and what a run does (./run-scenarios.ts,
 * which brings the scenario schema, the engine, undici, autocannon and the metrics) is imported when the command
 * runs, so that every other command starts without them.
 */
import type { Argv, CommandModule } from 'yargs';
import { PLAN_NAMES } from '../api/plans.js';
import { FAULT_NAMES } from '../reference-server/faults.js';
import { WINDOW_REPORTS } from '../reference-server/limiter.js';
import { networkOptions } from './network-options.js';
import { EMBEDDED_TIME_SCALE, REQUEST_TIMEOUT_MS } from '../core/defaults.js';

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
      describe: "plans to judge (default: the scenario's plans:, else every plan with a key); each needs a key",
    })
    .option('check', {
      type: 'string',
      array: true,
      requiresArg: true,
      describe:
        'judge only this check (repeatable; petload list checks): only the probes and load that judge it run, the other checks are out of scope',
    })
    .option('probe', {
      type: 'string',
      array: true,
      requiresArg: true,
      describe:
        'run only this probe of the scenario (repeatable; petload list probes) and judge its checks; the others are out of scope',
    })
    .option('partial', {
      type: 'boolean',
      describe:
        'judge the plans that have a key and list the others as not judged (default: a plan without a key stops the run)',
    });
}

/** The embedded reference server's settings (refused with --target: ./run-flags.ts). */
function embeddedServerOptions(y: Argv): Argv {
  return y
    .option('time-scale', {
      type: 'string',
      requiresArg: true,
      describe: `embedded server only: run its clock N times faster (default: the scenario's, else ${EMBEDDED_TIME_SCALE})`,
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
    .option('timeout', {
      type: 'string',
      requiresArg: true,
      describe: `request timeout in ms (default ${REQUEST_TIMEOUT_MS})`,
    })
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
    .option('rtt', {
      type: 'string',
      describe:
        'round trip to the target in ms that the schedule and its estimate assume (default 0: loopback); what is in flight follows the measured one',
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

export const runCommand: CommandModule = {
  command: 'run <scenarios..>',
  describe: 'Run scenarios (shipped names or YAML files) against a target, write reports, set the exit code',
  builder: (y: Argv) => shardAndSummaryOptions(networkOptions(runOptions(embeddedServerOptions(targetOptions(y))))),
  handler: async (argv) => {
    // The flags parsed and checked once (./run-flags.ts, which brings zod): only then is the run loaded.
    const { parseRunFlags } = await import('./run-flags.js');
    const flags = parseRunFlags(argv, process.env);
    const { runScenarios } = await import('./run-scenarios.js');
    process.exitCode = await runScenarios(flags);
  },
};
