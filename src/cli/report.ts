/**
 * `petload report <report.json> [--out DIR]`: renders every format again from a report.json (after a change
 * of petload, or to get the HTML of a report copied from CI). Exits with the report's own exit code, so that
 * a script gating on it reads the same verdict as the run. The outputs are imported when the command runs.
 */
import { dirname } from 'node:path';
import type { Argv } from 'yargs';
import { PetloadError } from '../core/errors.js';
import { columnsOption } from './columns.js';
import { command } from './command.js';

/** --recover DIR: the reports of a killed run, rebuilt from its journal (verdict aborted, exit 3). */
async function recover(dir: string, out: string | undefined): Promise<void> {
  const [{ recoverReport }, { renderConsoleSummary }, { failureLines }] = await Promise.all([
    import('../engine/recover.js'),
    import('../outputs/console.js'),
    import('./failure-lines.js'),
  ]);
  const r = await recoverReport(dir, out !== undefined ? { out } : {});
  if (r.journal.finished)
    process.stderr.write(
      `petload: ${r.journal.path} is the journal of a run that finished: its own report.json is the full record\n`,
    );
  if (r.failure) {
    for (const line of failureLines(r.failure)) process.stderr.write(`${line}\n`);
  } else {
    const files = r.files ?? undefined;
    process.stdout.write(
      renderConsoleSummary(r.report, {
        color: process.stdout.isTTY === true,
        ...(files ? { files } : {}),
        ...columnsOption(),
      }),
    );
  }
  process.exitCode = r.exitCode;
}

export const reportCommand = command({
  command: 'report [file]',
  describe:
    "Render report.json, junit.xml, summary.md and report.html again from a report.json, or rebuild them from a run's journal (--recover DIR)",
  builder: (y: Argv) =>
    y
      .positional('file', {
        type: 'string',
        describe: 'a report.json written by petload run or merge',
      })
      .option('recover', {
        type: 'string',
        requiresArg: true,
        describe: 'a report directory whose run was killed: rebuild its reports from its journal (docs/journal.md)',
      })
      .check((a) => {
        if ((a.file === undefined) === (a.recover === undefined))
          throw new PetloadError('E_USAGE', 'report: expected a report.json or --recover DIR (one of them)');
        return true;
      })
      .option('out', {
        type: 'string',
        describe: "where to write (default: the report.json's directory)",
      }),
  handler: async (args) => {
    (await import('./one-shot.js')).parseWithoutCompiling();
    if (args.recover !== undefined) return recover(args.recover, args.out);
    const file = args.file!;
    const [{ renderConsoleSummary }, { readReportFile }, { writeReports }] = await Promise.all([
      import('../outputs/console.js'),
      import('../outputs/read.js'),
      import('../outputs/write.js'),
    ]);
    const report = readReportFile(file);
    const files = await writeReports(report, args.out ?? dirname(file));
    process.stdout.write(
      renderConsoleSummary(report, { color: process.stdout.isTTY === true, files, ...columnsOption() }),
    );
    process.exitCode = report.exitCode;
  },
});
