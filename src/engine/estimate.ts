/**
 * How many requests a run will send, worked out before it sends any: what a run against a remote target
 * announces, and what the quota check (quota.ts) compares with each key's remaining daily quota.
 *
 * Probes: what the probe schedule (schedule.ts) plans on each key, on the nominal path (no retry after a 429,
 * no window that rolls over mid-sequence); its duration is the schedule's, plus the load phases'.
 * Load: each phase's planned arrivals (the open models' schedules, exactly), a burst's size, what the limiter
 * lets a closed model through with backoff on, and no bound at all for saturate or a closed model without
 * backoff; `maxRequests` caps the lot. Retries after a 429 come on top of planned arrivals.
 */
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { LoadSection, Phase, Scenario } from '../config/scenario.js';
import { executorOf } from '../executors/registry.js';
import { fmtDuration, fmtWindows } from '../core/duration.js';
import { planWithReasons, scheduleInputOf, type Schedule, type ScheduleInput } from './schedule.js';

export interface PlanEstimate {
  readonly plan: PlanName;
  /** Requests of the probes on the plan's keys. */
  readonly probes: number;
  /** Requests of the load section on the plan's keys; Infinity when nothing bounds it. */
  readonly load: number;
  readonly total: number;
}

export interface Estimate {
  readonly plans: readonly PlanEstimate[];
  /** Requests with no key or a deliberately invalid one (auth probes, reachability): no key's quota. */
  readonly unkeyed: number;
  /** Everything; Infinity when the load is unbounded. */
  readonly total: number;
  /** Why the load has no bound, when it has none. */
  readonly unbounded: readonly string[];
  /** Requests per key label (probes, and the load's share). */
  readonly requestsByKey: Readonly<Record<string, number>>;
  /** The probe schedule the estimate follows. */
  readonly schedule: Schedule;
  /** When the load section starts, run-clock ms: after the probes and the windows their 429s hold (no load: their end). */
  readonly loadAtMs: number;
  /** Expected duration, run-clock ms (probes and load phases), and the run clock's scale. */
  readonly durationMs: number;
  readonly scale: number;
}

/** The reachability check: one request without a key (src/http/reachability.ts). */
const REACHABILITY = 1;

/** A phase's requests on one plan's keys (its executor's estimate); Infinity when nothing bounds them. */
function phaseRequests(phase: Phase, keys: readonly ApiKey[], load: LoadSection): number {
  return executorOf(phase.executor).requests(phase, keys, load);
}

function unboundedReasons(load: LoadSection): string[] {
  if (load.maxRequests !== undefined) return [];
  return load.phases.flatMap((ph, i) => {
    const why = executorOf(ph.executor).unbounded(load);
    return why === null ? [] : [`phase ${i + 1} (${ph.executor}) ${why}`];
  });
}

export interface EstimateOptions {
  /** How many times faster than real time the run clock goes (default 1). */
  readonly scale?: number;
  /** Whether this run runs a probe for a plan (a shard runs only its share); default: every probe. */
  readonly runs?: ScheduleInput['runs'];
  /** The round trip to the target, real ms (default 0: loopback): the schedule's time model (docs/schedule.md). */
  readonly rttMs?: number;
}

/** Run-clock ms the load phases last (a burst: none to speak of). */
function loadDurationMs(load: LoadSection | undefined): number {
  if (!load) return 0;
  // Each phase's own length, for one plan (a saturate phase, which runs plan after plan, counted once).
  return load.phases.reduce((sum, ph) => sum + executorOf(ph.executor).durationMs(ph, 1), 0);
}

/** The requests a run of `scenario` on `plans` with `keys` will send. */
export function estimateRequests(
  scenario: Pick<Scenario, 'probes' | 'load'>,
  keys: readonly ApiKey[],
  plans: readonly PlanName[],
  options: EstimateOptions = {},
): Estimate {
  const scale = options.scale ?? 1;
  const input = scheduleInputOf(scenario.probes, keys, plans, scale, options.runs);
  const schedule = planWithReasons(options.rttMs ? { ...input, rttMs: options.rttMs } : input);
  const load = scenario.load;
  const unkeyed = REACHABILITY + schedule.unkeyed;
  const requestsByKey: Record<string, number> = {};
  for (const k of keys) {
    if (!plans.includes(k.plan)) continue;
    const n = schedule.requestsByKey[k.label] ?? 0;
    if (n > 0) requestsByKey[k.label] = n;
  }

  const perPlan = plans.map((plan): PlanEstimate => {
    const mine = keys.filter((k) => k.plan === plan);
    if (mine.length === 0) return { plan, probes: 0, load: 0, total: 0 };
    const probeRequests = mine.reduce((s, k) => s + (requestsByKey[k.label] ?? 0), 0);
    let loadRequests = 0;
    if (load) {
      for (const phase of load.phases) loadRequests += phaseRequests(phase, mine, load);
      loadRequests = Math.min(loadRequests, load.maxRequests ?? Number.POSITIVE_INFINITY);
    }
    // The load goes round-robin over the plan's keys.
    if (loadRequests > 0)
      for (const k of mine) requestsByKey[k.label] = (requestsByKey[k.label] ?? 0) + loadRequests / mine.length;
    return { plan, probes: probeRequests, load: loadRequests, total: probeRequests + loadRequests };
  });

  const allLoad = Math.min(
    perPlan.reduce((s, p) => s + p.load, 0),
    load?.maxRequests ?? Number.POSITIVE_INFINITY,
  );
  const total = perPlan.reduce((s, p) => s + p.probes, 0) + allLoad + unkeyed;
  // The load starts once the probes are done and no window a probe's 429 spent holds a key (docs/schedule.md).
  const loadAtMs = load ? Math.max(schedule.durationMs, ...schedule.held.map((h) => h.until)) : schedule.durationMs;
  const durationMs = loadAtMs + loadDurationMs(load);
  return {
    plans: perPlan,
    unkeyed,
    total,
    unbounded: load ? unboundedReasons(load) : [],
    requestsByKey,
    schedule,
    loadAtMs,
    durationMs,
    scale,
  };
}

/** A count for people: `1,234`, or `unbounded`. */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? Math.ceil(n).toLocaleString('en-US') : 'unbounded';
}

/** One line: the total, then each plan's share (probes and load), then the requests without a key. */
export function describeEstimate(e: Estimate): string {
  const plans = e.plans.map(
    (p) => `${p.plan} ${formatCount(p.total)} (probes ${formatCount(p.probes)}, load ${formatCount(p.load)})`,
  );
  const why = e.unbounded.length > 0 ? `; no upper bound: ${e.unbounded.join('; ')}` : '';
  return `about ${formatCount(e.total)} requests: ${plans.join(', ')}; ${formatCount(e.unkeyed)} without a valid key${why}`;
}

/** The expected real duration, for people: `about 2 min 02 s (2.0 minute windows)`. */
export function describeDuration(e: Estimate): string {
  const real = e.durationMs / e.scale;
  const clock = e.scale === 1 ? '' : ` of real time (${fmtDuration(e.durationMs)} on the ${e.scale}x clock)`;
  return `about ${fmtDuration(real)}${clock}, ${fmtWindows(e.durationMs / MINUTE_MS)} minute windows of the target`;
}

/** One line per key: the requests the run will spend on it. */
export function describeKeySpend(e: Estimate): string[] {
  return Object.entries(e.requestsByKey).map(([label, n]) => `${label}: ${formatCount(n)} requests`);
}
