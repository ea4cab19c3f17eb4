/**
 * `petload trend DIR... --out DIR`: every report.json found under the folders (CI artifacts of past nights, in any
 * order), grouped by scenario and target, sorted by start time, on one self-contained page, trend.html (src/drift/,
 * docs/compare.md). Unreadable, foreign or future-schema files are listed on the page and skipped, never fatal.
 */
import type { Argv } from 'yargs';
import { command } from './command.js';

export const trendCommand = command({
  command: 'trend <dirs..>',
  describe: "One page of many runs over time: verdicts, each check as a strip, p50/p99, each plan's Limit",
  builder: (y: Argv) =>
    y
      .positional('dirs', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'folders holding report.json files',
      })
      .option('out', {
        type: 'string',
        demandOption: true,
        describe: 'where to write trend.html',
      }),
  handler: async (args) => {
    (await import('./one-shot.js')).parseWithoutCompiling();
    const [{ findReports, trend }, { trendHtml }, { writeFileAtomic }, { join }, { mkdir }] = await Promise.all([
      import('../drift/trend.js'),
      import('../drift/trend-html.js'),
      import('../outputs/write.js'),
      import('node:path'),
      import('node:fs/promises'),
    ]);
    const page = trend(await findReports(args.dirs));
    await mkdir(args.out, { recursive: true });
    const file = join(args.out, 'trend.html');
    await writeFileAtomic(file, trendHtml(page));
    const runs = page.groups.reduce((n, g) => n + g.runs.length, 0);
    const skipped = page.skipped.length > 0 ? `; ${page.skipped.length} file(s) skipped (listed on the page)` : '';
    process.stdout.write(
      `petload trend: ${runs} run(s) in ${page.groups.length} group(s)${skipped}\nTrend in ${file}\n`,
    );
  },
});
