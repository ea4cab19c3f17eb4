/** One place turns a thrown error into one clear line on stderr and an exit code. No stack traces for tool errors. */
import { EXIT, isPetloadError } from '../errors.js';

export function reportFatal(e: unknown): never {
  if (isPetloadError(e)) {
    process.stderr.write(`petload: ${e.message}\n  hint: ${e.hint}\n`);
    process.exit(e.exitCode);
  }
  if (e instanceof Error && e.constructor.name === 'UsageError') {
    process.stderr.write(`petload: ${e.message}\n  hint: see \`petload --help\`\n`);
    process.exit(EXIT.usage);
  }
  process.stderr.write(`petload: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(EXIT.internal);
}
