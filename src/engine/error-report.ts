/**
 * report.json of a run whose report could not be assembled or validated (a bug in petload): verdict `error`,
 * exit code 4, the error, what identifies the run, and the raw parts the run collected (check outcomes,
 * thresholds, metrics, notes), with their free text redacted as in a normal report. `petload report` and
 * `petload merge` refuse it with a clear message; it is for a person (or a bug report) to read.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { PetloadError } from '../core/errors.js';
import { reportKey } from '../report/key-limits.js';
import { redactOutcome } from '../report/redact.js';
import { lastPass, writeFileAtomic } from '../outputs/write.js';
import type { ReportInput } from './build-report.js';
import { REPORT_SCHEMA_VERSION } from '../report/schema.js';
import { VERSION } from './version.js';

export const ErrorReportSchema = z.object({
  schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
  tool: z.object({ name: z.literal('petload'), version: z.string() }),
  verdict: z.literal('error'),
  exitCode: z.literal(4),
  /** Why no report could be made. */
  error: z.string(),
  scenario: z.object({ name: z.string(), description: z.string().optional(), file: z.string().optional() }),
  target: z.record(z.string(), z.unknown()),
  plans: z.array(z.string()),
  keys: z.array(z.object({ label: z.string(), plan: z.string(), sacrificial: z.boolean() })),
  startedAt: z.string(),
  endedAt: z.string(),
  abortReason: z.string().optional(),
  /** What the run collected, as the engine held it; a part that could not be serialised holds why. */
  parts: z.object({ outcomes: z.unknown(), thresholds: z.unknown(), metrics: z.unknown(), notes: z.unknown() }),
});
export type ErrorReport = z.infer<typeof ErrorReportSchema>;

export function errorReport(input: ReportInput, error: string, redact: (s: string) => string): ErrorReport {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: 'petload', version: VERSION },
    verdict: 'error',
    exitCode: 4,
    error,
    scenario: {
      ...input.scenario,
      ...(input.scenario.description !== undefined ? { description: redact(input.scenario.description) } : {}),
    },
    target: input.target,
    plans: [...input.plans],
    keys: input.keys.map(reportKey),
    startedAt: input.startedAt.toISOString(),
    endedAt: input.endedAt.toISOString(),
    ...(input.aborted ? { abortReason: redact(input.aborted.reason) } : {}),
    parts: {
      outcomes: input.outcomes.map((o) => redactOutcome(o, 'skipReasons', redact)),
      thresholds: input.thresholds,
      metrics: input.metrics,
      notes: input.notes.map(redact),
    },
  };
}

/** JSON that survives what JSON.stringify refuses (a bigint, a cycle): each part on its own, a failing one replaced by why. */
function toJson(doc: ErrorReport): string {
  const bigints = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
  const parts: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(doc.parts)) {
    try {
      parts[name] = JSON.parse(JSON.stringify(value, bigints) ?? 'null');
    } catch (e) {
      parts[name] = `could not be serialised: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return `${JSON.stringify({ ...doc, parts }, bigints, 2)}\n`;
}

/** Writes report.json into `dir` (created if needed); returns its path. */
export async function writeErrorReport(doc: ErrorReport, dir: string, redact: (s: string) => string): Promise<string> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw new PetloadError(
      'E_USAGE',
      `cannot create the report directory ${dir} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      {
        hint: 'Give a writable directory (--report-dir or --out).',
      },
    );
  }
  const path = join(dir, 'report.json');
  const whole = (redact as { whole?: (s: string) => string }).whole ?? redact;
  await writeFileAtomic(path, lastPass('json', toJson(doc), whole));
  return path;
}
