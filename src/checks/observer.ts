/**
 * The observer judges every exchange of a run (probes and load alike) as it completes, with the passive,
 * stream and client checks of src/checks/passive/. It is on the hot path of load runs: per exchange it parses
 * a few headers once and keeps only per-key state, never a list of exchanges.
 */
import type { PlanLimits, PlanName } from '../api/plans.js';
import type { Exchange } from '../http/exchange.js';
import { checksJudgedBy, notExercised } from './catalogue.js';
import type { RunFacts } from './deferrals.js';
import type { Ledger } from './ledger.js';
import { judgeChallenge, judgeInvalidKey, judgeMissingKey } from './passive/auth.js';
import { createBackoffJudge } from './passive/client.js';
import { createErrorBodyJudge } from './passive/error-body.js';
import { judgeEveryEndpoint, MISSING_ENDPOINT_HEADERS } from './passive/every-endpoint.js';
import {
  judgeDocumentedStatus,
  judgeErrorShape,
  judgeJsonContentType,
  judgeNoServerErrors,
  judgeTransport,
} from './passive/contract.js';
import {
  judgeInvalidStatus,
  judgeLimitOutOfRange,
  judgeLimitRespected,
  judgeListSchema,
  judgeStatusFilter,
  type KnownPets,
} from './passive/list.js';
import { readRateLimit } from './passive/ratelimit.js';
import { judgeRateLimitFields } from './passive/ratelimit-fields.js';
import { createScopeReader } from './passive/request.js';
import { judgeRetryAfter } from './passive/retry-after.js';
import { createStreamJudge } from './passive/stream.js';
import { createRecorder, createViewer } from './passive/view.js';

/** Every check the observer judges (the catalogue's `judgedBy`). */
export const PASSIVE_CHECK_IDS = checksJudgedBy('observer');
export type PassiveCheckId = (typeof PASSIVE_CHECK_IDS)[number];

export interface ObserverOptions {
  ledger: Ledger;
  /** The figures of each plan judged (enterprise figures come from the keys file). */
  plans: ReadonlyMap<PlanName, PlanLimits>;
  /** A key's own figures by its label, when they differ from its plan's (a keys file entry's perMinute/perDay). */
  keyLimits?: ReadonlyMap<string, PlanLimits>;
  /** How many times faster than real time the run clock runs (for the client check's slack). */
  clockScale: number;
}

/** The observer reads the run's facts the deferrals between checks depend on (src/checks/deferrals.ts). */
export interface Observer extends RunFacts {
  /** Judge one completed exchange. Call once per exchange, in completion order. */
  observe(ex: Exchange): void;
  /**
   * Hand what the passive checks held to the ledger, and give every observer check that recorded nothing during
   * the run a skip with the reason. The deferrals are resolved after (src/checks/echoes.ts).
   */
  finish(): void;
}

export function createObserver(opts: ObserverOptions): Observer {
  const r = createRecorder(opts.ledger);
  const view = createViewer(opts.plans, opts.keyLimits);
  const backoff = createBackoffJudge(opts.clockScale);
  const stream = createStreamJudge();
  const errorBodies = createErrorBodyJudge();
  // What this run has parsed of requests and bodies already: it dies with the observer, with the run.
  const scopeOf = createScopeReader();
  const knownPets: KnownPets = new WeakSet();

  return {
    observe(ex) {
      const v = view(ex);
      judgeTransport(v, r);
      if (v.status === null) {
        stream(v, null, r);
        backoff(v, null, r);
        return;
      }
      judgeNoServerErrors(v, r);
      if (judgeEveryEndpoint(v, r)) {
        // A missing endpoint the interface names: only its absence is judged, and the client's own behaviour.
        stream(v, MISSING_ENDPOINT_HEADERS, r);
        backoff(v, null, r);
        return;
      }
      const scope = scopeOf(ex);
      judgeDocumentedStatus(v, scope, r);
      judgeJsonContentType(v, r);
      errorBodies.sawErrorShape(judgeErrorShape(v, r));
      errorBodies.judge(v, r);
      if (scope.list !== null) {
        const list = judgeListSchema(v, r, knownPets);
        judgeLimitRespected(v, scope.list, list, r);
        judgeLimitOutOfRange(v, scope.list, list, r);
        judgeInvalidStatus(v, scope.list, list, r);
        judgeStatusFilter(v, scope.list, list, r);
      }
      judgeMissingKey(v, r);
      judgeInvalidKey(v, r);
      judgeChallenge(v, r);
      const rl = readRateLimit(v, r);
      judgeRateLimitFields(v, rl, r);
      const wait = judgeRetryAfter(v, rl, r);
      stream(v, rl, r);
      backoff(v, wait, r);
    },
    countersOf: (plan) => stream.counters.countersOf(plan),
    limiterOf: (plan) => stream.limiterOf(plan),
    finish() {
      errorBodies.finish(opts.ledger);
      stream.finish(opts.ledger);
      const recorded = new Set(opts.ledger.all().map((o) => o.id));
      for (const id of PASSIVE_CHECK_IDS) if (!recorded.has(id)) opts.ledger.skip(id, null, notExercised(id));
    },
  };
}
