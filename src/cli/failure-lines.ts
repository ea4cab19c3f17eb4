import { ERRORS } from '../core/errors.js';
import type { Failure } from '../engine/finalize.js';

/** What the CLI says when the report could not be assembled: what went wrong, what was saved, where. */
export function failureLines(failure: Failure): string[] {
  const files = Object.values(failure.files);
  return [
    `petload: the report could not be assembled: ${failure.message}`,
    files.length > 0
      ? `  what the run collected was saved: ${files.join(', ')}${failure.files.json ? ' (report.json has verdict "error" and the raw parts)' : ''}`
      : `  nothing could be saved in ${failure.reportDir}`,
    `  hint: ${ERRORS.E_INTERNAL.hint}`,
  ];
}
