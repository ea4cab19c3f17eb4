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

/** Reports known to be valid and in canonical order: the ones this module returned. */
const canonical = new WeakSet<Report>();

/**
 * A report just validated against ReportSchema (whose parse puts every object's keys in the schema's order), with
 * every map in a fixed order; canonicalReport and renderJson take it as it is, without validating it again.
 */
export function orderedReport(valid: Report): Report {
  const ordered: Report = {
    ...valid,
    totals: { ...valid.totals, statusCounts: sortedStatus(valid.totals.statusCounts) },
    operations: valid.operations.map((op) => ({
      ...op,
      statusCounts: sortedStatus(op.statusCounts),
      histograms: sorted(op.histograms),
    })),
  };
  canonical.add(ordered);
  return ordered;
}

/** The report in canonical form: validated, with every map in a fixed order. */
export function canonicalReport(report: Report): Report {
  if (canonical.has(report)) return report;
  const res = ReportSchema.safeParse(report);
  if (!res.success) {
    const where = res.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ');
    throw new PetloadError('E_INTERNAL', `the run produced a report that does not match its schema (${where})`);
  }
  return orderedReport(res.data);
}

/**
 * JSON.stringify escapes C0 controls; DEL and the C1 controls (which only strings can hold) are escaped too, so that
 * none stands raw in the file. The parsed document is the same.
 */
export function renderJson(report: Report): string {
  const text = JSON.stringify(canonicalReport(report), null, 2).replace(
    /[\x7f-\x9f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${text}\n`;
}
