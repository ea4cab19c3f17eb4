/**
 * Which parts of a report are free text and go through the redactor: evidence (message, request line, header
 * values, body excerpt), skip reasons, info facts, notes, the plan table's measured figures and details, the abort
 * reason and the scenario's description.
 * Everything else is a structured value (plan names, ids, check ids, labels, paths, URLs, numbers) and is
 * never given to the redactor, so that it keeps its exact value and the report keeps its schema.
 */
import type { Report } from './schema.js';

type Redact = (text: string) => string;
type Evidence = Report['checks'][number]['byPlan'][number]['evidence'][number];

/** Every string of a JSON-like value, map keys included (for info facts, which are free text). */
export function redactStrings<T>(value: T, redact: Redact): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

export function redactEvidence(e: Evidence, redact: Redact): Evidence {
  const out: Evidence = { ...e, message: redact(e.message) };
  if (e.request !== undefined) out.request = redact(e.request);
  if (e.headers !== undefined)
    out.headers = Object.fromEntries(Object.entries(e.headers).map(([h, v]) => [h, redact(v)]));
  if (e.body !== undefined) out.body = redact(e.body);
  return out;
}

/** The free text of one check outcome, whatever holds it (a report's byPlan entry, a ledger's outcome). */
export function redactOutcome<T extends { evidence: Evidence[]; info: Record<string, unknown> }>(
  o: T,
  reasons: keyof T,
  redact: Redact,
): T {
  return {
    ...o,
    evidence: o.evidence.map((e) => redactEvidence(e, redact)),
    [reasons]: (o[reasons] as string[]).map(redact),
    info: redactStrings(o.info, redact),
  };
}

/** A copy of `report` with its free text redacted; structured values are copied as they are. */
export function redactReport(report: Report, redact: Redact): Report {
  const out: Report = {
    ...report,
    scenario: {
      ...report.scenario,
      ...(report.scenario.description !== undefined ? { description: redact(report.scenario.description) } : {}),
    },
    checks: report.checks.map((c) => ({
      ...c,
      byPlan: c.byPlan.map((o) => redactOutcome(o, 'reasons', redact)),
    })),
    notes: report.notes.map(redact),
  };
  // The plan table's cells quote evidence and skip reasons: their free text, not the check ids or figures' names.
  if (report.planTable !== undefined)
    out.planTable = report.planTable.map((p) => ({
      ...p,
      rows: p.rows.map((r) => ({
        ...r,
        measured: r.measured === null ? null : redact(r.measured),
        detail: r.detail === null ? null : redact(r.detail),
      })),
    }));
  if (report.abortReason !== undefined) out.abortReason = redact(report.abortReason);
  return out;
}
