/**
 * A probe's own bounds: persistent refusals, server errors or silences end it with its reason, and so does its own
 * time, and the other probes go on (the run's deadline, deadline.ts, bounds the whole).
 *
 * - Failures in a row: MAX_FAILURES_IN_A_ROW requests of the probe that were refused (429), answered with a 5xx, or
 *   got no answer (a timeout, a reset), one after another, end it. A request counts only if it was sent after the
 *   previous failure had come back: a herd of requests in flight together that all fail is one failure, as it is for
 *   the backoff. Any other answer to a request sent after the last failure ends the streak. A deliberate knock
 *   (intent `knock`) counts for nothing, and refusals do not count for the probes whose purpose they are (the ban
 *   probe, the plan audit).
 * - Its own time: twice its planned length plus two minute windows of the run clock (plus what it declares it may
 *   wait beyond its plan, `beyondPlanMs`), never less than one minute of real time.
 *
 * When a bound is reached, the probe's waits end at once (its signal aborts), its next send throws ProbeEnded, and
 * whatever it would still judge is recorded as a skip with the reason instead (it would judge on a sequence cut
 * short); the runner notes the reason in the report and skips the probe's checks with it.
 */
import { setMaxListeners } from 'node:events';
import type { AnyCheckId } from '../checks/catalogue.js';
import type { Ledger } from '../checks/ledger.js';
import type { Clock } from '../core/clock.js';
import type { Exchange } from '../http/exchange.js';
import type { ProbeName } from '../probes/names.js';
import { fmtDuration } from './schedule.js';
import { MINUTE_MS } from '../api/plans.js';

export const MAX_FAILURES_IN_A_ROW = 3;
/** Real ms a probe's own time bound is never below (a busy machine on a scaled clock). */
export const PROBE_FLOOR_REAL_MS = 60_000;
/** Probes whose purpose is to be refused: their refusals are no failures. */
const REFUSALS_EXPECTED: ReadonlySet<ProbeName> = new Set<ProbeName>(['ban', 'plan-audit']);

/** Thrown by a probe's send once its bounds have ended it: the runner catches it, the run goes on. */
export class ProbeEnded extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ProbeEnded';
  }
}

type Failure = 'were refused (429)' | 'got a server error' | 'got no answer';

function failureOf(ex: Exchange, refusalsCount: boolean): Failure | null | 'ignore' {
  if (ex.intent === 'knock' || ex.error?.kind === 'aborted') return 'ignore';
  if (ex.status === null) return 'got no answer';
  if (ex.status >= 500) return 'got a server error';
  if (ex.status === 429) return refusalsCount ? 'were refused (429)' : 'ignore';
  return null;
}

const outcomeText = (ex: Exchange) => (ex.status === null ? `no answer (${ex.error?.kind ?? 'none'})` : `${ex.status}`);

/** The probe's own time bound, real ms, from its planned run-clock length. */
export function probeTimeBoundMs(plannedMs: number, beyondPlanMs: number, scale: number): number {
  return Math.max((2 * plannedMs + 2 * MINUTE_MS + beyondPlanMs) / scale, PROBE_FLOOR_REAL_MS);
}

export interface ProbeBound {
  /** Aborts with the run's signal, or when the probe is ended. */
  readonly signal: AbortSignal;
  /** The ledger the probe judges through: once ended, its verdicts become skips with the reason. */
  readonly ledger: Ledger;
  /** Send through the bound: refused once ended, and each exchange counted. */
  send(send: () => Promise<Exchange>): Promise<Exchange>;
  sendMany(send: () => Promise<Exchange[]>): Promise<Exchange[]>;
  /** Why the probe was ended, or null. */
  ended(): string | null;
  dispose(): void;
}

/** A ledger whose verdicts become skips (and passes nothing) once `ended` says why. */
function boundLedger(ledger: Ledger, ended: () => string | null): Ledger {
  const g = Object.create(ledger) as Ledger;
  const skip = (id: AnyCheckId, plan: Parameters<Ledger['skip']>[1], why: string) =>
    ledger.skip(id, plan, `not judged: the probe ended early (${why})`);
  g.pass = (id, plan, n) => {
    if (ended() === null) ledger.pass(id, plan, n);
  };
  g.fail = (id, plan, message, ex) => {
    const why = ended();
    if (why === null) ledger.fail(id, plan, message, ex);
    else skip(id, plan, why);
  };
  g.judge = (id, plan, ok, message, ex) => {
    const why = ended();
    if (why === null) return ledger.judge(id, plan, ok, message, ex);
    skip(id, plan, why);
    return ok;
  };
  g.skip = ledger.skip.bind(ledger);
  g.info = ledger.info.bind(ledger);
  g.all = ledger.all.bind(ledger);
  g.absorb = ledger.absorb.bind(ledger);
  return g;
}

export function boundProbe(
  probe: ProbeName,
  o: { clock: Clock; ledger: Ledger; signal: AbortSignal; timeBoundMs: number },
): ProbeBound {
  const own = new AbortController();
  const signal = AbortSignal.any([o.signal, own.signal]);
  setMaxListeners(0, signal);
  const refusalsCount = !REFUSALS_EXPECTED.has(probe);
  let reason: string | null = null;
  let streak = 0;
  const kinds = new Set<Failure>();
  let lastFailureAt = Number.NEGATIVE_INFINITY;
  const end = (why: string) => {
    if (reason !== null) return;
    reason = why;
    own.abort();
  };
  const timer = setTimeout(
    () => end(`its own time bound passed: ${fmtDuration(o.timeBoundMs)} of real time`),
    o.timeBoundMs,
  );

  /** Count one outcome: a failure (of the last exchange `ex`), or an answer. */
  const count = (failure: Failure | null, ex: Exchange) => {
    if (ex.timing.sent < lastFailureAt) return;
    if (failure === null) {
      streak = 0;
      kinds.clear();
      return;
    }
    streak++;
    kinds.add(failure);
    lastFailureAt = ex.timing.done;
    if (streak >= MAX_FAILURES_IN_A_ROW)
      end(
        `${streak} requests in a row ${[...kinds].join(' or ')}; the last ${ex.method} ${ex.path} -> ${outcomeText(ex)}`,
      );
  };
  const ended = () => reason;
  const refuse = () => {
    if (reason !== null) throw new ProbeEnded(reason);
  };
  return {
    signal,
    ledger: boundLedger(o.ledger, ended),
    async send(send) {
      refuse();
      const ex = await send();
      const f = failureOf(ex, refusalsCount);
      if (f !== 'ignore') count(f, ex);
      return ex;
    },
    async sendMany(send) {
      refuse();
      const all = await send();
      const kinds = all.map((ex) => failureOf(ex, refusalsCount));
      const answered = all.find((_, i) => kinds[i] === null);
      const failed = all.findLast((_, i) => kinds[i] !== null && kinds[i] !== 'ignore');
      // Sent together: one outcome, an answer if any request was answered.
      if (answered) count(null, answered);
      else if (failed) count(kinds[all.indexOf(failed)] as Failure, failed);
      return all;
    },
    ended,
    dispose: () => clearTimeout(timer),
  };
}
