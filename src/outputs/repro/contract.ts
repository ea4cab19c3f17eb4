/**
 * Recipes of the checks whose defect one answer shows (the contract, the resources, authentication, the rate-limit
 * headers of an answer): the evidence's requests sent again as they were, each judged by what a right answer shows.
 */
import type { CheckId } from '../../checks/catalogue.js';
import { type Evidence, type Failure, keyOfFailure, limitsOf, replayableCalls } from './failure.js';
import type { Recipe } from './recipe.js';
import { overLimit } from './rate-limit.js';
import { type Call, type Expectation, noReplay, type Reproduction, replay } from './steps.js';

const HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

const isRefusal = (e: Evidence): boolean => e.status === 429;
const accepted = (e: Evidence): boolean => typeof e.status === 'number' && e.status >= 200 && e.status < 300;
const notRefused = (e: Evidence): boolean => typeof e.status === 'number' && !isRefusal(e);
/** An over-limit answer: a 429, or another status with the signs of one (Retry-After, Remaining 0). */
const overLimitAnswer = (e: Evidence): boolean =>
  isRefusal(e) || e.headers?.['retry-after'] !== undefined || e.headers?.['x-ratelimit-remaining'] === '0';

/** Each of the evidence's requests (those `keep` keeps) sent again, each expected to show `expect`. */
function sendAgain(
  f: Failure,
  expect: (c: Call) => Expectation,
  says: (c: Call) => string,
  keep: (e: Evidence) => boolean = notRefused,
): Reproduction {
  const calls = replayableCalls(f, 3, keep);
  if (calls.length === 0) return noReplay('none of its evidence is a request that can be sent again as it was');
  return replay(calls.map((call) => ({ kind: 'expect', call, expect: expect(call), says: says(call) })));
}

const always =
  <T>(v: T) =>
  (): T =>
    v;

/** A query parameter of a call's path. */
function param(c: Call, name: string): string | undefined {
  const q = c.path.split('?')[1];
  return q === undefined ? undefined : (new URLSearchParams(q).get(name) ?? undefined);
}

/** The rate-limit headers on an answer; on a 429 they need the key spent first. */
function headersPresent(f: Failure): Reproduction {
  const expect: Expectation = { kind: 'headers', names: HEADERS };
  const says = HEADERS.join(', ');
  if (f.outcome.evidence[0] !== undefined && isRefusal(f.outcome.evidence[0])) return overLimit(f, expect, says);
  return sendAgain(f, always(expect), always(says));
}

/** No server error; one with the signs of a refusal comes once the key is spent. */
function noServerErrors(f: Failure): Reproduction {
  const expect: Expectation = { kind: 'below-500' };
  const first = f.outcome.evidence[0];
  if (first !== undefined && overLimitAnswer(first))
    return overLimit(f, expect, 'no server error (429 when over the limit)');
  return sendAgain(f, always(expect), always('no server error (a status below 500)'), () => true);
}

/** A Pet created first, then the evidence's GET of it: a fresh target has none of the run's Pets. */
function getReturnsPet(f: Failure): Reproduction {
  const [get] = replayableCalls(f, 1);
  if (get === undefined) return noReplay('none of its evidence is a request that can be sent again as it was');
  const create: Call = { method: 'POST', path: '/pets', body: '{"name":"petload-repro","categoryId":1}', as: get.as };
  return replay([
    { kind: 'create', call: create },
    {
      kind: 'expect',
      call: { ...get, path: '/pets/{created}' },
      expect: { kind: 'pet' },
      says: 'a Pet (id, name, categoryId as numbers and a string)',
    },
  ]);
}

function limitMatchesPlan(f: Failure): Reproduction {
  const label = keyOfFailure(f);
  const limits = label === undefined ? undefined : limitsOf(f.report, label);
  if (limits === undefined) return noReplay("the report does not give the key's figures");
  return sendAgain(
    f,
    always({ kind: 'limit-of-plan', perMinute: limits.perMinute, perDay: limits.perDay }),
    always(`Limit ${limits.perMinute} (the plan's figure a minute; ${limits.perDay} only on a day's window)`),
    accepted,
  );
}

export const CONTRACT_RECIPES = {
  'contract.error-shape': (f) =>
    sendAgain(
      f,
      always({ kind: 'error-body' }),
      always('an Error body: code, message, and status equal to the HTTP status'),
      (e) => notRefused(e) && !accepted(e),
    ),
  'contract.no-server-errors': noServerErrors,
  'contract.every-endpoint': (f) =>
    sendAgain(f, always({ kind: 'not-status', not: [404] }), always('anything but 404: the interface has it')),
  'list.schema': (f) => sendAgain(f, always({ kind: 'pets' }), always('a bare JSON array of Pet'), accepted),
  'list.limit-respected': (f) =>
    sendAgain(
      f,
      (c) => ({ kind: 'pets', max: Number(param(c, 'limit') ?? 20) }),
      (c) => `at most ${param(c, 'limit') ?? 20} animals`,
      accepted,
    ),
  'list.status-filter': (f) =>
    sendAgain(
      f,
      (c) => ({ kind: 'pets', ...(param(c, 'status') ? { status: param(c, 'status')! } : {}) }),
      (c) => `only animals of status ${param(c, 'status') ?? '?'}`,
      accepted,
    ),
  'create.returns-pet': (f) =>
    sendAgain(f, always({ kind: 'pet' }), always('201 with a Pet (id, name, categoryId)'), accepted),
  'create.rejects-invalid': (f) =>
    sendAgain(f, always({ kind: 'status', is: [400] }), always('400: the body is not a NewPet')),
  'get.returns-pet': getReturnsPet,
  'auth.missing-key': (f) => sendAgain(f, always({ kind: 'status', is: [401] }), always('401: no key'), () => true),
  'auth.challenge': (f) =>
    sendAgain(
      f,
      always({ kind: 'headers', names: ['WWW-Authenticate'] }),
      always('401 with WWW-Authenticate: Bearer'),
      (e) => e.status === 401,
    ),
  'auth.invalid-key': (f) =>
    sendAgain(f, always({ kind: 'status', is: [401] }), always('401: not a valid key'), () => true),
  'ratelimit.headers-present': headersPresent,
  'ratelimit.headers-on-errors': (f) =>
    sendAgain(f, always({ kind: 'headers', names: HEADERS }), always(`${HEADERS.join(', ')} on an error too`)),
  'ratelimit.reset-is-timestamp': (f) =>
    sendAgain(f, always({ kind: 'reset-seconds' }), always('X-RateLimit-Reset in Unix seconds, after Date')),
  'ratelimit.remaining-decrements': (f) =>
    sendAgain(
      f,
      always({ kind: 'remaining-below-limit' }),
      always('Remaining below Limit: the request itself is counted'),
      accepted,
    ),
  'ratelimit.limit-matches-plan': limitMatchesPlan,
} as const satisfies Partial<Record<CheckId, Recipe>>;
