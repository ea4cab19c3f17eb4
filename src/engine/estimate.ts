/**
 * How many requests a run will send, worked out before it sends any: what a run against a remote target
 * announces, and what the quota check (quota.ts) compares with each key's remaining daily quota.
 *
 * Probes: a fixed cost each, per plan, from the sequences in src/probes (the nominal path: no retry after a
 * 429, no window that rolls over mid-sequence). Probes that need a 429 to wait out reuse the one an earlier
 * probe left, as the probes do (src/probes/window.ts, Refusals), else exhaust a key of their own.
 * Load: each phase's planned arrivals (the open models' schedules, exactly), a burst's size, what the limiter
 * lets a closed model through with backoff on, and no bound at all for saturate or a closed model without
 * backoff; `maxRequests` caps the lot. Retries after a 429 come on top of planned arrivals.
 */
import type { PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { LoadSection, Phase, Scenario } from '../config/scenario.js';
import { executorOf } from '../executors/registry.js';
import type { ProbeName } from '../probes/names.js';
import { banProbeMaxRequests } from '../probes/ban.js';
import { probesInOrder } from '../probes/index.js';

export interface PlanEstimate {
  readonly plan: PlanName;
  /** Requests of the probes on the plan's keys (and the quota read, one per key, when asked for). */
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
}

interface PlanFigures {
  /** Requests a fresh minute window accepts: the smaller of the plan's figures (the largest among its keys). */
  readonly quota: number;
  readonly keys: number;
  readonly sacrificial: boolean;
}

/** 429s left by earlier probes of one plan, for the probes that need one to wait out. */
class RefusalPool {
  private n = 0;
  leave(): void {
    this.n++;
  }
  /** Requests it costs to get a 429: none when one is left over, else exhausting a fresh key. */
  take(quota: number): number {
    if (this.n > 0) {
      this.n--;
      return 0;
    }
    return quota + 1;
  }
}

interface ProbeCost {
  /** Requests on the plan's keys. */
  keyed(p: PlanFigures, pool: RefusalPool): number;
  /** Requests without a valid key, per plan (per run for a probe that is not per plan). */
  readonly unkeyed: number;
}

const fixed = (keyed: number, unkeyed = 0): ProbeCost => ({ keyed: () => keyed, unkeyed });

/** One entry per probe (a missing or extra name is a type error), following the sequences in src/probes. */
export const PROBE_COSTS: Readonly<Record<ProbeName, ProbeCost>> = {
  // 3 endpoints x 4 credentials, none of them a valid key.
  auth: fixed(0, 12),
  // 10 invalid bodies, then 4 lists looking for what must not have been created.
  input: fixed(14),
  list: fixed(16),
  // A list, 2 creates, 2 gets.
  'create-get': fixed(5),
  // A list, 2 unknown ids, a malformed id.
  'unknown-id': fixed(4),
  // A list, a get, a list (and a create when the list is empty).
  deprecated: fixed(4),
  enforce: {
    keyed: (p, pool) => {
      pool.leave();
      return p.quota + 1;
    },
    unkeyed: 0,
  },
  'retry-after-honest': { keyed: (p, pool) => pool.take(p.quota) + 1, unkeyed: 0 },
  'key-isolation': {
    keyed: (p, pool) => {
      if (p.keys < 2) return 0;
      pool.leave();
      return 1 + p.quota + 1 + 1;
    },
    unkeyed: 0,
  },
  restore: { keyed: (p, pool) => pool.take(p.quota) + 1, unkeyed: 0 },
  // Limit+5 simultaneous requests (src/probes/ratelimit.ts, BURST_EXTRA).
  burst: {
    keyed: (p, pool) => {
      pool.leave();
      return p.quota + 5;
    },
    unkeyed: 0,
  },
  // Two valid requests around 50 with invalid keys.
  'quota-drain': fixed(2, 50),
  'what-counts': fixed(4),
  // The most the ban probe may send: its rounds, knocks and polls are bounded (src/probes/ban.ts).
  ban: { keyed: (p) => (p.sacrificial ? banProbeMaxRequests(p.quota) : 0), unkeyed: 0 },
};

/** The reachability check: one request without a key (src/http/reachability.ts). */
const REACHABILITY = 1;

function figuresOf(keys: readonly ApiKey[]): PlanFigures {
  return {
    quota: Math.max(0, ...keys.map((k) => Math.min(k.limits.perMinute, k.limits.perDay))),
    keys: keys.length,
    sacrificial: keys.some((k) => k.sacrificial),
  };
}

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
  /** Count the one request per key that reads its remaining daily quota before a remote run. */
  readonly quotaRead?: boolean;
}

/** The requests a run of `scenario` on `plans` with `keys` will send. */
export function estimateRequests(
  scenario: Pick<Scenario, 'probes' | 'load'>,
  keys: readonly ApiKey[],
  plans: readonly PlanName[],
  options: EstimateOptions = {},
): Estimate {
  const probes = probesInOrder(scenario.probes);
  const load = scenario.load;
  let unkeyed = REACHABILITY;
  for (const p of probes) if (!p.perPlan) unkeyed += PROBE_COSTS[p.name].unkeyed;

  const perPlan = plans.map((plan): PlanEstimate => {
    const mine = keys.filter((k) => k.plan === plan);
    if (mine.length === 0) return { plan, probes: 0, load: 0, total: 0 };
    const figures = figuresOf(mine);
    const pool = new RefusalPool();
    let probeRequests = options.quotaRead ? mine.length : 0;
    for (const p of probes) {
      if (!p.perPlan) continue;
      probeRequests += PROBE_COSTS[p.name].keyed(figures, pool);
      unkeyed += PROBE_COSTS[p.name].unkeyed;
    }
    let loadRequests = 0;
    if (load) {
      for (const phase of load.phases) loadRequests += phaseRequests(phase, mine, load);
      loadRequests = Math.min(loadRequests, load.maxRequests ?? Number.POSITIVE_INFINITY);
    }
    return { plan, probes: probeRequests, load: loadRequests, total: probeRequests + loadRequests };
  });

  const allLoad = Math.min(
    perPlan.reduce((s, p) => s + p.load, 0),
    load?.maxRequests ?? Number.POSITIVE_INFINITY,
  );
  const total = perPlan.reduce((s, p) => s + p.probes, 0) + allLoad + unkeyed;
  return { plans: perPlan, unkeyed, total, unbounded: load ? unboundedReasons(load) : [] };
}

/** A count for people: `1,234`, or `unbounded`. */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? Math.ceil(n).toLocaleString('en-US') : 'unbounded';
}

/** One line: the total, then each plan's share (probes and load), then the requests without a key. */
export function describeEstimate(e: Estimate): string {
  const plans = e.plans.map((p) => `${p.plan} ${formatCount(p.total)} (probes ${formatCount(p.probes)}, load ${formatCount(p.load)})`);
  const why = e.unbounded.length > 0 ? `; no upper bound: ${e.unbounded.join('; ')}` : '';
  return `about ${formatCount(e.total)} requests: ${plans.join(', ')}; ${formatCount(e.unkeyed)} without a valid key${why}`;
}
