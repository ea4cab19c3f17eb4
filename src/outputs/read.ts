/**
 * Reading a report.json back (`petload report`, `petload merge`): parsed and validated at the edge, so that
 * the renderers and the merge work on a Report whose histograms are known to decode.
 */
import { readFileSync } from 'node:fs';
import { formatIssues } from '../core/zod-issues.js';
import { type Report, ReportSchema } from '../report/schema.js';
import { PetloadError } from '../core/errors.js';
import { checkEncodedHistogram } from '../metrics/histogram.js';
import { orderedReport } from './json.js';

/** Far above what any report of petload's holds (merged ones included). */
export const MAX_HISTOGRAMS = 1000;

const HINT = 'Give a report.json written by `petload run` (or by `petload merge`).';

function invalid(path: string, why: string): PetloadError {
  return new PetloadError('E_USAGE', `${path}: ${why}`, { hint: HINT });
}

/** A report document already decoded from JSON; `source` names it in messages. */
export function parseReport(doc: unknown, source: string): Report {
  if (doc !== null && typeof doc === 'object' && (doc as { verdict?: unknown }).verdict === 'error') {
    const error = (doc as { error?: unknown }).error;
    throw invalid(
      source,
      `records a run whose report could not be assembled (verdict error): ${typeof error === 'string' ? error : 'see the file'}; it holds the run's raw parts, not a report to render`,
    );
  }
  const res = ReportSchema.safeParse(doc);
  if (!res.success) {
    const lines = formatIssues(res.error, doc);
    throw invalid(source, `not a valid petload report\n  ${lines.join('\n  ')}`);
  }
  // A report of petload's holds a few dozen histograms (operations by status class and code, the codes bounded);
  // each is inflated to check it.
  const histograms = res.data.operations.reduce((n, op) => n + Object.keys(op.histograms).length, 0);
  if (histograms > MAX_HISTOGRAMS)
    throw invalid(
      source,
      `not a valid petload report\n  operations: expected at most ${MAX_HISTOGRAMS} histograms, found ${histograms}`,
    );
  res.data.operations.forEach((op, i) => {
    for (const [name, b64] of Object.entries(op.histograms)) {
      try {
        checkEncodedHistogram(b64);
      } catch (e) {
        throw invalid(
          source,
          `not a valid petload report\n  operations[${i}].histograms.${name}: ${(e as Error).message}`,
        );
      }
    }
  });
  return orderedReport(res.data);
}

export function readReportFile(path: string): Report {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw invalid(path, `cannot read the report (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw invalid(path, `not valid JSON (${(e as Error).message})`);
  }
  return parseReport(doc, path);
}
