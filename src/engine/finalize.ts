/**
 * The end of a run: assemble the report, redact its free text, validate it against its schema and write every
 * format. No run is lost: if assembling, validating or rendering fails (a bug in petload), what the run
 * collected is still written (report.json with verdict `error` and the raw parts, see error-report.ts, and
 * whatever other formats can be rendered), and the run ends with exit 4 and a `failure` saying where.
 */
import type { Redactor } from '../config/redactor.js';
import { EXIT, isPetloadError } from '../core/errors.js';
import { canonicalReport } from '../outputs/json.js';
import { redactReport } from '../report/redact.js';
import { OUTPUT_NAMES } from '../outputs/registry.js';
import { writeReportsSettled, type WrittenReports } from '../outputs/write.js';
import { buildReport, reportHead, type ReportInput } from './build-report.js';
import { errorReport, writeErrorReport } from './error-report.js';
import { REPORT_SCHEMA_VERSION, type Report } from '../report/schema.js';
import { VERSION } from './version.js';

export interface FinalizeOptions {
  reportDir: string;
  redact: Redactor;
  /**
   * A seam between assembling and validating: the assembled report goes through it (tests use it to force a
   * failure of assembly or validation; an embedder could add to the report). Default: none.
   */
  amendReport?: (report: Report) => Report;
}

export interface Failure {
  /** What went wrong, redacted, one line. */
  message: string;
  reportDir: string;
  /** What could still be written. */
  files: Partial<WrittenReports>;
}

export interface Finalized {
  /** The redacted report (after a failure: the best that could be assembled, verdict aborted, exit 4). */
  report: Report;
  exitCode: number;
  files: WrittenReports | null;
  failure?: Failure;
}

function messageOf(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ');
}

/**
 * The report the other formats are rendered from after a failure: what was assembled (or, failing that, the
 * run without its check outcomes), marked as no verdict. Null when not even that can be assembled.
 */
function fallbackReport(assembled: Report | null, input: ReportInput, why: string): Report | null {
  const abortReason = `the report could not be assembled (${why}); report.json holds what the run collected (verdict error)`;
  const base = assembled ?? attempt(() => buildReport({ ...input, outcomes: [], thresholds: [] }));
  return base ? { ...base, verdict: 'aborted', exitCode: EXIT.internal, abortReason } : null;
}

/**
 * A minimal report in memory for the caller when nothing could be assembled (no format is rendered from it): the
 * run's head and metrics, no check.
 */
function stubReport(input: ReportInput, why: string): Report {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: 'petload', version: VERSION },
    ...reportHead(input),
    durationMs: input.endedAt.getTime() - input.startedAt.getTime(),
    ...input.metrics,
    verdict: 'aborted',
    exitCode: EXIT.internal,
    abortReason: why,
    summary: { checks: 0, passed: 0, failed: 0, warnings: 0, skipped: 0 },
    checks: [],
    thresholds: [],
    notes: [],
  };
}

function attempt<T>(f: () => T): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}

export async function finalizeRun(input: ReportInput, o: FinalizeOptions): Promise<Finalized> {
  let assembled: Report | null = null;
  let failedFormats: string[] = [];
  let written: Partial<WrittenReports> = {};
  let cause: unknown;
  try {
    const built = buildReport(input);
    assembled = redactReport(o.amendReport ? o.amendReport(built) : built, o.redact);
    canonicalReport(assembled);
    const res = await writeReportsSettled(assembled, o.reportDir, { redact: o.redact });
    if (res.failed.length === 0)
      return { report: assembled, exitCode: assembled.exitCode, files: res.written as WrittenReports };
    written = res.written;
    failedFormats = res.failed.map((f) => f.name);
    cause = res.failed[0]!.error;
  } catch (e) {
    // The report directory cannot be written: there is nowhere to save anything; the caller reports it.
    if (isPetloadError(e) && e.code === 'E_USAGE') throw e;
    cause = e;
  }
  const why = o.redact(messageOf(cause));
  const fallback = fallbackReport(
    assembled,
    input,
    failedFormats.length > 0 ? `${failedFormats.join(', ')} could not be rendered: ${why}` : why,
  );
  if (written.json === undefined) {
    // report.json records the failure and the raw parts; the other formats are rendered from what was assembled.
    written = { json: await writeErrorReport(errorReport(input, why, o.redact), o.reportDir, o.redact) };
    if (fallback) {
      const others = OUTPUT_NAMES.filter((n) => n !== 'json');
      const res = await writeReportsSettled(fallback, o.reportDir, { redact: o.redact }, others).catch(() => null);
      if (res) written = { ...written, ...res.written };
    }
  }
  return {
    report: fallback ?? stubReport(input, why),
    exitCode: EXIT.internal,
    files: null,
    failure: { message: why, reportDir: o.reportDir, files: written },
  };
}
