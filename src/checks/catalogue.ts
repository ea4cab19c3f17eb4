/**
 * The check catalogue as data (docs/checks.md, whose table `npm run docs` generates from it). The ids are a
 * public contract: never renamed; a new check gets a new id. Everything else (reports, JUnit, `petload list
 * checks`, the docs) reads this table.
 */
import type { Severity } from '../report/severity.js';
import { RETRY_AFTER_MARGIN_MS } from '../http/server-time.js';

export { FAILING_SEVERITIES, SEVERITIES, type Severity } from '../report/severity.js';

/**
 * Who judges a check. `observer`: the passive checks, on every exchange (src/checks/observer.ts); `probe`: the
 * probes that name it in their `checks` (src/probes/), which send for it and record it themselves or leave it to
 * the observer, and skip it when they cannot run; `backoff`: the record of a load through the backoff
 * (src/backoff/no-ban.ts); `saturate`: the saturate executor (src/executors/saturate.ts).
 * `src/engine/check-registry.test.ts` holds every probe's and judge's checks to this.
 */
export type Judge = 'observer' | 'probe' | 'backoff' | 'saturate';

export interface CheckMeta<Id extends string = string> {
  readonly title: string;
  readonly severity: Severity;
  readonly family: 'contract' | 'auth' | 'ratelimit' | 'retry-after' | 'client';
  readonly judgedBy: readonly Judge[];
  /** Why a run may give it no outcome: what it needs that the run did not send (the words of its skip reason). */
  readonly unexercised: string;
  /**
   * The checks that own a defect this one's failures may only echo: when the condition holds at the end of the run,
   * the failures are skips naming that check (src/checks/deferrals.ts, docs/attribution.md).
   */
  readonly defersTo?: readonly Deferral<Id>[];
  /**
   * A check judged by the observer alone: the probes (src/probes/names.ts) whose exchanges surely give it something to
   * judge, which a run focused on it keeps (`--check`, src/config/focus.ts). A check some probe names in its `checks`
   * is kept with that probe instead. src/config/focus.ts holds the names to the probes' at compile time.
   */
  readonly exercisedBy?: readonly string[];
}

/**
 * When a deferral holds (src/checks/deferrals.ts reads them). Of a check that owns the defect: `failed`, it failed on
 * the plan; `failed-in-run`, on any plan; `over-the-figure`, it failed on the plan or its `admission` fact counts more
 * than the figure sold; `per-counter`, that, and several independent counters answer the plan's keys. Of the
 * limiter ratelimit.algorithm reads on the plan: `refills-or-slides`, a token bucket or a sliding window (its
 * truthful headers move); `refills-or-slides-by-reset`, the same told by Reset alone, not by the key's own requests
 * sliding out of a log; `may-slide`, anything but a fixed window; `shape-unknown`, the answers could not tell its shape.
 */
export type DeferralCondition =
  | 'failed'
  | 'failed-in-run'
  | 'over-the-figure'
  | 'per-counter'
  | 'refills-or-slides'
  | 'refills-or-slides-by-reset'
  | 'may-slide'
  | 'shape-unknown';

/**
 * Judgements a judge holds to the end of the run under a name (src/checks/passive/stream.ts, error-body.ts):
 * `concurrent-rise`, Remaining rising where requests on the key were in flight together; `short-window`, the headers
 * moving within what a fixed window calls one; `forward-reset`, a Reset moved forward with the requests;
 * `day-figure`, the day's figure announced on windows of a minute; `same-defect`, a 429 body with the defect
 * contract.error-shape found on the other error bodies; `refused-after-wait`, a refusal after a kept wait that ended
 * a probe early (src/engine/end-cause.ts), or that the wait-out probes judged (src/probes/wait-out.ts); `slid-out`,
 * Remaining risen by exactly the key's own requests that slid out of the trailing minute (a sliding log's truth).
 */
export type HeldKind =
  | 'concurrent-rise'
  | 'short-window'
  | 'forward-reset'
  | 'day-figure'
  | 'same-defect'
  | 'refused-after-wait'
  | 'slid-out'
  | 'fell-further';

/** A deferral to the check `Id`: in the catalogue, a catalogue id (`CHECKS` does not compile with another). */
export interface Deferral<Id extends string = string> {
  /** The check that owns the defect (or reads the limiter); deferrals.ts refuses a cycle. */
  readonly check: Id;
  readonly when: DeferralCondition;
  /**
   * Only the judgements held under these names (absent: every failure of the check). Of held judgements, the first
   * deferral of the list that holds gives the reason.
   */
  readonly of?: readonly HeldKind[];
  /** What the skipped judgements echo: the skip reason, to which the ledger adds the name of `check`. */
  readonly because: string;
}

/** A key answered by several counters (a fleet keeping the limit per instance): the sequence checks' echoes. */
const PER_COUNTER = [
  {
    check: 'ratelimit.enforced',
    when: 'per-counter',
    because:
      "the key's answers come from several independent counters, each keeping the limit alone (see ratelimit.algorithm)",
  },
] as const satisfies readonly Deferral[];

/**
 * A refusal after a kept wait (one that ended a probe early, or one the wait-out probes judged) is the broken
 * promise's, unless requests petload did not send on the key were shown to be counted against it: the other keys' of
 * the plan, or requests without a valid key.
 */
const REFUSED_AFTER_WAIT = [
  ...PER_COUNTER,
  {
    check: 'ratelimit.key-isolation',
    when: 'failed',
    of: ['refused-after-wait'],
    because: "refused after the wait by a window that may hold the plan's other keys' requests",
  },
  {
    check: 'auth.no-quota-drain',
    when: 'failed',
    of: ['refused-after-wait'],
    because: 'refused after the wait by a window that may hold requests without a valid key',
  },
] as const satisfies readonly Deferral[];

/** Headers that move within what a fixed window calls one: the truth of a limiter that refills or slides. */
const REFILLS_OR_SLIDES = (of: readonly HeldKind[]): Deferral<'ratelimit.algorithm'> => ({
  check: 'ratelimit.algorithm',
  when: 'refills-or-slides',
  of,
  because:
    'Remaining rising and Reset moving forward are how this limiter refills or slides, not a defect of the headers',
});

/**
 * Remaining risen by exactly the key's own requests that slid out of the trailing minute: a sliding log's truth,
 * excused unless the answers show a fixed window. Any other rise is excused only where a bucket or a sliding window
 * was told by its Reset (refills-or-slides-by-reset): where petload's own requests showed a log, a rise they do not
 * explain is a defect.
 */
const SLID_OUT: Deferral<'ratelimit.algorithm'> = {
  check: 'ratelimit.algorithm',
  when: 'may-slide',
  of: ['slid-out'],
  because:
    "Remaining rose by exactly the key's own requests that slid out of the trailing minute, as a sliding log's does, and the answers do not show a fixed window",
};

/** A window that restarts too soon: over-admission, ratelimit.enforced's defect. */
const SHORT_WINDOW = (of: readonly HeldKind[]): Deferral<'ratelimit.enforced'> => ({
  check: 'ratelimit.enforced',
  when: 'failed',
  of,
  because: 'the window restarts sooner than a minute, and more than the figure was accepted within one',
});

export const CATALOGUE = {
  // Contract
  'contract.transport': {
    family: 'contract',
    severity: 'critical',
    title: 'Every request gets a whole HTTP response within the timeout',
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no request was sent',
  },
  'contract.no-server-errors': {
    family: 'contract',
    severity: 'critical',
    title: 'No 5xx response, ever; over-limit is never 5xx',
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no response was received',
  },
  'contract.documented-status': {
    family: 'contract',
    severity: 'major',
    title: 'Status codes are documented for their operation',
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no response to a documented operation',
  },
  'contract.json-content-type': {
    family: 'contract',
    severity: 'major',
    title: 'Every response with a body is application/json',
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no response had a body',
  },
  'contract.error-shape': {
    family: 'contract',
    severity: 'critical',
    title: 'Error bodies have code, message and status equal to the HTTP status',
    judgedBy: ['observer'],
    exercisedBy: ['unknown-id'],
    unexercised: 'no non-2xx response had a body',
  },
  'list.schema': {
    family: 'contract',
    severity: 'critical',
    title: 'GET /pets answers a bare JSON array of Pet',
    judgedBy: ['observer', 'probe'],
    unexercised: 'no 200 answer to GET /pets',
  },
  'list.limit-respected': {
    family: 'contract',
    severity: 'critical',
    title: 'GET /pets returns at most `limit` animals (20 by default)',
    judgedBy: ['observer', 'probe'],
    unexercised: 'no 200 answer to GET /pets with a limit in 1..100 or none',
  },
  'list.limit-out-of-range': {
    family: 'contract',
    severity: 'major',
    title: 'An out-of-range `limit` gets 400 or is clamped, never 5xx',
    judgedBy: ['observer', 'probe'],
    unexercised: 'no GET /pets with a limit outside 1..100',
  },
  'list.status-filter': {
    family: 'contract',
    severity: 'critical',
    title: 'GET /pets?status=X returns only animals with status X',
    judgedBy: ['observer', 'probe'],
    unexercised: 'no 200 answer to GET /pets with a valid status',
  },
  'list.invalid-status': {
    family: 'contract',
    severity: 'major',
    title: 'An invalid `status` gets 400 or valid animals only, never 5xx',
    judgedBy: ['observer', 'probe'],
    unexercised: 'no GET /pets with a status outside the enum',
  },
  'create.returns-pet': {
    family: 'contract',
    severity: 'critical',
    title: 'POST /pets answers 201 with the created Pet and a new id',
    judgedBy: ['probe'],
    unexercised: 'judged by the create-get probe, which this run did not run',
  },
  'create.rejects-invalid': {
    family: 'contract',
    severity: 'critical',
    title: 'POST /pets rejects invalid bodies with 400 and creates nothing',
    judgedBy: ['probe'],
    unexercised: 'judged by the input probe, which this run did not run',
  },
  'get.returns-pet': {
    family: 'contract',
    severity: 'major',
    title: 'GET /pets/{id} returns the animal just created',
    judgedBy: ['probe'],
    unexercised: 'judged by the create-get probe, which this run did not run',
  },
  'get.unknown-404': {
    family: 'contract',
    severity: 'critical',
    title: 'GET /pets/{id} of an unknown id answers 404',
    judgedBy: ['probe'],
    unexercised: 'judged by the unknown-id probe, which this run did not run',
  },
  'deprecation.behaviour-unchanged': {
    family: 'contract',
    severity: 'major',
    title: 'The deprecated GET /pets/{id} still answers as documented and counts against quota',
    judgedBy: ['probe'],
    unexercised: 'judged by the deprecated probe, which this run did not run',
    // Remaining falling less than the GET and the list explain is a refill or a slide between them on such a limiter.
    defersTo: [...PER_COUNTER, REFILLS_OR_SLIDES(['short-window'])],
  },
  'deprecation.announced': {
    family: 'contract',
    severity: 'advisory',
    title: 'Deprecation and Sunset headers, if sent, are well formed',
    judgedBy: ['probe'],
    unexercised: 'judged by the deprecated probe, which this run did not run',
  },
  'contract.every-endpoint': {
    family: 'contract',
    severity: 'advisory',
    title: 'GET /store/orders, which the interface says exists, is not answered 404 or 405',
    judgedBy: ['observer'],
    // auth's requests without a key; what-counts' with a plan's key, within its quota (enforce's over it get 429).
    exercisedBy: ['auth', 'what-counts'],
    unexercised: 'no request to GET /store/orders',
  },
  // Authentication
  'auth.missing-key': {
    family: 'auth',
    severity: 'critical',
    title: 'No Authorization header gets 401',
    judgedBy: ['observer', 'probe'],
    unexercised: 'no request without Authorization',
  },
  'auth.invalid-key': {
    family: 'auth',
    severity: 'critical',
    title: 'Unknown, empty or non-Bearer credentials get 401',
    judgedBy: ['observer', 'probe'],
    unexercised: 'no request with an invalid credential',
  },
  'auth.challenge': {
    family: 'auth',
    severity: 'minor',
    title: '401 responses carry WWW-Authenticate: Bearer',
    judgedBy: ['observer', 'probe'],
    unexercised: 'no 401 response',
  },
  'auth.no-quota-drain': {
    family: 'auth',
    severity: 'critical',
    title: "Requests with invalid keys do not drain a valid key's quota",
    judgedBy: ['probe'],
    unexercised: 'judged by the quota-drain probe, which this run did not run',
  },
  // Rate-limit headers
  'ratelimit.headers-present': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'X-RateLimit-* headers on every 2xx and 429',
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no 2xx or 429 response',
  },
  'ratelimit.headers-on-errors': {
    family: 'ratelimit',
    severity: 'major',
    title: 'X-RateLimit-* headers on 400, 401 and 404 too',
    judgedBy: ['observer'],
    exercisedBy: ['unknown-id'],
    unexercised: 'no 400, 401 or 404 response',
  },
  'ratelimit.headers-syntax': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'X-RateLimit-* values are plain non-negative integers, 0 <= Remaining <= Limit',
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no response carried X-RateLimit-* headers',
  },
  'ratelimit.limit-matches-plan': {
    family: 'ratelimit',
    severity: 'critical',
    title: "X-RateLimit-Limit equals the plan's per-minute or per-day figure",
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no response to a valid key carried X-RateLimit-Limit',
  },
  'ratelimit.reset-is-timestamp': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'X-RateLimit-Reset is Unix seconds within the window',
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no response carried X-RateLimit-Reset',
  },
  'ratelimit.remaining-decrements': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'Remaining goes down by one per counted request within a window',
    judgedBy: ['observer', 'probe'],
    unexercised: 'no sequential requests on one key within one window',
    defersTo: [
      ...PER_COUNTER,
      { ...PER_COUNTER[0], of: ['fell-further'] },
      {
        check: 'ratelimit.key-isolation',
        when: 'failed-in-run',
        of: ['fell-further'],
        because:
          "Remaining fell further than this key's requests explain, on a target whose keys share a counter: other keys' requests still on their way back when the answer came were counted on it",
      },
      { ...REFILLS_OR_SLIDES(['short-window']), when: 'refills-or-slides-by-reset' },
      SHORT_WINDOW(['short-window']),
      SLID_OUT,
    ],
  },
  'ratelimit.window-consistency': {
    family: 'ratelimit',
    severity: 'major',
    title: 'Each Limit/Remaining/Reset triple describes one window; Remaining never rises within it',
    judgedBy: ['observer'],
    exercisedBy: ['enforce'],
    unexercised: 'no sequence of requests on one key to compare',
    defersTo: [
      ...PER_COUNTER,
      {
        check: 'ratelimit.no-over-admission',
        when: 'failed-in-run',
        of: ['concurrent-rise'],
        because:
          'Remaining rose where requests on the key were in flight together, and the counter loses concurrent requests',
      },
      REFILLS_OR_SLIDES(['concurrent-rise', 'short-window', 'forward-reset']),
      {
        check: 'ratelimit.algorithm',
        when: 'shape-unknown',
        of: ['forward-reset'],
        because:
          "Reset moved forward with the requests, a window after an accepted answer, as a sliding log's does; the answers cannot tell a fixed window from a sliding one, so it is not judged a defect",
      },
      SHORT_WINDOW(['short-window', 'forward-reset']),
      {
        check: 'ratelimit.limit-matches-plan',
        when: 'failed',
        of: ['day-figure'],
        because: "the Limit is the plan's per-day figure on windows of a minute",
      },
    ],
  },
  'ratelimit.enforced': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'No more than the limit is accepted within a minute from a fresh start, then 429',
    judgedBy: ['probe'],
    unexercised: 'judged by the enforce probe, which this run did not run',
  },
  'ratelimit.quota-restored': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'Requests are accepted again once the refused window has ended',
    judgedBy: ['probe'],
    unexercised: 'judged by the restore probe, which this run did not run',
    defersTo: REFUSED_AFTER_WAIT,
  },
  'ratelimit.day-enforced': {
    family: 'ratelimit',
    severity: 'critical',
    title:
      "Exactly the day figure is accepted in the day window, then a 429 to the day's end; the minute figure holds on the way",
    judgedBy: ['probe'],
    unexercised: 'opt-in: run the plan-audit scenario with a key marked "audit": true (the audit spends its day)',
  },
  'ratelimit.no-over-admission': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'A simultaneous burst of Limit+K admits at most Limit',
    judgedBy: ['probe'],
    unexercised: 'judged by the burst probe, which this run did not run',
    defersTo: PER_COUNTER,
  },
  'ratelimit.key-isolation': {
    family: 'ratelimit',
    severity: 'critical',
    title: 'Exhausting one key leaves another key of the same plan unaffected',
    judgedBy: ['probe'],
    unexercised: 'judged by the key-isolation probe, which this run did not run',
    defersTo: PER_COUNTER,
  },
  'ratelimit.what-counts': {
    family: 'ratelimit',
    severity: 'info',
    title: 'Which responses lower Remaining (measured)',
    judgedBy: ['probe'],
    unexercised: 'measured by the what-counts probe, which this run did not run',
  },
  'ratelimit-fields.syntax': {
    family: 'ratelimit',
    severity: 'advisory',
    title: 'The IETF RateLimit / RateLimit-Policy fields, if sent, are well formed',
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no response carried the IETF RateLimit or RateLimit-Policy fields',
  },
  'ratelimit-fields.consistent': {
    family: 'ratelimit',
    severity: 'advisory',
    title: "The IETF fields, if sent, agree with X-RateLimit-* and the plan's figures",
    judgedBy: ['observer'],
    exercisedBy: ['list'],
    unexercised: 'no response carried the IETF fields beside usable X-RateLimit-*',
  },
  'ratelimit.algorithm': {
    family: 'ratelimit',
    severity: 'info',
    title: "The limiter's shape and how many counters answer a key, with its figures (read from the answers)",
    judgedBy: ['observer'],
    exercisedBy: ['enforce'],
    unexercised: 'no sequence of rate-limit headers on one key to read the limiter from',
  },
  // 429 and Retry-After
  'retry-after.present': {
    family: 'retry-after',
    severity: 'critical',
    title: 'Every 429 carries exactly one Retry-After',
    judgedBy: ['observer'],
    exercisedBy: ['enforce'],
    unexercised: 'no 429 response',
  },
  'retry-after.syntax': {
    family: 'retry-after',
    severity: 'major',
    title: 'Retry-After is delay-seconds or an IMF-fixdate',
    judgedBy: ['observer'],
    exercisedBy: ['enforce'],
    unexercised: 'no 429 response',
  },
  'retry-after.plausible': {
    family: 'retry-after',
    severity: 'major',
    title: 'Retry-After is no longer than the time to Reset',
    judgedBy: ['observer'],
    exercisedBy: ['enforce'],
    unexercised: 'no 429 response',
  },
  'retry-after.honest': {
    family: 'retry-after',
    severity: 'major',
    title: `A request after Retry-After (+${RETRY_AFTER_MARGIN_MS} ms) is accepted`,
    judgedBy: ['probe'],
    unexercised: 'judged by the retry-after-honest probe, which this run did not run',
    defersTo: REFUSED_AFTER_WAIT,
  },
  'retry-after.error-body': {
    family: 'retry-after',
    severity: 'advisory',
    title: 'A 429 body, if any, is an Error with status 429',
    judgedBy: ['observer'],
    exercisedBy: ['enforce'],
    unexercised: 'no 429 response with a body',
    defersTo: [
      {
        check: 'contract.error-shape',
        when: 'failed-in-run',
        of: ['same-defect'],
        because: 'the 429 body has the defect found on the other error bodies',
      },
    ],
  },
  // Client behaviour and bans
  'backoff.respects-retry-after': {
    family: 'client',
    severity: 'critical',
    title: 'petload never sends on a key while its Retry-After runs',
    judgedBy: ['observer'],
    exercisedBy: ['retry-after-honest'],
    unexercised: 'no request with a valid key',
  },
  'backoff.no-ban': {
    family: 'client',
    severity: 'critical',
    title: "petload's backoff never gets a key banned at 150% of the plan",
    judgedBy: ['backoff'],
    unexercised: 'judged only by scenarios whose load runs through the backoff policy (e.g. overload-backoff)',
  },
  'ban.probe': {
    family: 'client',
    severity: 'info',
    title: 'Ban threshold, status, duration and recovery (opt-in, sacrificial key)',
    judgedBy: ['probe'],
    unexercised: 'opt-in: run the ban-probe scenario with a key marked "sacrificial": true',
  },
  'load.capacity': {
    family: 'client',
    severity: 'info',
    title: 'Maximum throughput through autocannon: requests/s, latency, non-2xx, errors (measured)',
    judgedBy: ['saturate'],
    unexercised: 'measured only by scenarios with a saturate phase (e.g. capacity)',
  },
} as const satisfies Record<string, CheckMeta>;

export type CheckId = keyof typeof CATALOGUE;
/** The catalogue read through its ids: every deferral names a check of it (one that does not, does not compile). */
export const CHECKS: Readonly<Record<CheckId, CheckMeta<CheckId>>> = CATALOGUE;
export const CHECK_IDS = Object.keys(CATALOGUE) as CheckId[];

/** Threshold checks are named `threshold.<expression>` and are major unless the scenario says otherwise. */
export type ThresholdCheckId = `threshold.${string}`;
export type AnyCheckId = CheckId | ThresholdCheckId;

export function metaOf(id: AnyCheckId): CheckMeta {
  if (id in CATALOGUE) return CATALOGUE[id as CheckId];
  return {
    title: `Threshold ${id.slice('threshold.'.length)}`,
    severity: 'major',
    family: 'client',
    judgedBy: [],
    unexercised: 'no data',
  };
}

/** How the skip reason of a check that no judge recorded anything for begins. */
export const NOT_EXERCISED = 'not exercised: ';

/** The skip reason of a check that no judge recorded anything for. */
export const notExercised = (id: CheckId): string => `${NOT_EXERCISED}${CATALOGUE[id].unexercised}`;

/** The checks a judge judges. */
export const checksJudgedBy = (judge: Judge): CheckId[] =>
  CHECK_IDS.filter((id) => (CATALOGUE[id].judgedBy as readonly Judge[]).includes(judge));

/**
 * The typed info of the checks that record facts (report.json's `checks[].byPlan[].info`): a zod schema per check
 * id, declared with the report's shape in src/report/check-info.ts and read through `infoOf`, never from prose.
 */
export {
  checkInfoSchemas,
  infoOf,
  infoProblems,
  type CheckInfo,
  type InfoCheckId,
  type InfoKey,
  type InfoValue,
} from '../report/check-info.js';
