/**
 * One place turns a thrown error into one clear line on stderr (and a hint) and an exit code. No stack traces
 * for tool errors; an internal error (a bug) keeps its stack, for the bug report. Every message goes through
 * the redactor of the keys the command line or environment names: the last line of defence for secrets.
 */
import { EXIT, isPetloadError } from '../core/errors.js';

export function reportFatal(e: unknown, redact: (text: string) => string = (t) => t): never {
  if (isPetloadError(e)) {
    process.stderr.write(redact(`petload: ${e.message}\n  hint: ${e.hint}\n`));
    process.exit(e.exitCode);
  }
  process.stderr.write(redact(`petload: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`));
  process.exit(EXIT.internal);
}
