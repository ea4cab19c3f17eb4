/**
 * One bench run: the figures asked for, in an order that keeps related runs together, then the table and
 * reports/bench/<UTC timestamp>.json with every figure and every measurement behind it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, platform, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BenchEnv, FigureId, FigureResult, Row } from './figure.js';
import { cliStartFigure } from './figures/cli-start.js';
import { driftFigure } from './figures/drift.js';
import { farFigure } from './figures/far.js';
import { checkCostFigure, memoryFigure } from './figures/in-process.js';
import { latencyFigure } from './figures/latency.js';
import { liveCostFigure } from './figures/live-cost.js';
import { longRunFigure } from './figures/long-run.js';
import { lowRateFigure } from './figures/low-rate.js';
import { pacingFigure } from './figures/pacing.js';
import { realClockFigure } from './figures/real-clock.js';
import { referenceFigure } from './figures/reference.js';
import { throughputFigures } from './figures/throughput.js';
import { newBenchSecret } from './lib/key.js';
import { detectPinning } from './lib/processes.js';
import type { BenchOptions } from './options.js';
import { markdownTable } from './table.js';
import { installSystemPackages } from '../src/testing/system-packages.js';

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  machine: { cpu: string; cores: number; memoryMB: number; platform: string; node: string };
  /** Where the processes ran: pinned to cores 0 and 1, or unpinned and why. */
  pinning: { pinned: boolean; note: string };
  options: BenchOptions;
  figures: FigureResult[];
  /** The Markdown table printed at the end. */
  table: string;
}

/** `2030-01-15T12-00-30Z`: an ISO UTC time that is also a portable file name. */
export function fileStamp(d: Date): string {
  return d
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
}

export async function runBench(
  options: BenchOptions,
  log: (line: string) => void,
): Promise<{ report: BenchReport; file: string }> {
  const started = new Date();
  const pin = detectPinning(options.pin);
  log(`bench: ${pin.note}`);
  const env: BenchEnv = { options, pin, secret: newBenchSecret(), log };
  const want = (id: FigureId) => options.only.includes(id);
  // The bench's own set-up: the programs its figures run, through the tests' one installer (src/testing).
  if (options.peerServer === 'nginx' && (want('saturate') || want('checked-throughput') || want('live-cost')))
    await installSystemPackages(log, ['nginx'], 'the bench');
  const figures: FigureResult[] = [];
  // The machine's load average around each figure: a crowded machine explains a noisy figure.
  const run = async (f: () => Promise<FigureResult | FigureResult[]>) => {
    const before = loadavg()[0]!;
    const out = await f();
    const machineLoad = { before, after: loadavg()[0]! };
    for (const fig of Array.isArray(out) ? out : [out])
      figures.push({ ...fig, details: { ...fig.details, machineLoad } });
  };
  if (want('saturate') || want('checked-throughput')) {
    await run(() => throughputFigures(env, { saturate: want('saturate'), checked: want('checked-throughput') }));
  }
  if (want('live-cost')) await run(() => liveCostFigure(env));
  if (want('pacing')) await run(() => pacingFigure(env));
  if (want('low-rate-pacing')) await run(() => lowRateFigure(env));
  if (want('latency')) await run(() => latencyFigure(env));
  if (want('reference-server')) await run(() => referenceFigure(env));
  if (want('memory')) await run(() => memoryFigure(env));
  if (want('check-cost')) await run(() => checkCostFigure(env));
  if (want('drift')) await run(() => driftFigure(env));
  if (want('cli-start')) await run(() => cliStartFigure(env));
  if (want('long-run')) await run(() => longRunFigure(env));
  if (want('far')) await run(() => farFigure(env));
  if (options.realClock) await run(() => realClockFigure(env));

  const rows: Row[] = figures.flatMap((f) => f.rows);
  const report: BenchReport = {
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: availableParallelism(),
      memoryMB: Math.round(totalmem() / 2 ** 20),
      platform: platform(),
      node: process.version,
    },
    pinning: { pinned: pin.pinned, note: pin.note },
    options,
    figures,
    table: markdownTable(rows),
  };
  await mkdir(options.outDir, { recursive: true });
  const file = join(options.outDir, `${fileStamp(started)}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return { report, file };
}
