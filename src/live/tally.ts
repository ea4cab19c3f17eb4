/**
 * What both live sinks (the page and the metrics) read of a run as it stands: the verdict so far from the `check`
 * events, the run's phase, and the keys' standing. Plain folds of events, no I/O.
 */
import type { PlanName } from '../api/plans.js';
import { type AnyCheckId, FAILING_SEVERITIES, metaOf } from '../checks/catalogue.js';
import type { CheckEventStatus, KeyStanding, RunEvent, RunEventOf } from '../core/run-events.js';

/** A check as the run stands: failed (a failing severity), warned (a failure that does not fail the run), passed, skipped. */
export const CHECK_STANDINGS = ['failed', 'warned', 'passed', 'skipped'] as const;
export type CheckStanding = (typeof CHECK_STANDINGS)[number];

/** A failed or warned check on a plan, with the message that last changed it (already redacted). */
export interface CheckProblem {
  readonly id: string;
  readonly plan: PlanName | null;
  readonly standing: 'failed' | 'warned';
  readonly message: string | null;
}

interface PlanOutcome {
  status: CheckEventStatus;
  message: string | null;
}

/** A failure of a check whose severity fails the run is `failed`; of any other, `warned`. */
function failureStanding(id: string): 'failed' | 'warned' {
  return FAILING_SEVERITIES.has(metaOf(id as AnyCheckId).severity) ? 'failed' : 'warned';
}

/**
 * The checks so far, counted as report.json counts them: one per check, failed when a plan failed it, else passed
 * when a plan passed it, else skipped. A threshold counts as major (a scenario may say otherwise; the report knows).
 */
export class CheckTally {
  private readonly byCheck = new Map<string, Map<PlanName | '', PlanOutcome>>();

  add(e: RunEventOf<'check'>): void {
    let plans = this.byCheck.get(e.id);
    if (plans === undefined) {
      plans = new Map();
      this.byCheck.set(e.id, plans);
    }
    const before = plans.get(e.plan ?? '');
    plans.set(e.plan ?? '', { status: e.status, message: e.message ?? before?.message ?? null });
  }

  counts(): Record<CheckStanding, number> {
    const out: Record<CheckStanding, number> = { failed: 0, warned: 0, passed: 0, skipped: 0 };
    for (const [id, plans] of this.byCheck) {
      const statuses = [...plans.values()].map((o) => o.status);
      if (statuses.includes('fail')) out[failureStanding(id)]++;
      else if (statuses.includes('pass')) out.passed++;
      else out.skipped++;
    }
    return out;
  }

  /** Each failed or warned check per plan, failures first, at most `max`. */
  problems(max: number): CheckProblem[] {
    const all: CheckProblem[] = [];
    for (const [id, plans] of this.byCheck) {
      for (const [plan, o] of plans) {
        if (o.status !== 'fail') continue;
        all.push({ id, plan: plan === '' ? null : plan, standing: failureStanding(id), message: o.message });
      }
    }
    all.sort((a, b) => (a.standing === b.standing ? 0 : a.standing === 'failed' ? -1 : 1));
    return all.slice(0, max);
  }
}

/** The report's own count, which the `ended` event carries: it also counts the checks no judge had a word for. */
export function standingsOfSummary(
  summary: NonNullable<RunEventOf<'ended'>['summary']>,
): Record<CheckStanding, number> {
  return { failed: summary.failed, warned: summary.warnings, passed: summary.passed, skipped: summary.skipped };
}

/** Where a run is: before its first send, in its probes, in its load phases, over. */
export const RUN_PHASES = ['starting', 'probes', 'load', 'ended'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];

/** The run's phase after an event: `started` begins the probes, the first load progress the load, `ended` ends it. */
export function phaseAfter(phase: RunPhase, e: RunEvent): RunPhase {
  if (phase === 'ended') return phase;
  if (e.type === 'ended') return 'ended';
  if (e.type === 'phase') return 'load';
  if (e.type === 'started' && phase === 'starting') return 'probes';
  return phase;
}

/** The keys' standing counted by state, as petload_keys has them. */
export const KEY_STATES = ['held_back', 'refused', 'suspected_banned'] as const;
export type KeyState = (typeof KEY_STATES)[number];

/**
 * How many keys are held back now (a Retry-After running), have been refused (a 429) at least once in the run, and
 * are suspected banned.
 */
export function keyStateCounts(keys: readonly KeyStanding[]): Record<KeyState, number> {
  return {
    held_back: keys.filter((k) => k.heldBack).length,
    refused: keys.filter((k) => k.refused > 0).length,
    suspected_banned: keys.filter((k) => k.suspectedBan).length,
  };
}
