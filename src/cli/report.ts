/**
 * `petload report <report.json> [--out DIR]`: renders every format again from a report.json (after a change
 * of petload, or to get the HTML of a report copied from CI). Exits with the report's own exit code, so that
 * a script gating on it reads the same verdict as the run. The outputs are imported when the command runs.
 */
import { dirname } from 'node:path';
import type { Argv, CommandModule } from 'yargs';

interface ReportArgs {
  file: string;
  out?: string;
}

export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report <file>',
  describe: 'Render report.json, junit.xml, summary.md and report.html again from a report.json',
  builder: (y: Argv) =>
    y
      .positional('file', {
        type: 'string',
        demandOption: true,
        describe: 'a report.json written by petload run or merge',
      })
      .option('out', {
        type: 'string',
        describe: "where to write (default: the report.json's directory)",
      }) as unknown as Argv<ReportArgs>,
  handler: async (args) => {
    const [{ renderConsoleSummary }, { readReportFile }, { writeReports }] = await Promise.all([
      import('../outputs/console.js'),
      import('../outputs/read.js'),
      import('../outputs/write.js'),
    ]);
    const report = readReportFile(args.file);
    const files = await writeReports(report, args.out ?? dirname(args.file));
    process.stdout.write(renderConsoleSummary(report, { color: process.stdout.isTTY === true, files }));
    process.exitCode = report.exitCode;
  },
};
