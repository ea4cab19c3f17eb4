/**
 * Cost against length: a long run simulated fast (bench/in-process/long-run.ts: the journal and the metrics fed
 * a day of synthetic seconds of steady load, in a child pinned like a load generator), then `report --recover` of
 * the journal as a run killed at each mark left it, one after the other in a fresh child (in-process/recover.ts). Rows, for
 * the marks (1 h and 24 h by default): the journal's bytes (beside a line a second, as format version 1 wrote it,
 * over the first mark), the recovery's time, and the memory from the first mark to the last.
 */
import { rmSync } from 'node:fs';
import { row, type BenchEnv, type FigureResult, type Row } from '../figure.js';
import type { LongRunJob, LongRunMark, LongRunResult } from '../in-process/long-run.js';
import type { RecoverJob, RecoverResult } from '../in-process/recover.js';
import { runNodeChild } from '../lib/processes.js';

/** The goals of the last mark (a day): the journal's size, its recovery's time, the memory from the first mark. */
export const LONG_RUN_GOALS = { journalMB: 50, recoverS: 10, memoryGrowthMB: 10 } as const;
const MB = 1024 * 1024;

const label = (h: number) => (h >= 1 ? `${h} h` : `${Math.round(h * 3600)} s`);

function markRows(m: LongRunMark, r: RecoverResult, last: boolean, lineASecond: LongRunResult['lineASecondBytes']) {
  const judged = <T>(goal: T) => (last ? goal : ({ kind: 'report' } as const));
  const perSecondPeer =
    lineASecond.hours === m.hours
      ? { value: lineASecond.bytes / MB, unit: 'MB', what: 'a line a second (journal format 1), same run' }
      : null;
  return [
    row({
      figure: `long run: journal after ${label(m.hours)}`,
      measured: {
        value: m.journalAndTailBytes / MB,
        unit: 'MB',
        what: `journal.ndjson (${m.journalLines} lines) and its tail files, ${m.exchanges} exchanges`,
      },
      peer: perSecondPeer,
      score: null,
      goal: judged({ kind: 'under', value: LONG_RUN_GOALS.journalMB }),
    }),
    row({
      figure: `long run: report --recover after ${label(m.hours)}`,
      measured: {
        value: r.seconds,
        unit: 's',
        what: `recoverReport of ${r.intervals} lines, in a fresh process (marks in turn)`,
      },
      peer: null,
      score: null,
      goal: judged({ kind: 'under', value: LONG_RUN_GOALS.recoverS }),
    }),
  ];
}

export async function longRunFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin, secret } = env;
  const job: LongRunJob = { hours: [...o.longRunHours], perSecond: o.longRunRate };
  const seconds = job.hours.at(-1)! * 3600;
  env.log(`long run: ${label(job.hours.at(-1)!)} of ${job.perSecond} exchanges/s into the journal and the metrics`);
  const run = await runNodeChild<LongRunResult>(pin.load, 'in-process/long-run.ts', job, {
    // Generous: about 1 ms per simulated second on this machine when it is busy.
    timeoutMs: 120_000 + seconds * 5,
    secret,
    nodeArgs: ['--expose-gc'],
  });
  try {
    const job: RecoverJob = { dirs: run.marks.map((m) => m.copy) };
    const recovered = await runNodeChild<RecoverResult[]>(pin.load, 'in-process/recover.ts', job, {
      timeoutMs: 120_000 * run.marks.length,
      secret,
    });
    for (const [i, m] of run.marks.entries())
      env.log(
        `long run: ${label(m.hours)}: journal ${(m.journalAndTailBytes / MB).toFixed(2)} MB (${m.journalLines} lines), RSS ${m.rssMB.toFixed(1)} MB, recovered in ${recovered[i]!.seconds.toFixed(2)} s`,
      );
    const rows: Row[] = run.marks.flatMap((m, i) =>
      markRows(m, recovered[i]!, i === run.marks.length - 1, run.lineASecondBytes),
    );
    const [first, last] = [run.marks[0]!, run.marks.at(-1)!];
    rows.push(
      row({
        figure: `long run: memory from ${label(first.hours)} to ${label(last.hours)} (RSS after gc)`,
        measured: {
          value: last.rssMB - first.rssMB,
          unit: 'MB',
          what: `RSS ${first.rssMB.toFixed(1)} MB at ${label(first.hours)}`,
        },
        peer: null,
        score: null,
        goal: { kind: 'under', value: LONG_RUN_GOALS.memoryGrowthMB },
      }),
    );
    return {
      id: 'long-run',
      rows,
      details: { ...job, marks: run.marks, recovered, lineASecondBytes: run.lineASecondBytes },
    };
  } finally {
    rmSync(run.root, { recursive: true, force: true });
  }
}
