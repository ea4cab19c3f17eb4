/**
 * The probe schedule: which probe runs on which key, in which of the key's minute windows, and when — worked out
 * before anything is sent, from the keys and the probes alone (a pure function, no I/O).
 *
 * It reads nothing of a probe but what the probe says it needs (src/probes/probe.ts, `needs`), and names none.
 * A minute window is the scarce thing. A probe that must see a window from its first request (`fresh`) gets a key
 * of its own; the probes that wait out a 429 (`refusal`) take the 429 those left and run in the next window of the
 * same key; probes that only need room (`headroom`, `pair`) go where a window already open has it. Keys of one
 * plan, and the plans, run side by side; only two lanes are shared: requests without a valid key, which a target
 * may limit per client address, and the exact counts on fresh windows, which run one at a time.
 *
 * With three keys per plan the whole pass takes about two windows: the one where quotas are spent and the one
 * where they come back. With fewer keys the same probes queue on fewer windows; `reasons` says what waits.
 */
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { ProbeName } from '../probes/names.js';
import { probesInOrder } from '../probes/index.js';
import type { Probe, WindowNeed } from '../probes/probe.js';
import { countsSideBySide, keylessMs, SERVICE_MS } from '../probes/in-flight.js';

export interface ScheduleKey {
  readonly label: string;
  /** Requests a fresh minute window accepts (the smaller of the key's figures). */
  readonly quota: number;
  readonly sacrificial: boolean;
  /** Marked for the plan audit: only a probe that needs such a key uses it. */
  readonly audit?: boolean;
  /** The key's sold figures (the audit's requests and time follow them). */
  readonly perMinute?: number;
  readonly perDay?: number;
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
  /**
   * The round trip to the target, real ms, on top of a request's own time on loopback (SERVICE_MS): 0 or absent on
   * loopback. It sets what a request costs one after another, what is kept in flight (in-flight.ts), and whether the
   * exact counts of different plans run side by side (countsSideBySide).
   */
  readonly rttMs?: number;
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
  /** null: a probe that is not per plan. */
  readonly plan: PlanName | null;
  /** Keys the step sends on, by label: the first is its main key (the one a `pair` exhausts). */
  readonly keys: readonly string[];
  /** Index of the main key's minute window it runs in (0: the key's first in the run). */
  readonly window: number;
  readonly need: StepNeed;
  /**
   * An exact count on a fresh window: one at a time (the runner's exact lane), across plans on loopback, within its
   * plan where the link is long (countsSideBySide).
   */
  readonly exact?: boolean;
  /** Planned start and end, run-clock ms from the start of the schedule. */
  readonly at: number;
  readonly ends: number;
  /** Requests on the plan's keys. */
  readonly requests: number;
  /** Requests without a valid key. */
  readonly unkeyed: number;
  /**
   * A headroom step with requests without a key that will not fit in the address's current window: it starts on
   * a key window opened well after that one, which lasts across the address window's end.
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
  /**
   * Keys a probe's deliberate 429 still holds when the probes are done, until when (run-clock ms from the start):
   * a load phase starts after them, on windows no probe spent (docs/schedule.md, "Probes and load").
   */
  readonly held: readonly HeldKey[];
}

/** A key left refused by a probe (its window spent on purpose), and when that window is over. */
export interface HeldKey {
  readonly label: string;
  readonly probe: ProbeName;
  readonly until: number;
}

/** Whole-second rounding of Reset and Retry-After: the next window is sure to have begun this long after. */
const TOL_MS = 1000;
/** A straddling step starts on a key window opened at least this long after the address window. */
export const STRADDLE_MARGIN_MS = 5000;
const DEFAULT_ADDRESS_BUDGET = 60;
/** Keys per plan the schedule is laid out for: one for each of the two exact counts, one for the headroom probes. */
export const FASTEST_KEYS = 3;

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
  /** The probe that spent the key's current window on purpose (while `exhausted`). */
  spentBy: ProbeName | null;
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
  const open = k.openAt !== null && at < k.openAt + MINUTE_MS;
  if (open && (mustBeFresh || k.exhausted || k.used + cost > k.key.quota)) {
    at = Math.max(at, k.openAt! + MINUTE_MS + TOL_MS);
    waited = true;
  }
  if (k.openAt === null || at >= k.openAt + MINUTE_MS) {
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

type Need<W extends WindowNeed['window']> = Extract<WindowNeed, { window: W }>;

/** What the planner keeps across plans: the steps so far, the address window, the exact counts' times. */
interface Plan {
  /** Run-clock ms of one request, one after another. */
  readonly r: number;
  /** Real ms of one request, one after another (the link's round trip and the answer). */
  readonly requestMs: number;
  readonly scale: number;
  /** Whether the exact counts of different plans run side by side (a long link). */
  readonly sideBySide: boolean;
  readonly budget: number;
  readonly steps: Step[];
  readonly skipped: { probe: ProbeName; plan: PlanName; reason: string }[];
  readonly requestsByKey: Record<string, number>;
  readonly address: AddressSim;
  /** The exact counts' times, per lane: one lane for all plans, or one per plan (sideBySide). */
  readonly exact: Map<string, [number, number][]>;
  readonly held: HeldKey[];
  unkeyed: number;
}

/** The exact lane of a plan's counts: the plan's own where counts run side by side, else the one of all plans. */
function exactLane(p: Plan, plan: PlanName): [number, number][] {
  const name = p.sideBySide ? plan : 'all';
  let lane = p.exact.get(name);
  if (!lane) p.exact.set(name, (lane = []));
  return lane;
}

/** One plan's keys as the planner lays steps on them. */
interface PlanKeys {
  readonly plan: PlanName;
  readonly keys: readonly ScheduleKey[];
  readonly sims: readonly KeySim[];
  /** Keys some fresh step of the plan has taken. */
  readonly fresh: Set<KeySim>;
}

const push = (p: Plan, s: Omit<Step, 'id'>): void => {
  p.steps.push({ ...s, id: p.steps.length });
};

/** A plan's keys any probe may use: not marked (sacrificial, audit) unless all of them are. */
const isUsable = (keys: readonly ScheduleKey[]) => {
  const marked = (k: ScheduleKey) => k.sacrificial || k.audit === true;
  const allMarked = keys.every(marked);
  return (k: ScheduleKey) => !marked(k) || allMarked;
};

/** The key at a slot: the slot's key, or the last the plan has. */
const keyAt = (pk: PlanKeys, slot: number): KeySim => pk.sims[Math.min(slot, pk.sims.length - 1)]!;

const waitNote = (k: KeySim, why: string) => `waits for ${k.key.label}'s window ${k.index + 1}: ${why}`;

/** Requests without a key at time t: opens a new address window when the last has ended. */
function spendAddress(address: AddressSim, t: number, n: number): void {
  if (address.openAt === null || t >= address.openAt + MINUTE_MS) {
    address.openAt = t;
    address.used = 0;
  }
  address.used += n;
}

function placeKeyless(p: Plan, probe: ProbeName, need: Need<'none'>): void {
  const ends = need.unkeyed * p.r;
  push(p, { probe, plan: null, keys: [], window: 0, need: 'none', at: 0, ends, requests: 0, unkeyed: need.unkeyed });
  spendAddress(p.address, 0, need.unkeyed);
  p.address.free = ends;
  p.unkeyed += need.unkeyed;
}

function placeFresh(p: Plan, pk: PlanKeys, probe: ProbeName, need: Need<'fresh'>, k: KeySim): void {
  const cost = need.requests(k.key.quota);
  const dur = need.span(k.key.quota, p.requestMs) * p.scale;
  const spare = need.spareKey ? pk.sims[FASTEST_KEYS] : undefined;
  const e = enter(k, 0, cost, true);
  // One exact count at a time (across plans on loopback, where its many connections or parallel requests slow the
  // others; within its plan on a long link, where the others' keys are other counters).
  const at = reserve(exactLane(p, pk.plan), e.at, dur);
  if (at !== e.at) k.openAt = at;
  const ends = at + dur;
  k.used = cost;
  k.exhausted = true;
  k.spentBy = probe;
  k.refused = true;
  k.free = ends;
  k.requests += cost;
  pk.fresh.add(k);
  push(p, {
    probe,
    plan: pk.plan,
    keys: spare === undefined ? [k.key.label] : [k.key.label, spare.key.label],
    window: k.index,
    need: 'fresh',
    exact: true,
    at,
    ends,
    requests: cost,
    unkeyed: 0,
    ...(e.waited ? { waits: waitNote(k, 'its earlier window was spent') } : {}),
  });
}

function placeRefusal(p: Plan, pk: PlanKeys, probe: ProbeName, need: Need<'refusal'>): void {
  const k = keyAt(pk, need.slot);
  let cost = 1;
  let start = k.free;
  const exhaustMs = need.exhaustSpan(k.key.quota, p.requestMs) * p.scale;
  if (!k.refused) {
    // Nothing to wait out on this key: the probe exhausts it first.
    const e = enter(k, 0, k.key.quota + 1, true);
    start = e.at + exhaustMs;
    cost += k.key.quota + 1;
    k.exhausted = true;
  }
  const end = (k.openAt ?? 0) + MINUTE_MS + TOL_MS;
  const at = Math.max(start, k.exhausted ? end : start);
  if (k.exhausted) {
    k.openAt = at;
    k.index++;
    k.used = 0;
    k.exhausted = false;
  }
  // The 429 stays for another step of the key that waits one out (with one key, the next such step shares it).
  k.refused = true;
  k.used += 1;
  k.free = at + p.r;
  k.requests += cost;
  const begins = cost > 1 ? at - exhaustMs : at;
  push(p, {
    probe,
    plan: pk.plan,
    keys: [k.key.label],
    window: k.index,
    need: 'refusal',
    at: begins,
    ends: at + p.r,
    requests: cost,
    unkeyed: 0,
  });
}

function placePair(p: Plan, pk: PlanKeys, probe: ProbeName, need: Need<'pair'>): void {
  const [a, b] = [keyAt(pk, need.slots[0]), keyAt(pk, need.slots[1])];
  if (a === b) {
    const reason = `needs two keys of one plan; the keys file has one usable ${pk.plan} key`;
    p.skipped.push({ probe, plan: pk.plan, reason });
    return;
  }
  const eb = enter(b, a.free, need.second, false);
  const ea = enter(a, eb.at, 0, false);
  const at = Math.max(ea.at, eb.at);
  const cost = a.key.quota - a.used + 1;
  const ends = at + need.exhaustSpan(cost, p.requestMs) * p.scale + need.second * p.r;
  a.used = a.key.quota;
  a.exhausted = true;
  a.spentBy = probe;
  a.refused = true;
  b.used += need.second;
  a.free = b.free = ends;
  a.requests += cost;
  b.requests += need.second;
  const keys = [a.key.label, b.key.label];
  push(p, {
    probe,
    plan: pk.plan,
    keys,
    window: a.index,
    need: 'headroom',
    at,
    ends,
    requests: cost + need.second,
    unkeyed: 0,
  });
}

/**
 * When a headroom step's requests without a key start, and whether it straddles: when the address window open then
 * has no room for them, it starts on a key window opened after that address window began, which outlasts it.
 */
function addressStart(p: Plan, h: KeySim, unkeyed: number): { t: number; straddle: boolean } {
  const { address } = p;
  let t = Math.max(h.free, address.free);
  for (let i = 0; i < 4; i++) {
    const open = address.openAt !== null && t < address.openAt + MINUTE_MS;
    if (!open || address.used + unkeyed <= p.budget) break;
    const t2 = Math.max(
      t,
      address.openAt! + STRADDLE_MARGIN_MS,
      h.openAt !== null && h.openAt + MINUTE_MS > t ? h.openAt + MINUTE_MS + TOL_MS : t,
    );
    t = t2;
    if (t2 < address.openAt! + MINUTE_MS) return { t, straddle: true };
  }
  return { t, straddle: false };
}

/** A headroom step with requests without a key: on the address lane too, across an address window if it must. */
function placeAddressHeadroom(p: Plan, pk: PlanKeys, probe: ProbeName, need: Need<'headroom'>, unkeyed: number): void {
  const { address } = p;
  const h = keyAt(pk, need.slot);
  const start = addressStart(p, h, unkeyed);
  const e = enter(h, start.t, need.requests, start.straddle);
  const t = e.at;
  let ends: number;
  let refusedExtra = 0;
  if (start.straddle) {
    const first = p.budget - address.used;
    const next = address.openAt! + MINUTE_MS + TOL_MS;
    refusedExtra = 1;
    address.openAt = next;
    address.used = unkeyed - first;
    ends = next + keylessMs(unkeyed - first, p.requestMs) * p.scale + p.r;
  } else {
    spendAddress(address, t, unkeyed);
    ends = t + keylessMs(unkeyed, p.requestMs) * p.scale + need.requests * p.r;
  }
  address.free = ends;
  h.used += need.requests;
  h.free = ends;
  h.requests += need.requests;
  p.unkeyed += unkeyed + refusedExtra;
  push(p, {
    probe,
    plan: pk.plan,
    keys: [h.key.label],
    window: h.index,
    need: 'headroom',
    at: t,
    ends,
    requests: need.requests,
    unkeyed: unkeyed + refusedExtra,
    ...(start.straddle ? { straddle: true } : {}),
    ...(e.waited
      ? { waits: waitNote(h, 'its open window would end before the requests without a key are through') }
      : {}),
  });
}

function placeHeadroom(p: Plan, pk: PlanKeys, probe: ProbeName, need: Need<'headroom'>): void {
  if (need.unkeyed !== undefined && need.unkeyed > 0) return placeAddressHeadroom(p, pk, probe, need, need.unkeyed);
  const h = keyAt(pk, need.slot);
  const cost = need.requests;
  const e = enter(h, h.free, cost, false);
  h.used += cost;
  h.free = e.at + cost * p.r;
  h.requests += cost;
  push(p, {
    probe,
    plan: pk.plan,
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

function placeSacrificial(p: Plan, pk: PlanKeys, probe: ProbeName, need: Need<'sacrificial'>): void {
  const victim = pk.keys.find((k) => k.sacrificial);
  if (!victim) {
    const reason = `opt-in: needs a ${pk.plan} key marked "sacrificial": true in the keys file`;
    p.skipped.push({ probe, plan: pk.plan, reason });
    return;
  }
  const at = Math.max(0, ...pk.sims.map((s) => s.free));
  const cost = need.requests(victim.quota);
  p.requestsByKey[victim.label] = (p.requestsByKey[victim.label] ?? 0) + cost;
  const ends = at + need.holdsMs;
  push(p, {
    probe,
    plan: pk.plan,
    keys: [victim.label],
    window: 0,
    need: 'fresh',
    at,
    ends,
    requests: cost,
    unkeyed: 0,
  });
}

function placeAudit(p: Plan, pk: PlanKeys, probe: ProbeName, need: Need<'audit'>): void {
  const key = pk.keys.find((k) => k.audit);
  if (!key) {
    const reason = `opt-in: needs a ${pk.plan} key marked "audit": true in the keys file (the audit spends its day)`;
    p.skipped.push({ probe, plan: pk.plan, reason });
    return;
  }
  const figures = { perMinute: key.perMinute ?? key.quota, perDay: key.perDay ?? key.quota };
  const cost = need.requests(figures);
  p.requestsByKey[key.label] = (p.requestsByKey[key.label] ?? 0) + cost;
  const ends = need.holdsMs(figures);
  push(p, {
    probe,
    plan: pk.plan,
    keys: [key.label],
    window: 0,
    need: 'fresh',
    at: 0,
    ends,
    requests: cost,
    unkeyed: 0,
  });
}

/**
 * The order in which a plan's probes take their keys, from what they need: the exact counts on fresh windows first
 * (their 429s are what the refusal steps wait out), then the refusals, the probes on two keys, the headroom probes
 * (those with requests without a key first), a fresh count that must wait for a key another took, the sacrificial
 * key last. Ties keep the registry's order.
 */
function rankOf(need: WindowNeed, deferred: boolean, roomFirst: boolean): number {
  switch (need.window) {
    case 'fresh':
      return deferred ? 5 : 0;
    case 'refusal':
      return 1;
    case 'pair':
      return 2;
    case 'headroom': {
      const keyless = (need.unkeyed ?? 0) > 0;
      return keyless === roomFirst ? 4 : 3;
    }
    case 'sacrificial':
      return 6;
    case 'audit':
      return 7;
    case 'none':
      return -1;
  }
}

/**
 * Lays out one plan's steps on its keys. `roomFirst`: the headroom probes without requests without a key go before
 * those with (see planSchedule).
 */
function placePlan(
  p: Plan,
  plan: PlanName,
  keys: readonly ScheduleKey[],
  probes: readonly Probe[],
  roomFirst = false,
): void {
  const usable = keys.filter(isUsable(keys));
  const sims: KeySim[] = usable.map((key) => ({
    key,
    openAt: null,
    index: -1,
    used: 0,
    exhausted: false,
    refused: false,
    spentBy: null,
    free: 0,
    requests: 0,
  }));
  if (sims.length === 0) return;
  const pk: PlanKeys = { plan, keys, sims, fresh: new Set() };
  // A fresh count whose key another fresh count of the plan takes first waits for that key's next window.
  const claimed = new Set<KeySim>();
  const ranked = probes
    .filter((pr) => pr.perPlan)
    .map((pr, i) => {
      const need = pr.needs;
      let deferred = false;
      if (need.window === 'fresh') {
        const k = keyAt(pk, need.slot);
        deferred = claimed.has(k);
        claimed.add(k);
      }
      return { pr, i, rank: rankOf(need, deferred, roomFirst) };
    })
    .sort((a, b) => a.rank - b.rank || a.i - b.i);
  for (const { pr } of ranked) {
    const need = pr.needs;
    if (need.window === 'fresh') placeFresh(p, pk, pr.name, need, keyAt(pk, need.slot));
    else if (need.window === 'refusal') placeRefusal(p, pk, pr.name, need);
    else if (need.window === 'pair') placePair(p, pk, pr.name, need);
    else if (need.window === 'headroom') placeHeadroom(p, pk, pr.name, need);
    else if (need.window === 'sacrificial') placeSacrificial(p, pk, pr.name, need);
    else if (need.window === 'audit') placeAudit(p, pk, pr.name, need);
  }
  for (const s of sims) {
    if (s.requests > 0) p.requestsByKey[s.key.label] = (p.requestsByKey[s.key.label] ?? 0) + s.requests;
    if (s.exhausted && s.spentBy !== null && s.openAt !== null)
      p.held.push({ label: s.key.label, probe: s.spentBy, until: s.openAt + MINUTE_MS + TOL_MS });
  }
}

/** Plans laid out with every choice of order, or only the first and the last plan's with many plans. */
const MAX_ORDER_TRIALS = 16;

/**
 * The schedule. Each plan's headroom probes are laid out in one of two orders: those with requests without a key
 * first (on loopback, the shortest), or the others first. A step with requests without a key that must wait for the
 * next address window holds its key until then; on a long link, the headroom probes queued behind it on that key
 * end the pass seconds after that window began, where going first, in the key's first window, they cost nothing.
 * Every choice per plan is tried (a few plans: a few dozen layouts of microseconds each), and the shortest kept;
 * ties keep the first order.
 */
export function planSchedule(given: ScheduleInput): Schedule {
  const n = given.plans.length;
  const masks = 2 ** n <= MAX_ORDER_TRIALS ? Array.from({ length: 2 ** n }, (_, m) => m) : [0, 2 ** (n - 1)];
  let best: Schedule | null = null;
  for (const mask of masks) {
    const s = planInOrder(given, (i) => (mask & (2 ** i)) !== 0);
    if (best === null || s.durationMs < best.durationMs) best = s;
  }
  return best!;
}

function planInOrder(given: ScheduleInput, roomFirst: (plan: number) => boolean): Schedule {
  const scale = given.scale ?? 1;
  const runs = given.runs ?? (() => true);
  const rtt = given.rttMs ?? 0;
  const requestMs = SERVICE_MS + rtt;
  const p: Plan = {
    r: requestMs * scale,
    requestMs,
    scale,
    sideBySide: countsSideBySide(rtt),
    budget: given.addressBudget ?? DEFAULT_ADDRESS_BUDGET,
    steps: [],
    skipped: [],
    requestsByKey: {},
    address: { openAt: null, used: 0, free: 0 },
    exact: new Map(),
    held: [],
    unkeyed: 0,
  };
  const keysPerPlan: Partial<Record<PlanName, { have: number; used: number }>> = {};
  // The reachability check opens the address window at the start.
  spendAddress(p.address, 0, 1);
  const probes = probesInOrder(given.probes);
  for (const pr of probes) if (pr.needs.window === 'none' && runs(pr.name, null)) placeKeyless(p, pr.name, pr.needs);
  for (const [i, { plan, keys }] of given.plans.entries()) {
    const usable = keys.filter(isUsable(keys)).length;
    keysPerPlan[plan] = { have: keys.length, used: Math.min(usable, FASTEST_KEYS) };
    placePlan(
      p,
      plan,
      keys,
      probes.filter((pr) => runs(pr.name, plan)),
      roomFirst(i),
    );
  }
  const durationMs = Math.max(0, ...p.steps.map((s) => s.ends));
  const steps = [...p.steps].sort((a, b) => a.at - b.at || a.id - b.id);
  return {
    steps,
    durationMs,
    windows: durationMs / MINUTE_MS,
    requestsByKey: p.requestsByKey,
    unkeyed: p.unkeyed,
    keysPerPlan,
    fastestKeysPerPlan: FASTEST_KEYS,
    reasons: [],
    skipped: p.skipped,
    held: p.held,
  };
}

/**
 * The schedule, and why it is longer than with FASTEST_KEYS keys per plan: the same plan laid out with that many
 * (hypothetical) keys, compared window for window.
 */
export function planWithReasons(given: ScheduleInput): Schedule {
  const s = planSchedule(given);
  const short = given.plans.filter(
    (p) => p.keys.filter((k) => !k.sacrificial).length < FASTEST_KEYS && p.keys.length > 0,
  );
  if (short.length === 0) return s;
  const ideal = planSchedule({
    ...given,
    plans: given.plans.map((p) => {
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
  const named = (w: WindowNeed['window']) =>
    probesInOrder(given.probes)
      .filter((pr) => pr.needs.window === w)
      .map((pr) => pr.name)
      .join(', ');
  for (const p of short) {
    const n = p.keys.filter((k) => !k.sacrificial).length;
    reasons.push(
      n === 1
        ? `${p.plan} has one key: the probes that need a fresh window (${named('fresh')}) and the wait for a 429 each need a window of it in turn, and those that need two keys (${named('pair')}) are skipped`
        : `${p.plan} has ${n} keys: the probes that need two keys (${named('pair')}) and the headroom probes wait for the window after the 429s`,
    );
  }
  reasons.push(
    `with ${FASTEST_KEYS} keys per plan the pass would take about ${fmtWindows(ideal.windows)} windows instead of ${fmtWindows(s.windows)}`,
  );
  return { ...s, reasons };
}

export const fmtWindows = (w: number) => w.toFixed(w < 10 ? 1 : 0);

export { fmtDuration } from '../core/duration.js';

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

/** What the planner is given for a run: the plans in order, each with its keys' minute quotas. */
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
          ...(k.audit ? { audit: true } : {}),
          perMinute: k.limits.perMinute,
          perDay: k.limits.perDay,
        })),
    })),
  };
}
