/**
 * Drift: what `petload compare` and `petload trend` cost, in a child process pinned like a load generator
 * (bench/in-process/drift.ts): compareReports of two real report.json files of the steady scenario against the
 * embedded reference server (median of the repetitions), the rendering of that comparison (compare.md and
 * compare.html), and a trend over a year of nightly reports (findReports + trend + trendHtml end to end, median
 * of the passes), whose goal is under 5 s.
 */
import { row, type BenchEnv, type FigureResult } from '../figure.js';
import type { DriftJob, DriftResult } from '../in-process/drift.js';
import { runNodeChild } from '../lib/processes.js';
import { median } from '../lib/stats.js';

/** The trend over a year of nightly reports must take less than this, in ms. */
const TREND_GOAL_MS = 5000;

export async function driftFigure(env: BenchEnv): Promise<FigureResult> {
  const { options: o, pin, secret } = env;
  const job: DriftJob = {
    runS: o.driftRunS,
    repetitions: o.driftRepetitions,
    trendReports: o.trendReports,
    trendPasses: Math.max(1, Math.min(3, o.driftRepetitions)),
  };
  env.log(`drift: two ${job.runS} s runs of the steady scenario, then ${job.trendReports} nightly reports`);
  const d = await runNodeChild<DriftResult>(pin.load, 'in-process/drift.ts', job, {
    timeoutMs: 120_000 + job.runS * 2000 + job.trendReports * 200 * job.trendPasses,
    secret,
  });
  const compareMs = median(d.compareMs);
  const renderMs = median(d.renderMs);
  const trendMs = median(d.trendMs);
  env.log(
    `drift: compare ${compareMs.toFixed(1)} ms, render ${renderMs.toFixed(1)} ms, trend of ${d.trendRuns} reports ${trendMs.toFixed(0)} ms`,
  );
  const runs = `two runs of the steady scenario (${d.requests.join(' and ')} requests)`;
  return {
    id: 'drift',
    rows: [
      row({
        figure: 'drift: compareReports',
        measured: { value: compareMs, unit: 'ms', what: `${runs}, median of ${job.repetitions}` },
        peer: null,
        score: null,
        goal: { kind: 'report' },
      }),
      row({
        figure: 'drift: compareMarkdown + compareHtml',
        measured: { value: renderMs, unit: 'ms', what: `the same comparison, median of ${job.repetitions}` },
        peer: null,
        score: null,
        goal: { kind: 'report' },
      }),
      row({
        figure: `drift: trend of ${job.trendReports} reports`,
        measured: {
          value: trendMs,
          unit: 'ms',
          what: `findReports + trend + trendHtml over ${job.trendReports} nightly report.json, median of ${job.trendPasses}`,
        },
        peer: null,
        score: null,
        goal: { kind: 'under', value: TREND_GOAL_MS },
      }),
    ],
    details: { ...job, ...d, trendGoalMs: TREND_GOAL_MS },
  };
}
