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
import { fmtWindows } from '../core/duration.js';

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

/**
 * The planner's state as it lays the steps out, across plans (not a pricing plan: those are `PlanName`s): the steps
 * so far, the address window, the exact counts' times.
 */
interface Layout {
  /** Run-clock ms of one request sent after the one before has come back (`requestMs` times the clock's scale). */
  readonly requestRunMs: number;
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
function exactLane(lay: Layout, plan: PlanName): [number, number][] {
  const name = lay.sideBySide ? plan : 'all';
  let lane = lay.exact.get(name);
  if (!lane) lay.exact.set(name, (lane = []));
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

const push = (lay: Layout, s: Omit<Step, 'id'>): void => {
  lay.steps.push({ ...s, id: lay.steps.length });
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

function placeKeyless(lay: Layout, probe: ProbeName, need: Need<'none'>): void {
  const ends = need.unkeyed * lay.requestRunMs;
  push(lay, { probe, plan: null, keys: [], window: 0, need: 'none', at: 0, ends, requests: 0, unkeyed: need.unkeyed });
  spendAddress(lay.address, 0, need.unkeyed);
  lay.address.free = ends;
  lay.unkeyed += need.unkeyed;
}

function placeFresh(lay: Layout, pk: PlanKeys, probe: ProbeName, need: Need<'fresh'>, k: KeySim): void {
  const cost = need.requests(k.key.quota);
  const dur = need.span(k.key.quota, lay.requestMs) * lay.scale;
  const spare = need.spareKey ? pk.sims[FASTEST_KEYS] : undefined;
  const e = enter(k, 0, cost, true);
  // One exact count at a time (across plans on loopback, where its many connections or parallel requests slow the
  // others; within its plan on a long link, where the others' keys are other counters).
  const at = reserve(exactLane(lay, pk.plan), e.at, dur);
  if (at !== e.at) k.openAt = at;
  const ends = at + dur;
  k.used = cost;
  k.exhausted = true;
  k.spentBy = probe;
  k.refused = true;
  k.free = ends;
  k.requests += cost;
  pk.fresh.add(k);
  push(lay, {
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

function placeRefusal(lay: Layout, pk: PlanKeys, probe: ProbeName, need: Need<'refusal'>): void {
  const k = keyAt(pk, need.slot);
  let cost = 1;
  let start = k.free;
  const exhaustMs = need.exhaustSpan(k.key.quota, lay.requestMs) * lay.scale;
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
  k.free = at + lay.requestRunMs;
  k.requests += cost;
  const begins = cost > 1 ? at - exhaustMs : at;
  push(lay, {
    probe,
    plan: pk.plan,
    keys: [k.key.label],
    window: k.index,
    need: 'refusal',
    at: begins,
    ends: at + lay.requestRunMs,
    requests: cost,
    unkeyed: 0,
  });
}

function placePair(lay: Layout, pk: PlanKeys, probe: ProbeName, need: Need<'pair'>): void {
  const [a, b] = [keyAt(pk, need.slots[0]), keyAt(pk, need.slots[1])];
  if (a === b) {
    const reason = `needs two keys of one plan; the keys file has one usable ${pk.plan} key`;
    lay.skipped.push({ probe, plan: pk.plan, reason });
    return;
  }
  const eb = enter(b, a.free, need.second, false);
  const ea = enter(a, eb.at, 0, false);
  const at = Math.max(ea.at, eb.at);
  const cost = a.key.quota - a.used + 1;
  const ends = at + need.exhaustSpan(cost, lay.requestMs) * lay.scale + need.second * lay.requestRunMs;
  a.used = a.key.quota;
  a.exhausted = true;
  a.spentBy = probe;
  a.refused = true;
  b.used += need.second;
  a.free = b.free = ends;
  a.requests += cost;
  b.requests += need.second;
  const keys = [a.key.label, b.key.label];
  push(lay, {
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
 * A bound on addressStart's search: each turn moves the start past the open address window's margin or past the
 * key's open window, and two of each settle every case; the bound only keeps a mistake from looping.
 */
const ADDRESS_START_TURNS = 4;

/**
 * When a headroom step's requests without a key start, and whether it straddles: when the address window open then
 * has no room for them, it starts on a key window opened after that address window began, which outlasts it.
 */
function addressStart(lay: Layout, h: KeySim, unkeyed: number): { t: number; straddle: boolean } {
  const { address } = lay;
  let t = Math.max(h.free, address.free);
  for (let i = 0; i < ADDRESS_START_TURNS; i++) {
    const open = address.openAt !== null && t < address.openAt + MINUTE_MS;
    if (!open || address.used + unkeyed <= lay.budget) break;
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
function placeAddressHeadroom(
  lay: Layout,
  pk: PlanKeys,
  probe: ProbeName,
  need: Need<'headroom'>,
  unkeyed: number,
): void {
  const { address } = lay;
  const h = keyAt(pk, need.slot);
  const start = addressStart(lay, h, unkeyed);
  const e = enter(h, start.t, need.requests, start.straddle);
  const t = e.at;
  let ends: number;
  let refusedExtra = 0;
  if (start.straddle) {
    const first = lay.budget - address.used;
    const next = address.openAt! + MINUTE_MS + TOL_MS;
    refusedExtra = 1;
    address.openAt = next;
    address.used = unkeyed - first;
    ends = next + keylessMs(unkeyed - first, lay.requestMs) * lay.scale + lay.requestRunMs;
  } else {
    spendAddress(address, t, unkeyed);
    ends = t + keylessMs(unkeyed, lay.requestMs) * lay.scale + need.requests * lay.requestRunMs;
  }
  address.free = ends;
  h.used += need.requests;
  h.free = ends;
  h.requests += need.requests;
  lay.unkeyed += unkeyed + refusedExtra;
  push(lay, {
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

function placeHeadroom(lay: Layout, pk: PlanKeys, probe: ProbeName, need: Need<'headroom'>): void {
  if (need.unkeyed !== undefined && need.unkeyed > 0) return placeAddressHeadroom(lay, pk, probe, need, need.unkeyed);
  const h = keyAt(pk, need.slot);
  const cost = need.requests;
  const e = enter(h, h.free, cost, false);
  h.used += cost;
  h.free = e.at + cost * lay.requestRunMs;
  h.requests += cost;
  push(lay, {
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

/** A key's sold figures, as the marked probes read them (its quota where the keys file gives none). */
const figuresOf = (key: ScheduleKey) => ({ perMinute: key.perMinute ?? key.quota, perDay: key.perDay ?? key.quota });

/** A step on the plan's key marked for it (`mark`): skipped, saying `why`, when the plan has none. */
function placeMarked(
  lay: Layout,
  pk: PlanKeys,
  probe: ProbeName,
  m: {
    readonly mark: 'sacrificial' | 'audit';
    readonly why: string;
    readonly at: () => number;
    readonly requests: (key: ScheduleKey) => number;
    readonly ends: (key: ScheduleKey, at: number) => number;
  },
): void {
  const key = pk.keys.find((k) => k[m.mark] === true);
  if (!key) {
    lay.skipped.push({ probe, plan: pk.plan, reason: m.why });
    return;
  }
  const at = m.at();
  const cost = m.requests(key);
  lay.requestsByKey[key.label] = (lay.requestsByKey[key.label] ?? 0) + cost;
  push(lay, {
    probe,
    plan: pk.plan,
    keys: [key.label],
    window: 0,
    need: 'fresh',
    at,
    ends: m.ends(key, at),
    requests: cost,
    unkeyed: 0,
  });
}

/**
 * The order in which a plan's probes take their keys, from what they need (lower first): the exact counts on fresh
 * windows first (their 429s are what the refusal steps wait out), then the refusals, the probes on two keys, the
 * headroom probes (those with requests without a key first, unless `roomFirst`), a fresh count that must wait for a
 * key another took, the marked keys last. Ties keep the registry's order. The keyless probes are laid out once,
 * before the plans.
 */
const RANK = {
  keyless: -1,
  fresh: 0,
  refusal: 1,
  pair: 2,
  headroomFirst: 3,
  headroomThen: 4,
  freshOnATakenKey: 5,
  sacrificial: 6,
  audit: 7,
} as const;

function rankOf(need: WindowNeed, deferred: boolean, roomFirst: boolean): number {
  switch (need.window) {
    case 'fresh':
      return deferred ? RANK.freshOnATakenKey : RANK.fresh;
    case 'refusal':
      return RANK.refusal;
    case 'pair':
      return RANK.pair;
    case 'headroom':
      return (need.unkeyed ?? 0) > 0 === roomFirst ? RANK.headroomThen : RANK.headroomFirst;
    case 'sacrificial':
      return RANK.sacrificial;
    case 'audit':
      return RANK.audit;
    case 'none':
      return RANK.keyless;
  }
}

/** Lays one probe's step out by what it needs; a kind of need with no placer does not compile. */
function place(lay: Layout, pk: PlanKeys, probe: ProbeName, need: WindowNeed): void {
  switch (need.window) {
    case 'fresh':
      return placeFresh(lay, pk, probe, need, keyAt(pk, need.slot));
    case 'refusal':
      return placeRefusal(lay, pk, probe, need);
    case 'pair':
      return placePair(lay, pk, probe, need);
    case 'headroom':
      return placeHeadroom(lay, pk, probe, need);
    case 'sacrificial':
      return placeMarked(lay, pk, probe, {
        mark: 'sacrificial',
        why: `opt-in: needs a ${pk.plan} key marked "sacrificial": true in the keys file`,
        // After the plan's other steps.
        at: () => Math.max(0, ...pk.sims.map((k) => k.free)),
        requests: (key) => need.requests(key.quota),
        ends: (_key, at) => at + need.holdsMs,
      });
    case 'audit':
      return placeMarked(lay, pk, probe, {
        mark: 'audit',
        why: `opt-in: needs a ${pk.plan} key marked "audit": true in the keys file (the audit spends its day)`,
        // From the start, side by side with the other plans'.
        at: () => 0,
        requests: (key) => need.requests(figuresOf(key)),
        ends: (key) => need.holdsMs(figuresOf(key)),
      });
    case 'none':
      // Laid out once, before the plans (placeKeyless).
      return;
    default: {
      const unplaced: never = need;
      throw new Error(`the planner has no placer for ${JSON.stringify(unplaced)}`);
    }
  }
}

/**
 * Lays out one plan's steps on its keys. `roomFirst`: the headroom probes without requests without a key go before
 * those with (see planSchedule).
 */
function placePlan(
  lay: Layout,
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
  for (const { pr } of ranked) place(lay, pk, pr.name, pr.needs);
  for (const s of sims) {
    if (s.requests > 0) lay.requestsByKey[s.key.label] = (lay.requestsByKey[s.key.label] ?? 0) + s.requests;
    if (s.exhausted && s.spentBy !== null && s.openAt !== null)
      lay.held.push({ label: s.key.label, probe: s.spentBy, until: s.openAt + MINUTE_MS + TOL_MS });
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
  const lay: Layout = {
    requestRunMs: requestMs * scale,
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
  spendAddress(lay.address, 0, 1);
  const probes = probesInOrder(given.probes);
  for (const pr of probes) if (pr.needs.window === 'none' && runs(pr.name, null)) placeKeyless(lay, pr.name, pr.needs);
  for (const [i, { plan, keys }] of given.plans.entries()) {
    const usable = keys.filter(isUsable(keys)).length;
    keysPerPlan[plan] = { have: keys.length, used: Math.min(usable, FASTEST_KEYS) };
    placePlan(
      lay,
      plan,
      keys,
      probes.filter((pr) => runs(pr.name, plan)),
      roomFirst(i),
    );
  }
  const durationMs = Math.max(0, ...lay.steps.map((s) => s.ends));
  const steps = [...lay.steps].sort((a, b) => a.at - b.at || a.id - b.id);
  return {
    steps,
    durationMs,
    windows: durationMs / MINUTE_MS,
    requestsByKey: lay.requestsByKey,
    unkeyed: lay.unkeyed,
    keysPerPlan,
    fastestKeysPerPlan: FASTEST_KEYS,
    reasons: [],
    skipped: lay.skipped,
    held: lay.held,
  };
}

/** How much longer than with FASTEST_KEYS keys per plan a schedule may be before it says why (a share of it). */
const REASONS_MARGIN = 0.05;

/**
 * The schedule, and why it is longer than with FASTEST_KEYS keys per plan: the same plan laid out with that many
 * (hypothetical) keys, compared window for window.
 */
export function planWithReasons(given: ScheduleInput): Schedule {
  const s = planSchedule(given);
  const short = given.plans.filter(
    (sp) => sp.keys.filter(isUsable(sp.keys)).length < FASTEST_KEYS && sp.keys.length > 0,
  );
  if (short.length === 0) return s;
  const ideal = planSchedule({
    ...given,
    plans: given.plans.map((sp) => {
      const base = sp.keys[0];
      if (!base || sp.keys.length >= FASTEST_KEYS) return sp;
      const extra = Array.from({ length: FASTEST_KEYS - sp.keys.length }, (_, i) => ({
        ...base,
        label: `${sp.plan}#extra${i}`,
        sacrificial: false,
      }));
      return { ...sp, keys: [...sp.keys, ...extra] };
    }),
  });
  const reasons: string[] = [];
  if (s.durationMs <= ideal.durationMs * (1 + REASONS_MARGIN)) return s;
  const named = (w: WindowNeed['window']) =>
    probesInOrder(given.probes)
      .filter((pr) => pr.needs.window === w)
      .map((pr) => pr.name)
      .join(', ');
  for (const sp of short) {
    const n = sp.keys.filter(isUsable(sp.keys)).length;
    reasons.push(
      n === 1
        ? `${sp.plan} has one key: the probes that need a fresh window (${named('fresh')}) and the wait for a 429 each need a window of it in turn, and those that need two keys (${named('pair')}) are skipped`
        : `${sp.plan} has ${n} keys: the probes that need two keys (${named('pair')}) and the headroom probes wait for the window after the 429s`,
    );
  }
  reasons.push(
    `with ${FASTEST_KEYS} keys per plan the pass would take about ${fmtWindows(ideal.windows)} windows instead of ${fmtWindows(s.windows)}`,
  );
  return { ...s, reasons };
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
