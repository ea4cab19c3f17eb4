/**
 * `petload merge <report.json>... --out DIR`: one report from several runs of the same scenario (e.g. on
 * several machines): histograms merged exactly, counts added, checks combined, thresholds and verdict judged
 * again. Exits with the merged verdict's exit code. The outputs are imported when the command runs.
 */
import type { Argv } from 'yargs';
import { columnsOption } from './columns.js';
import { command } from './command.js';

export const mergeCommand = command({
  command: 'merge <files..>',
  describe: 'Merge the report.json of several runs of one scenario and write every format',
  builder: (y: Argv) =>
    y
      .positional('files', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'report.json files of runs of one scenario',
      })
      .option('out', {
        type: 'string',
        demandOption: true,
        describe: 'directory for the merged reports',
      }),
  handler: async (args) => {
    (await import('./one-shot.js')).parseWithoutCompiling();
    const [{ renderConsoleSummary }, { mergeReports }, { readReportFile }, { writeReports }] = await Promise.all([
      import('../outputs/console.js'),
      import('../outputs/merge-reports.js'),
      import('../outputs/read.js'),
      import('../outputs/write.js'),
    ]);
    const merged = mergeReports(args.files.map((source) => ({ report: readReportFile(source), source })));
    const files = await writeReports(merged, args.out);
    process.stdout.write(
      renderConsoleSummary(merged, { color: process.stdout.isTTY === true, files, ...columnsOption() }),
    );
    process.exitCode = merged.exitCode;
  },
});
