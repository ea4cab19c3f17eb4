/**
 * Skip reasons that point at other checks. What kept a check from judging an answer is often a property another
 * check judges (no whole response: contract.transport; a body that is not JSON: contract.json-content-type). Such a
 * reason names those checks as a typed reference (catalogue ids, held to the catalogue by the compiler), never in
 * free text; the ledger writes it `<text> (see <id>, …)`. The reference decides nothing: the skip waits on no
 * other check's outcome. A skip that does (failures that may only echo a defect another check owns, known at the
 * end of the run) is a declared deferral instead (the catalogue's `defersTo`, src/checks/deferrals.ts).
 * src/checks/skip-reason.test.ts holds the judges' sources to this.
 */
import type { CheckId } from './catalogue.js';

export interface SeeReason {
  /** What kept the check from judging, without the names of the checks. */
  readonly text: string;
  /** The checks that judge it. */
  readonly see: readonly [CheckId, ...CheckId[]];
  /** The reason as the report gives it, made once (a constant reason is written on the hot path). */
  readonly line: string;
}

/** A skip reason: plain text that names no check, or a reason with its typed references. */
export type SkipReason = string | SeeReason;

/** A reason pointing at the checks that judge what kept this one from judging. */
export function see(text: string, ...checks: [CheckId, ...CheckId[]]): SeeReason {
  return { text, see: checks, line: `${text} (see ${checks.join(', ')})` };
}

/** The same reason, its text prefixed (`prefix` names no check). */
export function prefixed(prefix: string, r: SkipReason): SkipReason {
  return typeof r === 'string' ? `${prefix}${r}` : see(`${prefix}${r.text}`, ...r.see);
}

/** The reason as the report gives it. */
export const lineOf = (r: SkipReason): string => (typeof r === 'string' ? r : r.line);
