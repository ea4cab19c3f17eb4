/**
 * A probe's own bounds: persistent refusals, server errors or silences end it with its reason, and so does its own
 * time, and the other probes go on (the run's deadline, deadline.ts, bounds the whole).
 *
 * - Failures in a row: MAX_FAILURES_IN_A_ROW requests of the probe that were refused (429), answered with a 5xx, or
 *   got no answer (a timeout, a reset), one after another, end it. A request counts only if it was sent after the
 *   previous failure had come back: a herd of requests in flight together that all fail is one failure, as it is for
 *   the backoff. Any other answer to a request sent after the last failure ends the streak. A deliberate knock
 *   (intent `knock`) counts for nothing, and refusals do not count for the probes that declare them their business
 *   (`expectsRefusals` in their needs: the ban probe, the plan audit, the probes that wait a 429 out).
 * - Its own time: its design on a compliant target, as its needs state it (its planned span, the windows it waits
 *   out by itself, `waits`, and the bounded waits beyond its plan, `beyondPlanMs`), plus a margin of its planned
 *   span again and two minute windows of the run clock; never less than one minute of real time.
 *
 * When a bound is reached, the probe's waits end at once (its signal aborts), its next send throws ProbeEnded, and
 * whatever it would still judge is recorded as a skip with the reason instead (it would judge on a sequence cut
 * short); the runner notes the reason in the report and skips the probe's checks with it.
 *
 * A skip caused by the target points at a failure (end-cause.ts, docs/attribution.md): what the target did to the
 * probe's requests (the failures of the streak that ended it, or, at its own time bound, every fault it saw) is owned
 * by a check, which fails with that evidence unless it already failed on the plan (`attributeEnd`); the probe's
 * checks skip naming it, and are marked cut short with it (the verdict rule, src/report/verdict.ts, fails a run whose
 * critical or major check was cut short with no owner failed).
 */
import { setMaxListeners } from 'node:events';
import type { PlanName } from '../api/plans.js';
import type { AnyCheckId, CheckId } from '../checks/catalogue.js';
import type { Ledger } from '../checks/ledger.js';
import { deferralsOf } from '../checks/deferrals.js';
import { see, type SkipReason } from '../checks/skip-reason.js';
import type { Clock } from '../core/clock.js';
import type { Exchange } from '../http/exchange.js';
import type { Probe, ProbeDesign } from '../probes/probe.js';
import { fmtDuration } from '../core/duration.js';
import { MINUTE_MS } from '../api/plans.js';
import { type Fault, type FaultOwner, NO_PROMISE, type RefusalLookup, type Seen, seenOf } from './end-cause.js';
import { RETRY_AFTER_MARGIN_MS, TOLERANCE_MS } from '../http/server-time.js';

export const MAX_FAILURES_IN_A_ROW = 3;
/** Real ms a probe's own time bound is never below (a busy machine on a scaled clock). */
export const PROBE_FLOOR_REAL_MS = 60_000;
/**
 * One wait a probe does by itself (`waits`), run-clock ms: a minute window to its end, with Reset's and Date's
 * rounding on both sides and the margin after a Retry-After.
 */
export const OWN_WAIT_MS = MINUTE_MS + 2 * TOLERANCE_MS + RETRY_AFTER_MARGIN_MS;
/** The margin beyond a probe's design: its planned span again, and this many minute windows. */
const MARGIN_WINDOWS = 2;

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

/** What a probe takes on a compliant target, run-clock ms: its planned span, its own waits, what lies beyond its plan. */
export function probeDesignMs(design: ProbeDesign, plannedMs: number): number {
  return plannedMs + (design.waits ?? 0) * OWN_WAIT_MS + (design.beyondPlanMs ?? 0);
}

/** The probe's own time bound, real ms: its design (probeDesignMs) and the margin, never less than the floor. */
export function probeTimeBoundMs(design: ProbeDesign, plannedMs: number, scale: number): number {
  const marginMs = plannedMs + MARGIN_WINDOWS * MINUTE_MS;
  return Math.max((probeDesignMs(design, plannedMs) + marginMs) / scale, PROBE_FLOOR_REAL_MS);
}

/** Why a probe was ended, and what the target did that checks own. */
export interface EndCause {
  readonly reason: string;
  /** The faults behind it, one per owning check (the latest of each). */
  readonly faults: readonly Fault[];
  /** Refusals among them that broke no promise petload can show (see end-cause.ts). */
  readonly refused: boolean;
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
  /** Why the probe was ended and what of the target's doing checks own, or null. */
  cause(): EndCause | null;
  dispose(): void;
}

/**
 * The checks that own why a probe ended: the owners of its faults; else, when refusals ended it, the checks that
 * failed its 429s' Retry-After on the plan (no wait was promised to keep). Empty: none could be named.
 */
export function ownersOf(cause: EndCause, ledger: Ledger, plan: PlanName | null): CheckId[] {
  const owners: CheckId[] = [...new Set<FaultOwner>(cause.faults.map((f) => f.owner))];
  if (owners.length > 0 || !cause.refused) return owners;
  return NO_PROMISE.filter((id) => ledger.failedOn(id, plan));
}

/** The skip reason of a check of a probe that was ended: the reason, naming the checks that own it. */
function endedReason(cause: EndCause, owners: readonly CheckId[]): SkipReason {
  const text = `not judged: the probe ended early (${cause.reason})`;
  const [first, ...rest] = owners;
  return first === undefined ? text : see(text, first, ...rest);
}

/**
 * A probe ended early: each fault's owner fails with its evidence unless it already failed on the fault's plan, and
 * the probe's other checks (`checks`) skip naming the owners, marked cut short with them.
 */
export function attributeEnd(cause: EndCause, ledger: Ledger, checks: readonly AnyCheckId[], plan: PlanName | null) {
  for (const f of cause.faults) {
    if (ledger.failedOn(f.owner, f.plan)) continue;
    // A refusal after a kept wait is held to the end of the run: its check's deferrals say whether requests petload
    // did not send were shown to be counted against the key.
    if (f.owner === 'retry-after.honest' || f.owner === 'ratelimit.quota-restored')
      ledger.hold(f.owner, f.plan, { kind: 'refused-after-wait', count: 1, first: [{ ex: f.ex, message: f.message }] });
    else ledger.fail(f.owner, f.plan, f.message, f.ex);
  }
  const owners = ownersOf(cause, ledger, plan);
  const reason = endedReason(cause, owners);
  const marked = withDeferrals(owners);
  for (const id of checks) if (!(owners as readonly string[]).includes(id)) ledger.skip(id, plan, reason, marked);
}

/** The owners and the checks their failures for an early end may defer to (the verdict reads a failure of any). */
function withDeferrals(owners: readonly CheckId[]): CheckId[] {
  const deferred = owners.flatMap((id) =>
    deferralsOf(id, null)
      .concat(deferralsOf(id, 'refused-after-wait'))
      .map((d) => d.check),
  );
  return [...new Set([...owners, ...deferred])];
}

/**
 * A ledger whose verdicts (failures held to the end of the run too) become skips, and passes nothing, once `cause`
 * says why the probe ended. A verdict on a check that owns the cause is dropped: attributeEnd fails it with the
 * cause's evidence.
 */
function boundLedger(ledger: Ledger, cause: () => EndCause | null): Ledger {
  const g = Object.create(ledger) as Ledger;
  const skip = (id: AnyCheckId, plan: Parameters<Ledger['skip']>[1], c: EndCause) => {
    const owners = ownersOf(c, ledger, plan);
    if (!(owners as readonly string[]).includes(id))
      ledger.skip(id, plan, endedReason(c, owners), withDeferrals(owners));
  };
  g.pass = (id, plan, n) => {
    if (cause() === null) ledger.pass(id, plan, n);
  };
  g.fail = (id, plan, message, ex) => {
    const c = cause();
    if (c === null) ledger.fail(id, plan, message, ex);
    else skip(id, plan, c);
  };
  g.judge = (id, plan, ok, message, ex) => {
    const c = cause();
    if (c === null) return ledger.judge(id, plan, ok, message, ex);
    skip(id, plan, c);
    return ok;
  };
  g.hold = (id, plan, held) => {
    const c = cause();
    if (c === null) ledger.hold(id, plan, held);
    else skip(id, plan, c);
  };
  g.skip = ledger.skip.bind(ledger);
  g.info = ledger.info.bind(ledger);
  g.all = ledger.all.bind(ledger);
  g.absorb = ledger.absorb.bind(ledger);
  return g;
}

/** The faults among what was seen, the latest of each owner, and whether any refusal owned nothing. */
function causeOf(reason: string, seen: readonly Seen[]): EndCause {
  const byOwner = new Map<FaultOwner, Fault>();
  for (const s of seen) if (s !== 'refused') byOwner.set(s.owner, s);
  return { reason, faults: [...byOwner.values()], refused: seen.includes('refused') };
}

export function boundProbe(
  probe: Pick<Probe, 'name' | 'needs'>,
  o: {
    clock: Clock;
    ledger: Ledger;
    signal: AbortSignal;
    timeBoundMs: number;
    /** The probe's checks (its own check of a broken promise owns it first). */
    checks?: readonly CheckId[];
    /** The key states' record of a 429 (absent: no refusal is read as a broken promise). */
    refusalOf?: RefusalLookup;
  },
): ProbeBound {
  const own = new AbortController();
  const signal = AbortSignal.any([o.signal, own.signal]);
  setMaxListeners(0, signal);
  const refusalsCount = probe.needs.expectsRefusals !== true;
  const refusalOf: RefusalLookup = o.refusalOf ?? (() => null);
  let cause: EndCause | null = null;
  let streak = 0;
  const kinds = new Set<Failure>();
  /** What the failures of the streak were, and every failure the probe met (for its time bound). */
  let streakSeen: Seen[] = [];
  const allSeen: Seen[] = [];
  let lastFailureAt = Number.NEGATIVE_INFINITY;
  const end = (why: string, seen: readonly Seen[]) => {
    if (cause !== null) return;
    cause = causeOf(why, seen);
    own.abort();
  };
  const timer = setTimeout(
    () => end(`its own time bound passed: ${fmtDuration(o.timeBoundMs)} of real time`, allSeen),
    o.timeBoundMs,
  );

  /** Count one outcome: a failure (of the last exchange `ex`), or an answer. */
  const count = (failure: Failure | null, ex: Exchange) => {
    if (ex.timing.sent < lastFailureAt) return;
    if (failure === null) {
      streak = 0;
      kinds.clear();
      streakSeen = [];
      return;
    }
    const seen = seenOf(ex, probe.name, refusalOf, o.checks ?? []);
    allSeen.push(seen);
    streakSeen.push(seen);
    streak++;
    kinds.add(failure);
    lastFailureAt = ex.timing.done;
    if (streak >= MAX_FAILURES_IN_A_ROW)
      end(
        `${streak} requests in a row ${[...kinds].join(' or ')}; the last ${ex.method} ${ex.path} -> ${outcomeText(ex)}`,
        streakSeen,
      );
  };
  const ended = () => cause?.reason ?? null;
  const refuse = () => {
    if (cause !== null) throw new ProbeEnded(cause.reason);
  };
  return {
    signal,
    ledger: boundLedger(o.ledger, () => cause),
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
    cause: () => cause,
    dispose: () => clearTimeout(timer),
  };
}
