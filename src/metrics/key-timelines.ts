/**
 * Per key (label and plan): Remaining/Limit as the target reported them, and every 429 with its Retry-After and the
 * wait its Reset gives, each bounded to KEY_TIMELINE_CAP points however long the run. Remaining keeps a min/max envelope so that
 * an exhausted window (Remaining 0) stays visible; refusals keep every n-th one, n doubling.
 * Headers are read with the checks' parsers and anything unusable is skipped: judging them is the checks' job.
 */
import type * as z from 'zod';
import type { PlanName } from '../api/plans.js';
import type { KeyTimeline as KeyTimelineSchema } from '../report/schema.js';
import { type Exchange, type HeaderMap, headerValues } from '../http/exchange.js';
import { parseRetryAfter } from '../http/headers.js';
import { rateLimitOf } from '../http/parsed.js';
import { serverTimeOf } from '../http/server-time.js';
import { EnvelopeSampler, StrideSampler } from './downsample.js';

export type KeyTimeline = z.infer<typeof KeyTimelineSchema>;

export const KEY_TIMELINE_CAP = 500;

/**
 * Retry-After in seconds: delay-seconds as given; an HTTP-date as the seconds (ms precision, at least 0)
 * from the response's Date (the server's timeline; the run clock without one) to that date. Null when absent, repeated or unreadable.
 */
function retryAfterSeconds(headers: HeaderMap, responseEpochMs: number): number | null {
  const values = headerValues(headers, 'retry-after');
  if (values.length !== 1) return null;
  const r = parseRetryAfter(values[0]!);
  if (r.kind === 'seconds') return Number.isFinite(r.seconds) ? r.seconds : null;
  if (r.kind === 'date') return Math.max(0, Math.round(r.epochMs - responseEpochMs)) / 1000;
  return null;
}

const EPOCH_S = 1e9;
const EPOCH_MS = 1e11;

/**
 * The wait a response's X-RateLimit-Reset gives, in seconds on the server's clock: a Unix timestamp (seconds, or
 * milliseconds) less the server's time of the answer (its Date: src/http/server-time.ts), or delta-seconds as given.
 * Null when Reset is absent or unreadable. The checks judge Reset's form; this only reads the promise.
 */
function resetWaitSeconds(ex: Exchange): number | null {
  const { reset } = rateLimitOf(ex);
  if (!reset.ok) return null;
  if (reset.value < EPOCH_S) return reset.value;
  const resetMs = reset.value < EPOCH_MS ? reset.value * 1000 : reset.value;
  return (resetMs - serverTimeOf(ex)) / 1000;
}

interface KeyState {
  /** [t, Remaining, Limit] */
  remaining: EnvelopeSampler;
  /** [t, Retry-After seconds, Reset's wait in seconds] */
  refusals: StrideSampler;
}

function newState(cap: number): KeyState {
  return { remaining: new EnvelopeSampler(cap), refusals: new StrideSampler(cap) };
}

export class KeyTimelines {
  private readonly byPlan = new Map<PlanName, Map<string, KeyState>>();

  constructor(private readonly cap = KEY_TIMELINE_CAP) {}

  private state(plan: PlanName, key: string): KeyState {
    let keys = this.byPlan.get(plan);
    if (keys === undefined) {
      keys = new Map();
      this.byPlan.set(plan, keys);
    }
    let s = keys.get(key);
    if (s === undefined) {
      s = newState(this.cap);
      keys.set(key, s);
    }
    return s;
  }

  /** Takes the exchange's rate-limit facts at `tMs` (run clock, ms since start). Ignores requests without a key. */
  add(ex: Exchange, tMs: number): void {
    if (ex.auth !== 'valid' || ex.keyLabel === null || ex.plan === null || ex.status === null) return;
    // The triple the checks already read for this exchange (parsed once, on the exchange).
    const { remaining, limit } = rateLimitOf(ex);
    const refused = ex.status === 429;
    if (!(remaining.ok && limit.ok) && !refused) return;
    const s = this.state(ex.plan, ex.keyLabel);
    if (remaining.ok && limit.ok) s.remaining.push(tMs, remaining.value, limit.value);
    if (refused) s.refusals.push(tMs, retryAfterSeconds(ex.headers, serverTimeOf(ex)), resetWaitSeconds(ex));
  }

  snapshot(): KeyTimeline[] {
    const out: KeyTimeline[] = [];
    for (const [plan, keys] of this.byPlan) {
      for (const [key, s] of keys)
        out.push({ key, plan, remaining: s.remaining.samples(), refusals: s.refusals.samples() });
    }
    return out;
  }
}

/**
 * Combines the key timelines of runs merged side by side: a key present in both gets its points interleaved
 * by time and downsampled again to the same bound.
 */
export function mergeKeyTimelines(
  a: readonly KeyTimeline[],
  b: readonly KeyTimeline[],
  cap = KEY_TIMELINE_CAP,
): KeyTimeline[] {
  const groups = new Map<string, KeyTimeline[]>();
  for (const k of [...a, ...b]) {
    const id = `${k.plan}\u0000${k.key}`;
    groups.set(id, [...(groups.get(id) ?? []), k]);
  }
  const out: KeyTimeline[] = [];
  for (const list of groups.values()) {
    const first = list[0]!;
    if (list.length === 1) {
      out.push(first);
      continue;
    }
    const s = newState(cap);
    for (const [t, remaining, limit] of list.flatMap((k) => k.remaining).sort((x, y) => x[0] - y[0]))
      s.remaining.push(t, remaining, limit);
    for (const [t, retryAfter, resetWait] of list.flatMap((k) => k.refusals).sort((x, y) => x[0] - y[0]))
      s.refusals.push(t, retryAfter, resetWait);
    out.push({ key: first.key, plan: first.plan, remaining: s.remaining.samples(), refusals: s.refusals.samples() });
  }
  return out;
}
