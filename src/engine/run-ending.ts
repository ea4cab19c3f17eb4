/**
 * How a run ended, decided in one place (`endingOf`) from what the send phase left: the error it threw, if any, and
 * the run's own stops. The order is the rule, written once:
 *
 * 1. a halt of the run's own (a wrong target, a key's day that would run dry): the run had begun sending and stopped
 *    itself for that reason, whatever the send phase threw while stopping;
 * 2. the error the send phase threw: an interrupt that the run's deadline caused is the deadline; an interrupt, the
 *    target unreachable or not the API, every key banned on the way, a bug of petload (exit 4, with its stack as a
 *    note for the bug report) end the run and are still reported; any other tool error is thrown once the run has
 *    cleaned up;
 * 3. every key suspected banned at the end of a send phase that completed;
 * 4. the run's signal aborted while nothing threw: the deadline if it fired, else an interrupt;
 * 5. otherwise the run completed.
 */
import { ERRORS, EXIT, isPetloadError, type PetloadError } from '../core/errors.js';

/** A run that ended early and is still reported. */
export interface Aborted {
  readonly reason: string;
  readonly exitCode: number;
  readonly hint?: string;
  /** A note for the report about why. */
  readonly note?: string;
}

export type Ending =
  | { readonly kind: 'completed' }
  | { readonly kind: 'aborted'; readonly aborted: Aborted }
  /** A tool error: thrown once the run has cleaned up, with no report. */
  | { readonly kind: 'tool-error'; readonly error: unknown };

/** What the send phase left, as `endingOf` reads it. */
export interface EndFacts {
  /** What the send phase threw (absent: it returned). */
  readonly thrown?: { readonly error: unknown };
  /** The run's own halt, if it halted. */
  readonly halt: PetloadError | null;
  /** The run's deadline, if it fired. */
  readonly deadline: Aborted | null;
  /** Whether the run's signal was aborted (an interrupt, a halt or the deadline). */
  readonly signalAborted: boolean;
  /** Whether every key is suspected banned. */
  readonly everyKeyBanned: boolean;
  /** Hides secrets in the text of an unexpected error. */
  readonly redact: (text: string) => string;
}

/** Thrown by the send phase once the run is interrupted, to unwind probes and executors at once. */
export class Interrupted extends Error {}

const aborted = (a: Aborted): Ending => ({ kind: 'aborted', aborted: a });

/** A PetloadError as the reason a run ended. */
const abortedBy = (e: PetloadError): Aborted => ({
  reason: e.message,
  exitCode: e.exitCode,
  ...(e.hint !== undefined ? { hint: e.hint } : {}),
});

const INTERRUPTED: Aborted = { reason: 'interrupted', exitCode: EXIT.interrupted };

/** The errors of the target that end a run and are still reported (any other tool error is thrown). */
const REPORTED_CODES: ReadonlySet<string> = new Set(['E_TARGET_UNREACHABLE', 'E_TARGET_NOT_API', 'E_KEY_BANNED']);

/** The ending an error the send phase threw gives (step 2 of the rule). */
function endingOfError(error: unknown, deadline: Aborted | null, redact: (text: string) => string): Ending {
  if (error instanceof Interrupted) return aborted(deadline ?? INTERRUPTED);
  if (!isPetloadError(error) || error.code === 'E_INTERNAL') {
    const message = error instanceof Error ? error.message : String(error);
    return aborted({
      reason: redact(`internal error: ${message}`),
      exitCode: EXIT.internal,
      hint: ERRORS.E_INTERNAL.hint,
      ...(error instanceof Error && error.stack ? { note: `internal error, for the bug report: ${error.stack}` } : {}),
    });
  }
  if (REPORTED_CODES.has(error.code)) return aborted(abortedBy(error));
  return { kind: 'tool-error', error };
}

/** How the run ended: the rule of this module's head, in its order. */
export function endingOf(f: EndFacts): Ending {
  if (f.halt) return aborted(abortedBy(f.halt));
  if (f.thrown) return endingOfError(f.thrown.error, f.deadline, f.redact);
  if (f.everyKeyBanned)
    return aborted({ reason: 'every key is suspected banned', exitCode: EXIT.aborted, hint: ERRORS.E_KEY_BANNED.hint });
  if (f.signalAborted) return aborted(f.deadline ?? INTERRUPTED);
  return { kind: 'completed' };
}
