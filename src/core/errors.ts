/**
 * One table of tool errors. A target that breaks the interface is a check failure, not an error:
 * these are for the tool's own input and environment. Codes and exit codes are a public contract.
 */
export const EXIT = {
  pass: 0,
  fail: 1,
  usage: 2,
  aborted: 3,
  internal: 4,
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const ERRORS = {
  E_USAGE: { exit: EXIT.usage, hint: 'See `petload --help`.' },
  E_SCENARIO: {
    exit: EXIT.usage,
    hint: 'Check the scenario file against the format in README.md ("Scenario format").',
  },
  E_KEYS_FILE: { exit: EXIT.usage, hint: 'See README.md ("Keys file").' },
  E_PLANS_FILE: { exit: EXIT.usage, hint: 'See docs/plans.md (plan figures and the plans file).' },
  E_KEYS_ON_ARGV: {
    exit: EXIT.usage,
    hint: 'Put keys in a keys file (--keys-file or PETLOAD_KEYS_FILE) or in PETLOAD_KEYS; never on the command line.',
  },
  E_NO_KEYS: { exit: EXIT.usage, hint: 'Give a keys file with at least one key of the plans to judge.' },
  E_SAFETY: { exit: EXIT.usage, hint: 'See README.md ("Safety and secrets").' },
  E_TARGET_UNREACHABLE: { exit: EXIT.aborted, hint: 'Check --target and that the service is up.' },
  E_TARGET_NOT_API: {
    exit: EXIT.aborted,
    hint: 'Give --target as the API\'s base URL, e.g. https://staging.example.com/v1 (see README.md, "Exit codes").',
  },
  E_DEADLINE: {
    exit: EXIT.aborted,
    hint: "The run went on far longer than expected: the target kept refusing, failing or not answering; see docs/safety.md (the run's deadline).",
  },
  E_KEY_BANNED: {
    exit: EXIT.aborted,
    hint: 'Every key is suspected banned; wait for the ban to end before another run.',
  },
  E_INTERRUPTED: { exit: EXIT.interrupted, hint: 'The run was interrupted; partial reports were written.' },
  E_INTERNAL: { exit: EXIT.internal, hint: 'This is a bug in petload; please report it with the command line.' },
} as const satisfies Record<string, { exit: ExitCode; hint: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class PetloadError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  readonly hint: string;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; hint?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PetloadError';
    this.code = code;
    this.exitCode = ERRORS[code].exit;
    this.hint = options?.hint ?? ERRORS[code].hint;
  }
}

export function isPetloadError(e: unknown): e is PetloadError {
  return e instanceof PetloadError;
}
