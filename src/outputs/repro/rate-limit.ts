/**
 * Recipes of the rate-limit defects that only a sequence shows: the key's window waited out, the requests its minute
 * allows sent at once, then the request over the limit (and, for Retry-After's honesty, the wait it asks for and
 * the request after it). Every wait is read from the live answers; the counts from the key's figures in the report.
 */
import type { CheckId } from '../../checks/catalogue.js';
import { infoOf } from '../../report/check-info.js';
import type { KeyLimits } from '../../report/schema.js';
import { allowedPerMinute, type Failure, keyCredential, keyOfFailure, limitsOf, replayableCalls } from './failure.js';
import type { Recipe } from './recipe.js';
import {
  type Call,
  type Credential,
  type Expectation,
  noReplay,
  type Reproduction,
  replay,
  type Step,
} from './steps.js';

/** The cheapest request a key can spend its minute on. */
const SPEND_PATH = '/pets?limit=1';

interface SpentKey {
  readonly label: string;
  readonly limits: KeyLimits;
  readonly as: Credential;
  /** The request the key's minute is spent on. */
  readonly spend: Call;
}

function spentKey(f: Failure, label = keyOfFailure(f)): SpentKey | string {
  if (label === undefined) return 'its evidence names no key of the report (the refusals were of requests without one)';
  const limits = limitsOf(f.report, label);
  if (limits === undefined) return "the report does not give the key's figures (a report of an older version)";
  const as = keyCredential(label);
  return { label, limits, as, spend: { method: 'GET', path: SPEND_PATH, as } };
}

function limitWords(l: KeyLimits): string {
  const allowed = allowedPerMinute(l);
  return allowed === l.perMinute
    ? `the limit is ${l.perMinute} a minute`
    : `the limit is ${l.perMinute} a minute, ${allowed} with the declared tolerance`;
}

/** A fresh window on the key, then the requests its minute allows, at once. */
function spendMinute(k: SpentKey, refusal: 'holds' | 'expected'): Step[] {
  return [
    { kind: 'fresh-window', call: k.spend },
    {
      kind: 'send',
      call: k.spend,
      times: allowedPerMinute(k.limits),
      refusal,
      says: `accepted (${limitWords(k.limits)})`,
    },
  ];
}

/** The evidence's requests on that key (at most `max`), else the request the minute is spent on. */
function overCalls(f: Failure, k: SpentKey, max: number): Call[] {
  const calls = replayableCalls(f, max, (e) => e.key === k.label);
  return calls.length > 0 ? calls : [k.spend];
}

/** The key's minute spent, then the evidence's request over the limit, whose answer must show `expect`. */
export function overLimit(f: Failure, expect: Expectation, says: string): Reproduction {
  const k = spentKey(f);
  if (typeof k === 'string') return noReplay(k);
  const [call] = overCalls(f, k, 1);
  return replay([...spendMinute(k, 'expected'), { kind: 'expect', call: call!, expect, says }]);
}

function enforced(f: Failure): Reproduction {
  const cause = infoOf('ratelimit.enforced', f.outcome).cause;
  if (cause !== undefined)
    return noReplay(
      `a fleet's counters: ${cause}; a replay on one connection may meet one counter, and nothing shows which`,
    );
  const k = spentKey(f);
  if (typeof k === 'string') return noReplay(k);
  const over: Step[] = overCalls(f, k, 2).map((call) => ({
    kind: 'expect',
    call,
    expect: { kind: 'status', is: [429] },
    says: `429 (${limitWords(k.limits)}, all spent)`,
    sameWindow: true,
  }));
  // A window shorter than a minute lets the figure in again before the minute is over: what the refusal's wait
  // asks, then one more request.
  const again: Step[] = [
    { kind: 'wait-retry-after' },
    {
      kind: 'expect',
      call: k.spend,
      expect: { kind: 'minute-kept' },
      says: 'refused, or accepted only once a minute has passed since the window began',
    },
  ];
  return replay([...spendMinute(k, 'holds'), ...over, ...again]);
}

/**
 * The minute spent, a 429, the wait it asks (Retry-After; with `andReset`, until its Reset too), then the request
 * after it, which must not be refused.
 */
function afterTheWait(f: Failure, andReset: boolean): Reproduction {
  const k = spentKey(f);
  if (typeof k === 'string') return noReplay(k);
  const [after] = overCalls(f, k, 1);
  const waited = andReset ? 'Retry-After and Reset are' : 'Retry-After is';
  return replay([
    ...spendMinute(k, 'expected'),
    { kind: 'expect', call: k.spend, expect: { kind: 'refused' }, says: `429, whose ${waited} waited out next` },
    { kind: 'wait-retry-after', andReset },
    {
      kind: 'expect',
      call: after!,
      expect: { kind: 'not-status', not: [429] },
      says: 'not 429: the wait asked for is over',
      beforeReset: !andReset,
    },
  ]);
}

/** Another key of the plan spent, then the evidence's key, which must not be refused for it. */
function keyIsolation(f: Failure): Reproduction {
  const b = spentKey(f);
  if (typeof b === 'string') return noReplay(b);
  const other = f.report.keys.find((x) => x.plan === f.outcome.plan && x.label !== b.label && !x.sacrificial);
  const a = spentKey(f, other?.label);
  if (typeof a === 'string') return noReplay(`no other key of the plan to spend: ${a}`);
  const [call] = overCalls(f, b, 1);
  return replay([
    ...spendMinute(a, 'expected'),
    {
      kind: 'expect',
      call: a.spend,
      expect: { kind: 'refused' },
      says: `429: ${a.as.kind === 'key' ? a.as.variable : 'the key'} is spent`,
    },
    {
      kind: 'expect',
      call: call!,
      expect: { kind: 'not-status', not: [429] },
      says: 'not 429: this key has a quota of its own',
    },
  ]);
}

/** Requests without a valid key between two of the key's: its Remaining falls by its own request only. */
function noQuotaDrain(f: Failure): Reproduction {
  const k = spentKey(f);
  if (typeof k === 'string') return noReplay(k);
  const sent = /across (\d+) invalid-key/.exec(f.outcome.evidence[0]?.message ?? '')?.[1];
  const times = Math.min(Number(sent ?? 50), 50);
  const unknown: Credential = { kind: 'fixed', header: 'Bearer petload-repro-not-a-key', what: 'unknown key' };
  return replay([
    { kind: 'fresh-window', call: k.spend },
    { kind: 'note-remaining', call: k.spend },
    {
      kind: 'send',
      call: { ...k.spend, as: unknown },
      times,
      refusal: 'expected',
      says: '401 (or 429), none charged to the key',
    },
    {
      kind: 'expect',
      call: k.spend,
      expect: { kind: 'remaining-kept' },
      says: 'Remaining one less than noted, no lower',
    },
  ]);
}

export const RATE_LIMIT_RECIPES = {
  'ratelimit.enforced': enforced,
  'ratelimit.key-isolation': keyIsolation,
  'auth.no-quota-drain': noQuotaDrain,
  'retry-after.present': (f) => overLimit(f, { kind: 'retry-after' }, 'a 429 with Retry-After'),
  'retry-after.plausible': (f) =>
    overLimit(
      f,
      { kind: 'retry-after-within-reset' },
      'a 429 whose Retry-After is no longer than the wait until Reset',
    ),
  'retry-after.honest': (f) => afterTheWait(f, false),
  'ratelimit.quota-restored': (f) => afterTheWait(f, true),
  'retry-after.error-body': (f) => overLimit(f, { kind: 'error-body' }, 'a 429 whose body is an Error with status 429'),
} as const satisfies Partial<Record<CheckId, Recipe>>;
