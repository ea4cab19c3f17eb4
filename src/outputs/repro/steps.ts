/**
 * What a reproduction is made of: the steps a recipe (src/outputs/repro/recipes.ts) makes of a failed check, which
 * the writer (sh.ts) turns into a POSIX shell script. Plain data: the recipes decide what to send and what a right
 * answer is, the writer how a shell says it.
 */

/** Who a request is sent as: a key of the report (the variable that holds it), nothing, or a credential that is no key. */
export type Credential =
  | { readonly kind: 'key'; readonly variable: string; readonly label: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'fixed'; readonly header: string; readonly what: string };

/**
 * One request: its path is under the target's base URL (`/pets?limit=1`); `body` is sent as JSON. `{created}` in a
 * path stands for the id of the Pet the last `create` step made.
 */
export interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly as: Credential;
}

/** What a right answer shows; an answer without it is the defect. */
export type Expectation =
  | { readonly kind: 'status'; readonly is: readonly number[] }
  | { readonly kind: 'not-status'; readonly not: readonly number[] }
  | { readonly kind: 'below-500' }
  | { readonly kind: 'headers'; readonly names: readonly string[] }
  | { readonly kind: 'json-content-type' }
  | { readonly kind: 'reset-seconds' }
  | { readonly kind: 'remaining-below-limit' }
  | { readonly kind: 'limit-of-plan'; readonly perMinute: number; readonly perDay: number }
  | { readonly kind: 'retry-after' }
  | { readonly kind: 'retry-after-within-reset' }
  | { readonly kind: 'error-body' }
  | { readonly kind: 'pet' }
  | { readonly kind: 'pets'; readonly max?: number; readonly status?: string }
  | { readonly kind: 'remaining-kept' }
  /** Refused, or accepted no sooner than a minute after the fresh window began: the window lasts a minute. */
  | { readonly kind: 'minute-kept' }
  /** A refusal (429) to go on from; any other answer leaves the script unable to tell. */
  | { readonly kind: 'refused' };

export type ExpectationKind = Expectation['kind'];

export type Step =
  /** One request, then a sleep until the window it reports has ended (Reset less Date, or Retry-After). */
  | { readonly kind: 'fresh-window'; readonly call: Call }
  /**
   * `times` requests at once on one connection. `refusal` says what a refusal among them means: `holds` (the limit
   * is kept: the defect cannot show, the script ends with "not reproduced"), `expected` (the sequence goes on).
   */
  | {
      readonly kind: 'send';
      readonly call: Call;
      readonly times: number;
      readonly says: string;
      readonly refusal: 'holds' | 'expected';
    }
  /**
   * A request (or, with `call` null, the last answer again) and what a right answer shows. `sameWindow`: an
   * accepted answer once the window the sequence began in has ended proves nothing (the script cannot tell).
   * `beforeReset`: nor does one at or after the Reset of the 429 last waited on (a wait that overshot, a busy machine:
   * the quota is back whatever Retry-After said).
   */
  | {
      readonly kind: 'expect';
      readonly call: Call | null;
      readonly expect: Expectation;
      readonly says: string;
      readonly sameWindow?: boolean;
      readonly beforeReset?: boolean;
    }
  /** A request whose Remaining the next `remaining-kept` expectation compares with. */
  | { readonly kind: 'note-remaining'; readonly call: Call }
  /** A POST that creates a Pet, whose id the next paths' `{created}` stand for. */
  | { readonly kind: 'create'; readonly call: Call }
  /**
   * A sleep of the last answer's Retry-After (else its Reset less Date), and a little more; with `andReset`, until
   * both have passed.
   */
  | { readonly kind: 'wait-retry-after'; readonly andReset?: boolean };

/** A failure a replay can show: its steps, and what the script says when the defect shows. */
export interface Replay {
  readonly kind: 'replay';
  readonly steps: readonly Step[];
}

/** A failure a replay cannot show: why, and the probe that judges it (re-run it instead). */
export interface NoReplay {
  readonly kind: 'no-replay';
  readonly why: string;
}

export type Reproduction = Replay | NoReplay;

export const noReplay = (why: string): NoReplay => ({ kind: 'no-replay', why });
export const replay = (steps: readonly Step[]): Replay => ({ kind: 'replay', steps });
