/**
 * `petload rerun <report.json | report folder>`: judges again only what a report left failing or could not judge
 * (src/drift/rerun.ts chooses), on the report's plans, against its target (the embedded server with its faults and
 * time scale again, or its URL; --target to change it) with today's keys, through the run's focus; writes rerun.json
 * and rerun.md beside the new report and exits 0 (all fixed or judged), 1 (still, newly failing, or a failure not
 * judged now), 2 (a usage error, such as a report that cannot be read) or the run's own code when it did not finish
 * (3 aborted, 130 interrupted). The flags are read here; what the command does is ./rerun-run.ts, loaded when it runs.
 */
import type { Argv } from 'yargs';
import { command } from './command.js';
import { networkOptions } from './network-options.js';
import { type RerunArgs, rerunOptions } from './rerun-args.js';

export const rerunCommand = command({
  command: 'rerun <report>',
  describe: 'Judge again only what a report left failing or unjudged, against its target, and say what changed',
  builder: (y: Argv) => networkOptions(rerunOptions(y)) as ReturnType<typeof rerunOptions>,
  handler: async (args: RerunArgs) => {
    const { rerun } = await import('./rerun-run.js');
    process.exitCode = await rerun(args);
  },
});
