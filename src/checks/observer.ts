/**
 * The observer judges every exchange of a run (probes and load alike) as it completes, with the passive,
 * stream and client checks of src/checks/passive/. It is on the hot path of load runs: per exchange it parses
 * a few headers once and keeps only per-key state, never a list of exchanges.
 */
import type { PlanLimits, PlanName } from '../api/plans.js';
import type { Exchange } from '../http/exchange.js';
import type { CheckId } from './catalogue.js';
import type { Ledger } from './ledger.js';
import { judgeChallenge, judgeInvalidKey, judgeMissingKey } from './passive/auth.js';
import { createBackoffJudge } from './passive/client.js';
import { createErrorBodyJudge } from './passive/error-body.js';
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

/** Every check the observer judges, with the reason it gives when a run never called for it. */
const NOT_EXERCISED = {
  'contract.transport': 'no request was sent',
  'contract.no-server-errors': 'no response was received',
  'contract.documented-status': 'no response to a documented operation',
  'contract.json-content-type': 'no response had a body',
  'contract.error-shape': 'no non-2xx response had a body',
  'list.schema': 'no 200 answer to GET /pets',
  'list.limit-respected': 'no 200 answer to GET /pets with a limit in 1..100 or none',
  'list.limit-out-of-range': 'no GET /pets with a limit outside 1..100',
  'list.status-filter': 'no 200 answer to GET /pets with a valid status',
  'list.invalid-status': 'no GET /pets with a status outside the enum',
  'auth.missing-key': 'no request without Authorization',
  'auth.invalid-key': 'no request with an invalid credential',
  'auth.challenge': 'no 401 response',
  'ratelimit.headers-present': 'no 2xx or 429 response',
  'ratelimit.headers-on-errors': 'no 400, 401 or 404 response',
  'ratelimit.headers-syntax': 'no response carried X-RateLimit-* headers',
  'ratelimit.limit-matches-plan': 'no response to a valid key carried X-RateLimit-Limit',
  'ratelimit.reset-is-timestamp': 'no response carried X-RateLimit-Reset',
  'ratelimit.remaining-decrements': 'no sequential requests on one key within one window',
  'ratelimit.window-consistency': 'no sequence of requests on one key to compare',
  'retry-after.present': 'no 429 response',
  'retry-after.syntax': 'no 429 response',
  'retry-after.plausible': 'no 429 response',
  'retry-after.error-body': 'no 429 response with a body',
  'backoff.respects-retry-after': 'no request with a valid key',
  'ratelimit-fields.syntax': 'no response carried the IETF RateLimit or RateLimit-Policy fields',
  'ratelimit-fields.consistent': 'no response carried the IETF fields beside usable X-RateLimit-*',
} as const satisfies Partial<Record<CheckId, string>>;

export type PassiveCheckId = keyof typeof NOT_EXERCISED;
export const PASSIVE_CHECK_IDS = Object.keys(NOT_EXERCISED) as PassiveCheckId[];

export interface ObserverOptions {
  ledger: Ledger;
  /** The figures of each plan judged (enterprise figures come from the keys file). */
  plans: ReadonlyMap<PlanName, PlanLimits>;
  /** A key's own figures by its label, when they differ from its plan's (a keys file entry's perMinute/perDay). */
  keyLimits?: ReadonlyMap<string, PlanLimits>;
  /** How many times faster than real time the run clock runs (for the client check's slack). */
  clockScale: number;
}

export interface Observer {
  /** Judge one completed exchange. Call once per exchange, in completion order. */
  observe(ex: Exchange): void;
  /** Give every observer check that recorded nothing during the run a skip with the reason. */
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
      const scope = scopeOf(ex);
      judgeNoServerErrors(v, r);
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
    finish() {
      errorBodies.finish(opts.ledger);
      stream.finish(opts.ledger);
      const recorded = new Set(opts.ledger.all().map((o) => o.id));
      for (const id of PASSIVE_CHECK_IDS)
        if (!recorded.has(id)) opts.ledger.skip(id, null, `not exercised: ${NOT_EXERCISED[id]}`);
    },
  };
}
