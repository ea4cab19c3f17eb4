/**
 * `petload compare BASELINE CURRENT [--out DIR]`: what changed between two runs (report.json files or report
 * directories; a merged sharded report is one report): checks, each plan's rate-limit contract, latency and
 * throughput per operation with a statistical test (src/drift/, docs/compare.md). Writes compare.json, compare.md
 * and compare.html, prints a short summary, appends compare.md to a GitHub job summary, and exits 0 (no regression),
 * 1 (a regression or a newly failing critical or major check) or 2 (a usage error: reports of different scenarios
 * or targets without --allow-different).
 */
import type { Argv } from 'yargs';
import { PetloadError } from '../core/errors.js';
import { command } from './command.js';

type Rise = { relative: number; absoluteMs: number } | null;
type ThresholdFlags = { thresholds: Record<string, Rise>; operations: Record<string, Record<string, Rise>> };

const THRESHOLD = /^(?:([A-Za-z]+):)?(p50|p90|p99|max)=(?:off|\+?(\d+(?:\.\d+)?)%,\+?(\d+(?:\.\d+)?)ms)$/;

/** `p99=20%,5ms`, `getPet:p50=30%,2ms`, `p90=off`: a percentile's rise that counts, for all operations or one. */
export function parseLatencyThresholds(flags: readonly string[]): ThresholdFlags {
  const out: ThresholdFlags = { thresholds: {}, operations: {} };
  for (const flag of flags) {
    const m = THRESHOLD.exec(flag.replace(/\s+/g, ''));
    if (m === null)
      throw new PetloadError(
        'E_USAGE',
        `--latency-threshold: expected [operation:]percentile=REL%,ABSms or [operation:]percentile=off (percentile p50, p90, p99 or max), such as p99=20%,5ms, found ${JSON.stringify(flag)}`,
      );
    const [, op, pct, rel, abs] = m;
    const rise: Rise = rel === undefined ? null : { relative: Number(rel) / 100, absoluteMs: Number(abs) };
    if (op === undefined) out.thresholds[pct!] = rise;
    else out.operations[op] = { ...out.operations[op], [pct!]: rise };
  }
  return out;
}

export const compareCommand = command({
  command: 'compare <baseline> <current>',
  describe: "What changed between two runs: checks, the target's figures, latency (with a statistical test)",
  builder: (y: Argv) =>
    y
      .positional('baseline', { type: 'string', demandOption: true, describe: 'a report.json, or its directory' })
      .positional('current', { type: 'string', demandOption: true, describe: 'a report.json, or its directory' })
      .option('out', { type: 'string', describe: "where to write compare.* (default: the current report's directory)" })
      .option('allow-different', {
        type: 'boolean',
        describe: 'compare reports of different scenarios or targets',
      })
      .option('latency-threshold', {
        type: 'string',
        array: true,
        describe: 'a rise that counts: [operation:]percentile=REL%,ABSms or =off (default p99=20%,5ms)',
      })
      .option('alpha', { type: 'number', describe: 'significance level of the latency test (default 0.01)' })
      .option('github-summary', {
        type: 'boolean',
        describe: 'append compare.md to $GITHUB_STEP_SUMMARY (default: when it is set)',
      })
      .check((a) => {
        parseLatencyThresholds(a['latency-threshold'] ?? []);
        return true;
      }),
  handler: async (args) => {
    (await import('./one-shot.js')).parseWithoutCompiling();
    const { compareAndWrite, dirOfReport, readReportAt } = await import('./compare-files.js');
    const { compareConsole, compareExitCode } = await import('../drift/console.js').then(async (c) => ({
      ...c,
      ...(await import('../drift/compare.js')),
    }));
    const baseline = readReportAt(args.baseline);
    const current = readReportAt(args.current);
    const flags = parseLatencyThresholds(args['latency-threshold'] ?? []);
    const options = {
      ...(args['allow-different'] ? { allowDifferent: true } : {}),
      ...(args.alpha !== undefined ? { alpha: args.alpha } : {}),
      thresholds: flags.thresholds,
      operations: flags.operations,
    };
    const written = await compareAndWrite(
      baseline,
      current,
      options,
      args.out,
      args['github-summary'],
      dirOfReport(args.current),
    );
    const { comparison, files } = written;
    if (written.summaryProblem) process.stderr.write(`${written.summaryProblem}\n`);
    process.stdout.write(`${compareConsole(comparison, { color: process.stdout.isTTY === true })}\n`);
    process.stdout.write(`Comparison in ${files.dir}/: compare.json, compare.md, compare.html\n`);
    process.exitCode = compareExitCode(comparison);
  },
});
