/**
 * The probe schedule: which probe runs on which key, in which of the key's minute windows, and when — worked out
 * before anything is sent, from the keys and the probes alone (a pure function, no I/O).
 *
 * A minute window is the scarce thing. A probe that must see a window from its first request (enforce, burst)
 * gets a key of its own; the probes that wait out a 429 (retry-after-honest, restore) take the 429 those left
 * and run in the next window of the same key; probes that only need headroom (the contract probes, what-counts,
 * quota-drain, key-isolation) go where a window already open has room. Keys of one plan, and the plans, run side
 * by side; only two lanes are shared: requests without a valid key (auth, quota-drain), which a target may limit
 * per client address, and the simultaneous bursts, which run one at a time.
 *
 * With three keys per plan the whole pass takes about two windows: the one where quotas are spent and the one
 * where they come back. With fewer keys the same probes queue on fewer windows; `reasons` says what waits.
 */
import type { PlanName } from '../api/plans.js';
import { MINUTE_S } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { ProbeName } from '../probes/names.js';
import { banProbeMaxRequests } from '../probes/ban.js';
import { PROBE_REGISTRY } from '../probes/index.js';
import { BURST_EXTRA } from '../probes/ratelimit.js';

export interface ScheduleKey {
  readonly label: string;
  /** Requests a fresh minute window accepts (the smaller of the key's figures). */
  readonly quota: number;
  readonly sacrificial: boolean;
}

export interface SchedulePlan {
  readonly plan: PlanName;
  readonly keys: readonly ScheduleKey[];
}

export interface ScheduleInput {
  readonly plans: readonly SchedulePlan[];
  /** The probes of the scenario (any order; the schedule decides). */
  readonly probes: readonly ProbeName[];
  /** How many times faster than real time the run clock goes (1: a real clock). */
  readonly scale?: number;
  /** Requests without a valid key a target is assumed to accept per client address and minute. */
  readonly addressBudget?: number;
  /** Real milliseconds one request takes, one after another (loopback: about 1). */
  readonly requestMs?: number;
  /** Whether this run runs a probe for a plan (null: a probe not per plan); a shard runs only its share. Default: all. */
  readonly runs?: (probe: ProbeName, plan: PlanName | null) => boolean;
}

/** What a step needs of its key's window. */
export type StepNeed =
  /** Its own window from the first request (an unused key, or one whose window has ended). */
  | 'fresh'
  /** A 429 left by an earlier step on the key, to wait out; runs in the key's next window. */
  | 'refusal'
  /** Room in the window open on the key (or a new one). */
  | 'headroom'
  /** No key: requests without a valid key only. */
  | 'none';

export interface Step {
  readonly id: number;
  readonly probe: ProbeName;
  /** null: a probe that is not per plan (auth). */
  readonly plan: PlanName | null;
  /** Keys the step sends on, by label: the first is its main key (key A for key-isolation). */
  readonly keys: readonly string[];
  /** Index of the main key's minute window it runs in (0: the key's first in the run). */
  readonly window: number;
  readonly need: StepNeed;
  /** Planned start and end, run-clock ms from the start of the schedule. */
  readonly at: number;
  readonly ends: number;
  /** Requests on the plan's keys. */
  readonly requests: number;
  /** Requests without a valid key. */
  readonly unkeyed: number;
  /**
   * For quota-drain: the run's requests without a key will not fit in the address's current window, so the
   * step starts on a key window opened well after that one, which lasts across the address window's end.
   */
  readonly straddle?: boolean;
  /** Why the step waits for a later window than its key's first, for people. */
  readonly waits?: string;
}

export interface Schedule {
  readonly steps: readonly Step[];
  /** Planned duration, run-clock ms, and in minute windows. */
  readonly durationMs: number;
  readonly windows: number;
  /** Requests per key label (probes only). */
  readonly requestsByKey: Readonly<Record<string, number>>;
  /** Requests without a valid key (the reachability check not included). */
  readonly unkeyed: number;
  /** Keys each plan has, and how many of them the schedule uses. */
  readonly keysPerPlan: Readonly<Partial<Record<PlanName, { have: number; used: number }>>>;
  /** Keys per plan that give the shortest schedule. */
  readonly fastestKeysPerPlan: number;
  /** Why the schedule is longer than it would be with that many keys (empty when it is not). */
  readonly reasons: readonly string[];
  /** Probes that cannot run with these keys, and why (they skip with that reason). */
  readonly skipped: readonly { probe: ProbeName; plan: PlanName; reason: string }[];
}

export const WINDOW_MS = MINUTE_S * 1000;
/** Whole-second rounding of Reset and Retry-After: the next window is sure to have begun this long after. */
const TOL_MS = 1000;
/** A straddling quota-drain starts on a key window opened at least this long after the address window. */
export const STRADDLE_MARGIN_MS = 5000;
const DEFAULT_ADDRESS_BUDGET = 60;
const DEFAULT_REQUEST_MS = 1;
/** Keys per plan the schedule is laid out for: one for enforce, one for burst, one for the headroom probes. */
export const FASTEST_KEYS = 3;

const CONTRACT: readonly ProbeName[] = ['input', 'list', 'create-get', 'unknown-id', 'deprecated', 'what-counts'];
/** Requests of the probes that need headroom only: each probe's own count (src/probes, `requests`). */
export const HEADROOM_COSTS: Partial<Record<ProbeName, number>> = Object.fromEntries(
  CONTRACT.map((p) => [p, fixedRequests(p).keyed]),
);
export const AUTH_REQUESTS = fixedRequests('auth').unkeyed;
export const DRAIN_INVALID = fixedRequests('quota-drain').unkeyed;
const DRAIN_VALID = fixedRequests('quota-drain').keyed;

/** What a probe with a fixed sequence sends (its own `requests`). */
function fixedRequests(name: ProbeName): { readonly keyed: number; readonly unkeyed: number } {
  const r = PROBE_REGISTRY[name].requests;
  if (r === undefined) throw new Error(`probe ${name} states no fixed request count`);
  return r;
}

interface KeySim {
  readonly key: ScheduleKey;
  /** Open time of the current window (null: none yet). */
  openAt: number | null;
  /** Index of the current window (-1: none yet). */
  index: number;
  used: number;
  exhausted: boolean;
  /** A 429 on the key no step has waited out yet. */
  refused: boolean;
  /** When the key's lane is free. */
  free: number;
  requests: number;
}

interface AddressSim {
  openAt: number | null;
  used: number;
  free: number;
}

/** Make `k`'s window at time `t` one that a request at `t` falls in; returns the time the step may start. */
function enter(k: KeySim, t: number, cost: number, mustBeFresh: boolean): { at: number; waited: boolean } {
  let at = Math.max(t, k.free);
  let waited = false;
  const open = k.openAt !== null && at < k.openAt + WINDOW_MS;
  if (open && (mustBeFresh || k.exhausted || k.used + cost > k.key.quota)) {
    at = Math.max(at, k.openAt! + WINDOW_MS + TOL_MS);
    waited = true;
  }
  if (k.openAt === null || at >= k.openAt + WINDOW_MS) {
    k.openAt = at;
    k.index++;
    k.used = 0;
    k.exhausted = false;
  }
  return { at, waited };
}

/** The earliest start at or after `t` for `dur` that overlaps no interval taken yet; takes it. */
function reserve(taken: [number, number][], t: number, dur: number): number {
  let at = t;
  for (let moved = true; moved; ) {
    moved = false;
    for (const [a, b] of taken) {
      if (at < b && a < at + dur) {
        at = b;
        moved = true;
      }
    }
  }
  taken.push([at, at + dur]);
  return at;
}

export function planSchedule(input: ScheduleInput): Schedule {
  const scale = input.scale ?? 1;
  const budget = input.addressBudget ?? DEFAULT_ADDRESS_BUDGET;
  const r = (input.requestMs ?? DEFAULT_REQUEST_MS) * scale; // run-clock ms per request
  const runs = input.runs ?? (() => true);
  const want = new Set(input.probes);
  const steps: Step[] = [];
  const skipped: { probe: ProbeName; plan: PlanName; reason: string }[] = [];
  const reasons: string[] = [];
  const requestsByKey: Record<string, number> = {};
  const keysPerPlan: Partial<Record<PlanName, { have: number; used: number }>> = {};
  const address: AddressSim = { openAt: null, used: 0, free: 0 };
  const exact: [number, number][] = [];
  let unkeyed = 0;

  const push = (s: Omit<Step, 'id'>) => {
    const step = { ...s, id: steps.length };
    steps.push(step);
    return step;
  };

  /** Requests without a key at time t: opens a new address window when the last has ended. */
  const spendAddress = (t: number, n: number) => {
    if (address.openAt === null || t >= address.openAt + WINDOW_MS) {
      address.openAt = t;
      address.used = 0;
    }
    address.used += n;
  };
  // The reachability check opens the address window at the start.
  spendAddress(0, 1);
  if (want.has('auth') && runs('auth', null)) {
    const ends = AUTH_REQUESTS * r;
    push({
      probe: 'auth',
      plan: null,
      keys: [],
      window: 0,
      need: 'none',
      at: 0,
      ends,
      requests: 0,
      unkeyed: AUTH_REQUESTS,
    });
    spendAddress(0, AUTH_REQUESTS);
    address.free = ends;
    unkeyed += AUTH_REQUESTS;
  }

  for (const { plan, keys } of input.plans) {
    const want = new Set(input.probes.filter((p) => runs(p, plan)));
    const usable = keys.filter((k) => !k.sacrificial || keys.every((o) => o.sacrificial));
    const sims: KeySim[] = usable.map((key) => ({
      key,
      openAt: null,
      index: -1,
      used: 0,
      exhausted: false,
      refused: false,
      free: 0,
      requests: 0,
    }));
    const n = sims.length;
    keysPerPlan[plan] = { have: keys.length, used: Math.min(n, FASTEST_KEYS) };
    if (n === 0) continue;
    const [k0, k1 = k0, k2 = n >= 3 ? sims[2]! : n === 2 ? sims[1]! : sims[0]!] = sims as [KeySim, KeySim?, KeySim?];
    const add = (k: KeySim, n: number) => {
      k.requests += n;
    };
    const waitNote = (k: KeySim, why: string) => `waits for ${k.key.label}'s window ${k.index + 1}: ${why}`;

    const fresh = (probe: ProbeName, k: KeySim, cost: number, dur: number, spare?: KeySim) => {
      const e = enter(k, 0, cost, true);
      // One exact count at a time across plans: a burst's connections or a parallel exhaust slow the others.
      const at = reserve(exact, e.at, dur);
      if (at !== e.at) k.openAt = at;
      const ends = at + dur;
      k.used = cost;
      k.exhausted = true;
      k.refused = true;
      k.free = ends;
      add(k, cost);
      push({
        probe,
        plan,
        keys: spare === undefined ? [k.key.label] : [k.key.label, spare.key.label],
        window: k.index,
        need: 'fresh',
        at,
        ends,
        requests: cost,
        unkeyed: 0,
        ...(e.waited ? { waits: waitNote(k, 'its earlier window was spent') } : {}),
      });
    };
    const exhaustMs = (q: number) => (q / 8 + 9) * r;

    // A key beyond the fastest pass's, when the keys file has one, is enforce's spare: a count taken again strictly one
    // at a time (requests sent together were over-admitted) starts on it at once, instead of waiting for k0's window.
    if (want.has('enforce')) fresh('enforce', k0, k0.key.quota + 1, exhaustMs(k0.key.quota), sims[FASTEST_KEYS]);
    // With one key, burst needs a window of its own after the window where the 429 is waited out.
    const burstLater = n === 1;
    if (want.has('burst') && !burstLater)
      fresh('burst', k1, k1.key.quota + BURST_EXTRA, ((k1.key.quota + BURST_EXTRA) * r) / 4);

    const waitOut = (probe: ProbeName, k: KeySim) => {
      let cost = 1;
      let start = k.free;
      if (!k.refused) {
        // Nothing to wait out on this key: the probe exhausts it first.
        const e = enter(k, 0, k.key.quota + 1, true);
        start = e.at + exhaustMs(k.key.quota);
        cost += k.key.quota + 1;
        k.exhausted = true;
      }
      const end = (k.openAt ?? 0) + WINDOW_MS + TOL_MS;
      const at = Math.max(start, k.exhausted ? end : start);
      if (k.exhausted) {
        k.openAt = at;
        k.index++;
        k.used = 0;
        k.exhausted = false;
      }
      k.used += 1;
      k.free = at + r;
      add(k, cost);
      push({
        probe,
        plan,
        keys: [k.key.label],
        window: k.index,
        need: 'refusal',
        at: cost > 1 ? at - exhaustMs(k.key.quota) : at,
        ends: at + r,
        requests: cost,
        unkeyed: 0,
      });
    };
    if (want.has('retry-after-honest')) waitOut('retry-after-honest', k0);
    if (want.has('restore')) {
      // One key: both take the same 429 (retry-after-honest first, then restore).
      if (n === 1) k0.refused = want.has('enforce') || want.has('retry-after-honest');
      waitOut('restore', n >= 2 ? k1 : k0);
    }

    if (want.has('key-isolation')) {
      if (n < 2) {
        skipped.push({
          probe: 'key-isolation',
          plan,
          reason: `needs two keys of one plan; the keys file has one usable ${plan} key`,
        });
      } else {
        const b = enter(k1, k0.free, 2, false);
        const a = enter(k0, b.at, 0, false);
        const at = Math.max(a.at, b.at);
        const cost = k0.key.quota - k0.used + 1;
        const ends = at + exhaustMs(cost) + 2 * r;
        k0.used = k0.key.quota;
        k0.exhausted = true;
        k0.refused = true;
        k1.used += 2;
        k0.free = k1.free = ends;
        add(k0, cost);
        add(k1, 2);
        push({
          probe: 'key-isolation',
          plan,
          keys: [k0.key.label, k1.key.label],
          window: k0.index,
          need: 'headroom',
          at,
          ends,
          requests: cost + 2,
          unkeyed: 0,
        });
      }
    }

    // The headroom probes, one after another on one key: the third (with three keys), else the second, else the only.
    // quota-drain first: when it must last across an address window it needs a key window of its own.
    const h = n >= 3 ? k2 : n === 2 ? k1 : k0;
    if (want.has('quota-drain')) {
      let t = Math.max(h.free, address.free);
      let straddle = false;
      let refusedExtra = 0;
      let waited = false;
      for (let i = 0; i < 4; i++) {
        const open = address.openAt !== null && t < address.openAt + WINDOW_MS;
        if (!open || address.used + DRAIN_INVALID <= budget) break;
        // Not enough room in this address window: start on a key window opened after it, which outlasts it.
        const t2 = Math.max(
          t,
          address.openAt! + STRADDLE_MARGIN_MS,
          h.openAt !== null && h.openAt + WINDOW_MS > t ? h.openAt + WINDOW_MS + TOL_MS : t,
        );
        if (t2 >= address.openAt! + WINDOW_MS) {
          t = t2;
          continue;
        }
        t = t2;
        straddle = true;
        break;
      }
      const e = enter(h, t, DRAIN_VALID, straddle);
      if (e.waited) waited = true;
      t = e.at;
      let ends: number;
      if (straddle) {
        const first = budget - address.used;
        const next = address.openAt! + WINDOW_MS + TOL_MS;
        refusedExtra = 1;
        address.openAt = next;
        address.used = DRAIN_INVALID - first;
        ends = next + (DRAIN_INVALID - first + 1) * r;
      } else {
        spendAddress(t, DRAIN_INVALID);
        ends = t + (DRAIN_INVALID + DRAIN_VALID) * r;
      }
      address.free = ends;
      h.used += DRAIN_VALID;
      h.free = ends;
      add(h, DRAIN_VALID);
      unkeyed += DRAIN_INVALID + refusedExtra;
      push({
        probe: 'quota-drain',
        plan,
        keys: [h.key.label],
        window: h.index,
        need: 'headroom',
        at: t,
        ends,
        requests: DRAIN_VALID,
        unkeyed: DRAIN_INVALID + refusedExtra,
        ...(straddle ? { straddle: true } : {}),
        ...(waited
          ? { waits: waitNote(h, 'its open window would end before the requests without a key are through') }
          : {}),
      });
    }

    for (const probe of CONTRACT) {
      if (!want.has(probe)) continue;
      const cost = HEADROOM_COSTS[probe]!;
      const e = enter(h, h.free, cost, false);
      h.used += cost;
      h.free = e.at + cost * r;
      add(h, cost);
      push({
        probe,
        plan,
        keys: [h.key.label],
        window: h.index,
        need: 'headroom',
        at: e.at,
        ends: h.free,
        requests: cost,
        unkeyed: 0,
        ...(e.waited ? { waits: waitNote(h, 'no room left in the open one') } : {}),
      });
    }

    if (want.has('burst') && burstLater)
      fresh('burst', k0, k0.key.quota + BURST_EXTRA, ((k0.key.quota + BURST_EXTRA) * r) / 4);

    if (want.has('ban')) {
      const victim = keys.find((k) => k.sacrificial);
      if (!victim) {
        skipped.push({
          probe: 'ban',
          plan,
          reason: `opt-in: needs a ${plan} key marked "sacrificial": true in the keys file`,
        });
      } else {
        const at = Math.max(0, ...sims.map((s) => s.free));
        const cost = banProbeMaxRequests(victim.quota);
        requestsByKey[victim.label] = (requestsByKey[victim.label] ?? 0) + cost;
        push({
          probe: 'ban',
          plan,
          keys: [victim.label],
          window: 0,
          need: 'fresh',
          at,
          ends: at + WINDOW_MS + TOL_MS * 2,
          requests: cost,
          unkeyed: 0,
        });
      }
    }
    for (const s of sims)
      if (s.requests > 0) requestsByKey[s.key.label] = (requestsByKey[s.key.label] ?? 0) + s.requests;
  }

  const durationMs = Math.max(0, ...steps.map((s) => s.ends));
  steps.sort((a, b) => a.at - b.at || a.id - b.id);
  return {
    steps,
    durationMs,
    windows: durationMs / WINDOW_MS,
    requestsByKey,
    unkeyed,
    keysPerPlan,
    fastestKeysPerPlan: FASTEST_KEYS,
    reasons,
    skipped,
  };
}

/**
 * The schedule, and why it is longer than with FASTEST_KEYS keys per plan: the same plan laid out with that many
 * (hypothetical) keys, compared window for window.
 */
export function planWithReasons(input: ScheduleInput): Schedule {
  const s = planSchedule(input);
  const short = input.plans.filter(
    (p) => p.keys.filter((k) => !k.sacrificial).length < FASTEST_KEYS && p.keys.length > 0,
  );
  if (short.length === 0) return s;
  const ideal = planSchedule({
    ...input,
    plans: input.plans.map((p) => {
      const base = p.keys[0];
      if (!base || p.keys.length >= FASTEST_KEYS) return p;
      const extra = Array.from({ length: FASTEST_KEYS - p.keys.length }, (_, i) => ({
        ...base,
        label: `${p.plan}#extra${i}`,
        sacrificial: false,
      }));
      return { ...p, keys: [...p.keys, ...extra] };
    }),
  });
  const reasons: string[] = [];
  if (s.durationMs <= ideal.durationMs * 1.05) return s;
  for (const p of short) {
    const n = p.keys.filter((k) => !k.sacrificial).length;
    reasons.push(
      n === 1
        ? `${p.plan} has one key: enforce, the wait for its 429 and burst each need a window of it in turn, and key-isolation (two keys) is skipped`
        : `${p.plan} has ${n} keys: key-isolation and the headroom probes wait for the window after the 429s`,
    );
  }
  reasons.push(
    `with ${FASTEST_KEYS} keys per plan the pass would take about ${fmtWindows(ideal.windows)} windows instead of ${fmtWindows(s.windows)}`,
  );
  return { ...s, reasons };
}

export const fmtWindows = (w: number) => w.toFixed(w < 10 ? 1 : 0);

/** Seconds for people: `1 min 02 s`, `48 s`. */
export function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
}

/** The schedule as lines for people: one per step, then the totals. Times are real (run-clock ms / scale). */
export function describeSchedule(s: Schedule, scale = 1): string[] {
  const sec = (ms: number) => `${(ms / scale / 1000).toFixed(1).padStart(6)} s`;
  const lines = s.steps.map((st) => {
    const where = st.keys.length === 0 ? 'no key' : st.keys.join(' + ');
    const extra = [
      st.unkeyed > 0 ? `+${st.unkeyed} without a key` : '',
      st.straddle ? 'across an address window' : '',
      st.waits ?? '',
    ]
      .filter(Boolean)
      .join('; ');
    return `${sec(st.at)}  ${(st.plan ?? '-').padEnd(10)} ${st.probe.padEnd(19)} ${where}, window ${st.window + 1}, ${st.requests} requests${extra ? ` (${extra})` : ''}`;
  });
  for (const sk of s.skipped) lines.push(`        ${sk.plan.padEnd(10)} ${sk.probe.padEnd(19)} skipped: ${sk.reason}`);
  return lines;
}

/** The planner's input for a run: the plans in order, each with its keys' minute quotas. */
export function scheduleInputOf(
  probes: readonly ProbeName[],
  keys: readonly ApiKey[],
  plans: readonly PlanName[],
  scale = 1,
  runs?: ScheduleInput['runs'],
): ScheduleInput {
  return {
    probes,
    scale,
    ...(runs ? { runs } : {}),
    plans: plans.map((plan) => ({
      plan,
      keys: keys
        .filter((k) => k.plan === plan)
        .map((k) => ({
          label: k.label,
          quota: Math.min(k.limits.perMinute, k.limits.perDay),
          sacrificial: k.sacrificial,
        })),
    })),
  };
}
