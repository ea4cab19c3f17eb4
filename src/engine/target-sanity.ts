/**
 * Is the target the Animal Store API at all? A wrong `--target` (a sign-in page, a proxy's error page, the
 * API's host without `/v1`) answers every request, so the reachability check passes, and a run would judge it
 * as a badly failing API: exit 1, a regression to whoever reads a nightly job. This watches the first answers
 * of a run against an external target and stops the run (exit 3, E_TARGET_NOT_API) when they show that it is
 * not the API. The rule is conservative: a real API with defects is judged by the checks, never stopped here.
 *
 * HTTP answers count (transport errors and requests petload cancelled do not). Two rules, each decided once:
 *  - not the API: the run's first SAMPLE answers, with or without a key, carry no JSON body (by their
 *    Content-Type, or a text body that parses as JSON all the same) and no rate-limit header (X-RateLimit-* or
 *    the IETF RateLimit fields): a sign-in page, a proxy's error page, a plain 404 server;
 *  - a wrong base path: a 404 with a valid key to an operation whose answers never include 404 (GET or POST /pets),
 *    before any answer with a valid key that is not a 404: the API's host without `/v1`, or another path. Decided
 *    on that first answer, whatever the number of plans or keys (a run of one plan and one key has few answers to
 *    wait for, and its next probe may wait a whole window). Requests without a key are left out here: the API
 *    answers them 401 on any path, before routing.
 * When either rule holds and a key got one of the answers, one look at the base with `/v1` added (base-look.ts, with
 * that key) says whether the API answers there before the run stops.
 * Anything else (one JSON body or one rate-limit header among the first answers, one answer with a key that is
 * not a 404) and the target counts as the API for the rest of the run: a 401, 429 or 500 with a JSON Error body,
 * or JSON answers without rate-limit headers, are an API's defects, which the checks judge. Past WATCH_AT_MOST
 * answers (a run whose requests with a key come late) it stops watching.
 */
import { OPERATIONS } from '../api/operations.js';
import { PetloadError } from '../core/errors.js';
import { headerValue, type Exchange } from '../http/exchange.js';
import { ietfFieldNames } from '../http/ratelimit-fields.js';

/** How many answers decide. */
export const SAMPLE = 5;

const RATE_LIMIT_PREFIX = 'x-ratelimit-';

/** A body that is JSON: declared and parsed, or undeclared but parsing as JSON all the same. */
function hasJsonBody(ex: Exchange): boolean {
  const b = ex.body;
  if (b.kind === 'json') return true;
  if (b.kind !== 'text') return false;
  const t = b.excerpt.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** Whether an answer carries a rate-limit header: X-RateLimit-* or the IETF RateLimit fields. */
export function hasRateLimitHeader(ex: Exchange): boolean {
  return Object.keys(ex.headers).some((h) => h.startsWith(RATE_LIMIT_PREFIX)) || ietfFieldNames(ex.headers).length > 0;
}

/** The media type of an answer, without parameters: `text/html`, or `no Content-Type`. */
function mediaType(ex: Exchange): string {
  const ct = headerValue(ex.headers, 'content-type');
  if (ct === undefined || ct.trim() === '') return 'no Content-Type';
  return ct.split(';')[0]!.trim().toLowerCase();
}

/** The request as the interface names it: `GET /pets`, `GET /pets/{petId}`; another path as it was sent. */
function requestName(ex: Exchange): string {
  if (ex.operation !== null) return `${OPERATIONS[ex.operation].method} ${OPERATIONS[ex.operation].path}`;
  const q = ex.path.indexOf('?');
  return `${ex.method} ${q < 0 ? ex.path : ex.path.slice(0, q)}`;
}

/** Distinct values in first-seen order, each with its count when it is not alone: `200 text/html (3), 404 ...`. */
function tally(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  if (counts.size === 1) return [...counts.keys()][0]!;
  return [...counts].map(([v, n]) => `${v} (${n})`).join(', ');
}

const unique = (values: readonly string[]) => [...new Set(values)].join(', ');

const never404 = (ex: Exchange) =>
  ex.status === 404 && ex.operation !== null && !(OPERATIONS[ex.operation].statuses as readonly number[]).includes(404);

/** Why the first answers show that the target is not the API (no JSON, no rate-limit header), or null. */
export function notTheApi(answers: readonly Exchange[], target: string): string | null {
  if (answers.length < SAMPLE || answers.some(hasJsonBody) || answers.some(hasRateLimitHeader)) return null;
  const seen = tally(answers.map((ex) => `${ex.status} ${mediaType(ex)}`));
  return `every answer to ${unique(answers.map(requestName))} was ${seen}, without a JSON body or a rate-limit header: is --target (${target}) the API's base URL, ending in /v1, and not a sign-in or proxy page?`;
}

/**
 * Why an answer with a valid key shows a wrong base path, given that every earlier one was a 404: a 404 to an
 * operation that never answers 404 (GET or POST /pets). Null otherwise. `keyed`: the answers with a valid key so far,
 * this one last.
 */
export function wrongBase(keyed: readonly Exchange[], target: string): string | null {
  const last = keyed.at(-1);
  if (last === undefined || !never404(last) || !keyed.every((ex) => ex.status === 404)) return null;
  const seen = tally(keyed.map((ex) => `${ex.status} ${mediaType(ex)}`));
  return `${keyed.length === 1 ? 'the answer' : 'every answer'} to ${unique(keyed.map(requestName))} with a valid key was ${seen} (${requestName(last)} is never 404 on the API): is --target (${target}) the API's base URL, ending in /v1?`;
}

/** Answers watched at most: past them a run whose requests with a key have not come yet is left alone. */
const WATCH_AT_MOST = 50;

export interface TargetSanity {
  /** Every exchange of the run as it settles (the send path's onExchange). */
  observe(ex: Exchange): void;
  /** The error that stopped the run, once the first answers showed a wrong target. */
  readonly error: PetloadError | null;
}

/**
 * What answers at the base with `/v1` added, asked with the key (by label) that got a wrong base's 404: a sentence,
 * or null (base-look.ts).
 */
export type LookWithV1 = (keyLabel: string) => Promise<string | null>;

/**
 * Watch the first answers of a run against `target` (its URL, for the message); `stop` is called once, when
 * they show that the target is not the API (once `look`, when given and a key got an answer, has said what answers
 * with `/v1` added). Past them it does nothing.
 */
export function watchTarget(target: string, stop: (error: PetloadError) => void, look?: LookWithV1): TargetSanity {
  const answers: Exchange[] = [];
  let keyed: Exchange[] | null = [];
  let seen = 0;
  let done = false;
  let error: PetloadError | null = null;
  const fail = (why: string) => {
    error = new PetloadError('E_TARGET_NOT_API', `the target does not answer as the Animal Store API: ${why}`);
    stop(error);
  };
  /** `keyLabel`: a key that got one of the answers, for the look at the base with /v1 added (none: no look). */
  const decide = (why: string | null, keyLabel: string | null) => {
    if (why === null) return;
    done = true;
    if (look === undefined || keyLabel === null) return fail(why);
    look(keyLabel).then(
      (found) => fail(found === null ? why : `${why} ${found}`),
      () => fail(why),
    );
  };
  return {
    observe(ex) {
      if (done || ex.status === null) return;
      if (answers.length < SAMPLE) {
        answers.push(ex);
        if (answers.length === SAMPLE) {
          const keyLabel = answers.find((x) => x.auth === 'valid' && x.keyLabel !== null)?.keyLabel ?? null;
          decide(notTheApi(answers, target), keyLabel);
        }
      }
      // Keyed answers are watched while every one is a 404: the first that is not shows a route that exists.
      if (!done && ex.auth === 'valid' && keyed !== null) {
        keyed.push(ex);
        if (ex.status !== 404) keyed = null;
        else decide(wrongBase(keyed, target), ex.keyLabel);
      }
      if (++seen >= WATCH_AT_MOST || (answers.length === SAMPLE && keyed === null)) {
        done = true;
        answers.length = 0;
        keyed = null;
      }
    },
    get error() {
      return error;
    },
  };
}
