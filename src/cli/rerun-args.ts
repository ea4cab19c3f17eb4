/**
 * What `petload rerun` is given (its flags as yargs declares them, and their type, inferred from that declaration):
 * apart from the command (./rerun.ts) and what it does (./rerun-run.ts), which both read them.
 */
import type { Argv } from 'yargs';
import { FAULT_NAMES } from '../reference-server/faults.js';
import type { ArgsOf } from './command.js';
import type { NetworkArgs } from './network-options.js';

/** What a re-run is given: where it runs, with which keys, and where its reports go. */
export const rerunOptions = (y: Argv) =>
  y
    .positional('report', {
      type: 'string',
      demandOption: true,
      describe: 'the report.json to judge again, or its folder',
    })
    .option('target', {
      type: 'string',
      describe: "base URL of the API (ending in /v1); default: the report's target",
    })
    .option('keys-file', {
      type: 'string',
      describe: "today's keys (JSON) for an external target (also PETLOAD_KEYS_FILE or PETLOAD_KEYS); as for run",
    })
    .option('plans-file', { type: 'string', describe: 'figures of whole plans, as for run (docs/plans.md)' })
    .option('fault', {
      type: 'string',
      array: true,
      choices: FAULT_NAMES,
      // --no-fault is yargs' negation of --fault: a false in the list, which means no fault.
      coerce: (v: readonly (string | boolean)[]) => v.filter((x): x is string => typeof x === 'string'),
      describe: "embedded server only: the faults to run with instead of the report's (--no-fault: none)",
    })
    .option('time-scale', {
      type: 'string',
      requiresArg: true,
      describe: "embedded server only: its clock's speed (default: the report's)",
    })
    .option('report-dir', {
      type: 'string',
      describe: 'where the new reports and rerun.* go (default reports/<UTC timestamp>-<scenario>-rerun/)',
    })
    .option('timeout', { type: 'string', requiresArg: true, describe: 'request timeout in ms, as for run' })
    .option('quiet', { type: 'boolean', describe: 'no progress lines; only the summary' })
    .option('dry-run', { type: 'boolean', describe: 'print what would be judged again and its schedule; send nothing' })
    .option('allow-quota-exhaustion', {
      type: 'boolean',
      describe: "remote targets: run even when the estimate exceeds a key's remaining daily quota",
    })
    .option('github-summary', {
      type: 'boolean',
      describe: 'append summary.md and rerun.md to $GITHUB_STEP_SUMMARY (default: when it is set)',
    })
    .option('key', { type: 'string', hidden: true });

/** The re-run's arguments: its own flags and the network flags of run. */
export type RerunArgs = ArgsOf<typeof rerunOptions> & NetworkArgs;
