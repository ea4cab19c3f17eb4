/**
 * How many independent counters answer a key (docs/checks.md, "Fleets and approximate limiters"): replicas with
 * local counters behind a balancer each keep the limit alone, and a key's answers interleave their sequences.
 *
 * Read from a key's sequential accepted answers (each sent after the one before completed, neither overlapping
 * another request on the key), split into tracks: a track is one counter's sequence, its answers of one Limit under
 * one Reset (whole-second rounding apart), Remaining going down by exactly one from answer to answer. An answer
 * continues the track of the answer before it when it can; else an earlier track it continues exactly (a **return**:
 * the sequence of another counter picked up where it was left); else it opens a track. One counter never returns:
 * within one window its Remaining only falls, so an earlier track, left at a higher Remaining, is never continued.
 * Several counters answering in turn return nearly every time. A key is read as several counters after
 * `MIN_RETURNS` returns; the count is the round most returns went (how many tracks answered before a counter's turn
 * came back), which a stale track or a window turning over does not change.
 *
 * One counter that gives quota back as it goes (a token bucket, GCRA) returns too, by coincidence: a refill between
 * two answers keeps Remaining where it was, and a later answer may then continue an older track (a machine slow
 * enough to send at about the refill's pace makes it common). Each such return owes at least one request's worth to
 * a refill, and refills are bounded by the Limit a minute: a key is read as several counters only when its returns
 * took back more than that many refills over their span could give (`REFILL_SLACK` more), unless one of them shows a
 * fixed window. A bucket's Reset (when it is full again) runs ahead with the clock wherever Remaining can fall, so
 * a track of it lives a second or two (its Reset within a second of the one it opened with); a fixed window's
 * Reset holds for the whole window. A return to a track opened `HELD_MS` or more before, its Reset unchanged, is a
 * fixed window's: such counters (a fleet's replicas) are read whatever the pace.
 */
import { MINUTE_MS } from '../../api/plans.js';
import type { PlanName } from '../../api/plans.js';

/** One answer of a valid key with usable X-RateLimit-* (what the stream checks, the shape and the counters read). */
export interface RateLimitSample {
  readonly limit: number;
  readonly remaining: number;
  readonly reset: number;
  /** Target-clock ms of the answer (Date, else the local clock). */
  readonly serverMs: number;
  readonly sent: number;
  readonly done: number;
  readonly accepted: boolean;
  /** It overlapped another request on the key: its order at the server is unknown, so no pair is read with it. */
  readonly overlapped: boolean;
}

interface Track {
  readonly limit: number;
  readonly reset: number;
  /** Run-clock ms its first answer's request was sent. */
  readonly openedAt: number;
  remaining: number;
}

interface KeyTracks {
  tracks: Track[];
  /** The track of the key's previous answer, null when the chain broke (an overlap, a refusal, no usable triple). */
  prev: Track | null;
  lastDone: number;
  /** The tracks of the key's last answers, newest last. */
  recent: Track[];
  returns: number;
  /** How many returns went round how many tracks (index: tracks in the round, up to MAX_TRACKS). */
  rounds: number[];
  /** What the returns took back: per return, its Remaining above the previous answer's less one. */
  regained: number;
  /** Returns to a track opened HELD_MS or more before, under its Reset: a fixed window's. */
  held: number;
  /** Run-clock ms of the first return's previous answer's send and of the last return's answer; the Limit read. */
  firstAt: number | null;
  lastAt: number;
  limit: number;
  /** Run-clock ms the previous sequential accepted answer's request was sent. */
  prevSent: number;
}

/** Tracks remembered per key: more than a fleet of this many replicas is read as this many. */
const MAX_TRACKS = 4;
/** Returns before a key is read as several counters: one could be a coincidence (a late write, a refill). */
export const MIN_RETURNS = 3;
/** Refills beyond the Limit's pace that returns may owe to one counter (a refill already under way at the start). */
const REFILL_SLACK = 2;
/**
 * How old a track a return must reach, its Reset unchanged, to show a fixed window (target-clock ms, as the run clock
 * counts them). A bucket's Remaining falls from one answer to the next only while requests outpace its refill, and
 * then its Reset runs ahead at least as fast as the clock: no track of it stays within a second of its Reset this long.
 */
const HELD_MS = 5000;

export interface CounterReader {
  see(plan: PlanName, key: string, s: RateLimitSample): void;
  /** The most independent counters seen answering one key of the plan (1 when none interleaved). */
  countersOf(plan: PlanName | null): number;
  /** The keys read as several counters, and their returns, per plan (for the evidence). */
  evidenceOf(plan: PlanName | null): { keys: number; returns: number } | null;
}

const continues = (t: Track, s: RateLimitSample): boolean =>
  t.limit === s.limit && Math.abs(t.reset - s.reset) <= 1 && t.remaining - 1 === s.remaining;

/** How many tracks answered since `t` last did, `t` included: the round its counter's turn came back after. */
function roundOf(k: KeyTracks, t: Track): number {
  const between = new Set<Track>();
  for (let i = k.recent.length - 1; i >= 0 && k.recent[i] !== t; i--) between.add(k.recent[i]!);
  return Math.min(MAX_TRACKS, between.size + 1);
}

function follow(k: KeyTracks, s: RateLimitSample): void {
  // A track whose Reset has passed is a window that ended: no counter continues it. (In place: this runs for
  // every exchange of a load, and nearly always removes nothing.)
  for (let i = k.tracks.length - 1; i >= 0; i--) {
    if (k.tracks[i]!.reset * 1000 >= s.serverMs - 1000) continue;
    if (k.tracks[i] === k.prev) k.prev = null;
    k.tracks.splice(i, 1);
  }
  const sequential = !s.overlapped && s.sent > k.lastDone;
  k.lastDone = Math.max(k.lastDone, s.done);
  if (!sequential || !s.accepted) {
    k.prev = null;
    return;
  }
  const prev = k.prev;
  let t = prev !== null && continues(prev, s) ? prev : undefined;
  if (t === undefined) {
    t = k.tracks.find((x) => x !== prev && continues(x, s));
    if (t !== undefined && prev !== null) {
      k.regained += Math.max(0, s.remaining - (prev.remaining - 1));
      if (s.sent - t.openedAt >= HELD_MS) k.held++;
      k.firstAt ??= k.prevSent;
      k.lastAt = s.done;
      k.limit = s.limit;
      k.returns++;
      const n = roundOf(k, t);
      k.rounds[n] = (k.rounds[n] ?? 0) + 1;
    }
  }
  if (t === undefined) {
    t = { limit: s.limit, reset: s.reset, openedAt: s.sent, remaining: s.remaining };
    k.tracks.push(t);
    if (k.tracks.length > MAX_TRACKS) k.tracks.shift();
  } else t.remaining = s.remaining;
  k.prev = t;
  k.prevSent = s.sent;
  k.recent.push(t);
  if (k.recent.length > 2 * MAX_TRACKS) k.recent.shift();
}

/** The key's counters: the round most returns went (the smaller on a tie), once it has returned often enough. */
function countersOfKey(k: KeyTracks): number {
  if (k.returns < MIN_RETURNS) return 1;
  const refills = k.firstAt === null ? 0 : ((k.lastAt - k.firstAt) * k.limit) / MINUTE_MS;
  if (k.held === 0 && k.regained <= refills + REFILL_SLACK) return 1;
  let best = 1;
  for (let n = 2; n <= MAX_TRACKS; n++) if ((k.rounds[n] ?? 0) > (k.rounds[best] ?? 0)) best = n;
  return best;
}

export function createCounterReader(): CounterReader {
  const keys = new Map<string, KeyTracks & { plan: PlanName }>();
  const several = (plan: PlanName | null) => [...keys.values()].filter((k) => k.plan === plan && countersOfKey(k) >= 2);

  return {
    see(plan, key, s) {
      let k = keys.get(key);
      if (k === undefined)
        keys.set(
          key,
          (k = {
            plan,
            tracks: [],
            prev: null,
            lastDone: -Infinity,
            recent: [],
            returns: 0,
            rounds: [],
            regained: 0,
            held: 0,
            firstAt: null,
            lastAt: 0,
            limit: 0,
            prevSent: 0,
          }),
        );
      follow(k, s);
    },
    countersOf: (plan) => Math.max(1, ...several(plan).map(countersOfKey)),
    evidenceOf: (plan) => {
      const ks = several(plan);
      return ks.length === 0 ? null : { keys: ks.length, returns: ks.reduce((a, k) => a + k.returns, 0) };
    },
  };
}
