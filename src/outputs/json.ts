/**
 * report.json: the canonical record. Validated against ReportSchema before it is written, so that a bug in
 * the engine shows as an error here instead of as a file `petload report` later refuses. The text is stable:
 * objects follow the schema's key order; status counts and histograms are sorted; the other maps (evidence
 * headers, info facts, the target variant) keep the order in which they were recorded, which means something.
 */
import { PetloadError } from '../core/errors.js';
import { formatPath } from '../core/zod-issues.js';
import { type Report, ReportSchema } from '../report/schema.js';

function sorted<T>(rec: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(rec).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function sortedStatus<T>(rec: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(rec).sort(([a], [b]) => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/** The report in canonical form: validated, with every map in a fixed order. */
export function canonicalReport(report: Report): Report {
  const res = ReportSchema.safeParse(report);
  if (!res.success) {
    const where = res.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ');
    throw new PetloadError('E_INTERNAL', `the run produced a report that does not match its schema (${where})`);
  }
  const r = res.data;
  return {
    ...r,
    totals: { ...r.totals, statusCounts: sortedStatus(r.totals.statusCounts) },
    operations: r.operations.map((op) => ({
      ...op,
      statusCounts: sortedStatus(op.statusCounts),
      histograms: sorted(op.histograms),
    })),
  };
}

export function renderJson(report: Report): string {
  return `${JSON.stringify(canonicalReport(report), null, 2)}\n`;
}
