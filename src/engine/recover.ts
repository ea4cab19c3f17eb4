/**
 * `petload report --recover DIR`: the report of a run that died before writing it (kill -9, an OOM, a power cut),
 * rebuilt from the journal it appended as it went (src/journal, docs/journal.md). Verdict `aborted` (exit 3): the
 * checks as their last events left them, the operations and totals from the summed counts and exactly merged
 * histograms, a timeline of one bucket per journal interval, the run's notes, and its thresholds judged again on
 * what was recovered. What the journal does not keep (key timelines, measured facts of checks, dropped sends, the
 * probe schedule) is absent, and a note says so. The files are written as a run writes them (finalize.ts).
 */
import { CHECK_IDS } from '../checks/catalogue.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Ledger } from '../checks/ledger.js';
import { parseThreshold, thresholdCheckId } from '../checks/thresholds.js';
import { ABORTED_UNJUDGED, evaluateThreshold, thresholdMessage } from '../checks/threshold-eval.js';
import { createRedactor } from '../config/keys-file.js';
import { EXIT, PetloadError } from '../core/errors.js';
import { type JournalContents, readJournal } from '../journal/reader.js';
import { coveredMs, metricsOf, outcomesOf } from '../journal/replay.js';
import type { MetricsSnapshot } from '../metrics/recorder.js';
import { readReportFile } from '../outputs/read.js';
import type { Report } from '../report/schema.js';
import type { ReportInput } from './build-report.js';
import { type Finalized, finalizeRun } from './finalize.js';

export interface RecoverOptions {
  /** Where to write the report files (default: `dir`, beside the journal). */
  out?: string;
}

export interface Recovered extends Finalized {
  readonly journal: {
    readonly path: string;
    /** The journal has its `end` line: the run finished (and wrote its own report then). */
    readonly finished: boolean;
    /** Its last line was torn (the run died writing it) and was dropped. */
    readonly torn: boolean;
    /** Damaged lines skipped (1-based). */
    readonly skipped: readonly number[];
    readonly intervals: number;
    /** Real ms from the run's start that the journal covers. */
    readonly coveredMs: number;
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Why the report is `aborted`: a run killed, or (said so) one that finished and had its report already. */
function abortReason(j: JournalContents): string {
  if (j.end === null)
    return `recovered from the journal: the run ended without writing its report (killed?); what it measured in its first ${seconds(coveredMs(j))} is here`;
  const verdict =
    j.end.verdict === null ? 'no report: it stopped on an error' : `verdict ${j.end.verdict}, exit ${j.end.exitCode}`;
  return `recovered from the journal of a run that finished (${verdict}); the report it wrote then is the full record`;
}

function recoveryNotes(j: JournalContents, metrics: MetricsSnapshot): string[] {
  const notes = [
    `Recovered from ${j.path}: ${j.intervals.length} interval(s) covering ${seconds(coveredMs(j))} of real time from the run's start, ${metrics.totals.requests} request(s). Check counts are those of each check's last event (lower bounds for checks judged on every response); evidence is the failures' messages only. Key timelines, the checks' measured facts, dropped sends and the probe schedule are not journaled.`,
  ];
  if (metrics.operations.length > 0 && metrics.operations.every((op) => op.serviceTime.count === 0))
    notes.push('Service times were not journaled by this run: the serviceTime summaries are empty.');
  if (j.torn) notes.push('The journal\u2019s last line was torn (the run died while writing it) and was left out.');
  if (j.skipped.length > 0) notes.push(`Damaged journal lines were skipped: ${j.skipped.join(', ')}.`);
  return notes;
}

/** The run's thresholds, judged again on the recovered metrics. */
function judgeThresholds(
  j: JournalContents,
  metrics: MetricsSnapshot,
): { thresholds: Report['thresholds']; ledger: Ledger } {
  const ledger = new Ledger();
  const thresholds = j.head.thresholds.map(({ expression, severity }) => {
    const parsed = parseThreshold(expression);
    const checkId = thresholdCheckId(parsed);
    const r = evaluateThreshold(parsed, metrics);
    const judged = { expression, checkId, severity, observed: r.observed, unit: r.unit, ok: r.ok };
    // A recovered run is aborted: a rule with no data is not judged (as in runScenario).
    if (r.observed === null) {
      ledger.skip(checkId as `threshold.${string}`, null, ABORTED_UNJUDGED);
      return { ...judged, notJudged: ABORTED_UNJUDGED };
    }
    ledger.judge(checkId as `threshold.${string}`, null, r.ok, () => thresholdMessage(expression, r));
    return judged;
  });
  return { thresholds, ledger };
}

/** A focused run's scope, from its journal's head: the catalogue's checks not out of scope are in it. */
const scopeOf = (focus: NonNullable<JournalContents['head']['focus']>, outOfScope: readonly string[]) => ({
  focus,
  inScope: CHECK_IDS.filter((id) => !outOfScope.includes(id)),
  outOfScope,
});

/** The report's input, from the journal: what its head identifies, what its lines add up to. */
function inputOf(j: JournalContents): ReportInput {
  const metrics = metricsOf(j);
  const { thresholds, ledger } = judgeThresholds(j, metrics);
  const startedAt = new Date(j.head.startedAt);
  return {
    scenario: j.head.scenario,
    target: j.head.target,
    plans: j.head.plans,
    ...(j.head.notJudged ? { notJudged: j.head.notJudged } : {}),
    ...(j.head.focus ? { scope: scopeOf(j.head.focus, j.head.outOfScope ?? []) } : {}),
    // The report's keys (labels and plans) come from the head (see recoverReport); no key is known here.
    keys: [],
    startedAt,
    endedAt: new Date(startedAt.getTime() + coveredMs(j)),
    outcomes: [...outcomesOf(j), ...ledger.all()],
    thresholds,
    thresholdSeverity: new Map(thresholds.map((t) => [t.checkId, t.severity])),
    metrics,
    notes: [...j.intervals.flatMap((iv) => iv.notes), ...recoveryNotes(j, metrics)],
    aborted: { reason: abortReason(j), exitCode: EXIT.aborted },
  };
}

/**
 * A journal without its `end` line whose run did write its report (killed between the two writes): the report.json
 * in `out` that is complete, valid and of the same run (same start and scenario) is never replaced by a lesser one.
 * A report.json that is damaged, or of an earlier run, is replaced as recovery does.
 */
function refuseOverOwnReport(j: JournalContents, out: string): void {
  const path = join(out, 'report.json');
  if (!existsSync(path)) return;
  let report: Report;
  try {
    report = readReportFile(path);
  } catch {
    return;
  }
  if (report.startedAt !== j.head.startedAt || report.scenario.name !== j.head.scenario.name) return;
  throw new PetloadError(
    'E_USAGE',
    `${j.path} has no end line, but ${path} is this run's complete report (verdict ${report.verdict}, started ${report.startedAt}): the run was stopped after writing it, and recovering would replace it with a lesser one`,
    {
      hint: `Render it with \`petload report ${path}\`, or give --out DIR to write the recovered report elsewhere.`,
    },
  );
}

/**
 * Rebuild report.json, junit.xml, summary.md and report.html of the run whose report directory `dir` holds a
 * journal, with verdict `aborted`. A journal whose run finished is recovered too (the reason says so), but not
 * over the report that run wrote: give `out` for that.
 */
export async function recoverReport(dir: string, o: RecoverOptions = {}): Promise<Recovered> {
  const j = readJournal(dir);
  const out = o.out ?? dir;
  if (j.end !== null && existsSync(join(out, 'report.json'))) {
    throw new PetloadError(
      'E_USAGE',
      `${j.path} is the journal of a run that finished (${j.end.verdict === null ? 'without a report' : `verdict ${j.end.verdict}`}), and ${out} holds its report.json: recovering would replace the full report with a lesser one`,
      {
        hint: 'Give --out DIR to write the recovered report elsewhere, or render the run\u2019s own report with `petload report`.',
      },
    );
  }
  if (j.end === null) refuseOverOwnReport(j, out);
  const done = await finalizeRun(inputOf(j), {
    reportDir: out,
    // The journal holds no key, so there is none to hide; the writer's passes run all the same.
    redact: createRedactor([]),
    amendReport: (r) => ({ ...r, keys: j.head.keys, ...(j.head.shard ? { shard: j.head.shard } : {}) }),
  });
  return {
    ...done,
    journal: {
      path: j.path,
      finished: j.end !== null,
      torn: j.torn,
      skipped: j.skipped,
      intervals: j.intervals.length,
      coveredMs: coveredMs(j),
    },
  };
}
