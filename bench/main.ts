/**
 * `npm run bench`: parse the flags, run the figures, print the Markdown table and where the JSON went.
 * Progress goes to stderr, the table to stdout. Exit 0 whatever the figures say (a missed goal is a
 * finding, not a failure of the bench), 2 on a bad flag, 4 when the bench itself breaks.
 */
import { parseOptions, USAGE, UsageError } from './options.js';
import { runBench } from './run.js';

try {
  const options = parseOptions(process.argv.slice(2));
  if (options === null) {
    process.stdout.write(`${USAGE}\n`);
  } else {
    const t0 = performance.now();
    const { report, file } = await runBench(options, (line) => process.stderr.write(`${line}\n`));
    process.stdout.write(
      `\n${report.table}\n\n${report.pinning.note}; ${((performance.now() - t0) / 1000).toFixed(0)} s\nreport: ${file}\n`,
    );
  }
} catch (e) {
  if (e instanceof UsageError) {
    process.stderr.write(`bench: ${e.message}\n${USAGE}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 4;
  }
}
