/**
 * What a probe gets to work with: a way to send (every exchange is judged by the passive checks and measured),
 * the keys and what is known of their windows, the ledger, the clock, and a bounded way to wait.
 */
import type { OperationId } from '../api/operations.js';
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { CheckId } from '../checks/catalogue.js';
import type { Ledger } from '../checks/ledger.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import { heldUntil, retryAfterMs, type KeyView } from '../backoff/key-state.js';
import { isRateLimitRefusal } from '../checks/passive/contract.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import type { SkipReason } from '../checks/skip-reason.js';

/** A 429 a probe left on a key, and the exchange that brought it. */
export interface LeftRefusal {
  readonly key: ApiKey;
  readonly ex: Exchange;
}

/** Refusals probes leave behind, for the next probe that needs one to wait out (window.ts: Refusals). */
export interface RefusalShelf {
  push(key: ApiKey, ex: Exchange): void;
  pop(plan: PlanName): LeftRefusal | undefined;
}

export interface ProbeContext {
  readonly clock: Clock;
  readonly ledger: Ledger;
  /** The keys this probe may use (the schedule's choice for it) and what is known of their windows. */
  readonly keyStates: KeyView;
  readonly signal: AbortSignal;
  /** 429s left by earlier probes, for probes that need a refusal to wait out. */
  readonly refusals: RefusalShelf;
  /** Send one request; the exchange is observed by the passive checks, metrics and key state before it returns. */
  send(spec: RequestSpec): Promise<Exchange>;
  /** Send many requests at once over at least `specs.length` connections (a dedicated pool). */
  sendSimultaneous(specs: RequestSpec[]): Promise<Exchange[]>;
  /** Record a fact for the report's notes. */
  note(text: string): void;
  /** Progress line for the console (never contains a key). */
  log(text: string): void;
  /**
   * The probe takes part of its work again, beyond its plan (a window that rolled over during a count, a burst split
   * across two windows): `why`, a log line. The schedule's report names the step and what it sent beyond the plan.
   */
  again(why: string): void;
  /**
   * A mark for measuring a key's counter across other probes' traffic (absent: the probe runs alone). The returned
   * reading is how many requests of other probes, on any key or none, the target may have counted since the mark:
   * those in flight at the mark and those sent after it. Take the mark before the first request of the measurement.
   */
  othersMark?(): () => number;
  /**
   * The round trip to the target as measured so far, real ms: the shortest from a request's send to its answer's
   * head (null before any answer; absent: not measured). What a probe keeps in flight is sized from it (in-flight.ts).
   */
  roundTripMs?(): number | null;
  /**
   * For a probe that counts alone: its later requests exclude every other probe's, not only its plan's (a turn's
   * scope, src/engine/run-schedule.ts). Resolves true when its turn was narrower (others' requests may have been
   * counted with its own), false when it already excluded everyone (absent: the probe runs alone).
   */
  widenTurn?(): Promise<boolean>;
  /**
   * Told of a wait of a real second or more before it begins: until when (run clock) and what for, so that a
   * display never pauses without saying what it waits for (absent: nobody listens).
   */
  waiting?(untilLocal: number, reason: WaitReason): void;
}

/** Reads 0 when the probe runs alone. */
const NONE = () => 0;

/** A mark for `ctx.othersMark`, or a reading of 0 where the probe runs alone. */
export const othersSince = (ctx: ProbeContext): (() => number) => ctx.othersMark?.() ?? NONE;

/** The tag probes put on their exchanges. */
export const probeTag = (name: string) => `probe:${name}`;

export function keySpec(key: ApiKey, operation: OperationId, path: string, tag: string, body?: unknown): RequestSpec {
  const spec: RequestSpec = {
    operation,
    method: operation === 'createPet' ? 'POST' : 'GET',
    path,
    auth: { kind: 'key', key },
    tag,
  };
  if (body !== undefined) spec.body = typeof body === 'string' ? body : JSON.stringify(body);
  return spec;
}

/** A cheap request that any correct server answers 200: the smallest page of the list. */
export const cheapList = (key: ApiKey, tag: string) => keySpec(key, 'listPets', '/pets?limit=1', tag);

export const isAccepted = (ex: Exchange) => ex.status !== null && ex.status >= 200 && ex.status < 300;

/** What a wait is for, for the progress lines: whose wait it is (a key's label) and what it waits for. */
export interface WaitReason {
  readonly who: string;
  readonly for: string;
}

/** Waits shorter than this (real ms) go without a progress line. */
const TELL_WAIT_MS = 1000;

/** `free#2 (…9a3f): waiting 42 s for its window to restart`: a log line as a noticeable wait begins. */
export function waitLine(reason: WaitReason, realMs: number): string {
  return `${reason.who}: waiting ${Math.round(realMs / 1000)} s for ${reason.for}`;
}

/**
 * Wait on the run clock until `localTime`, abortable. A timer may fire up to a real millisecond early (a scaled
 * clock makes that many clock ms): the wait goes on until the time has really come, a few rounds at most. With a
 * reason, a wait of a real second or more says what it is for (to `ctx.waiting`, a progress display, or else
 * as a log line), so that progress never stalls unexplained.
 */
export async function waitUntil(ctx: ProbeContext, localTime: number, reason?: WaitReason): Promise<void> {
  const realMs = (localTime - ctx.clock.now()) / ctx.clock.scale;
  if (reason && realMs >= TELL_WAIT_MS && !ctx.signal.aborted) {
    if (ctx.waiting) ctx.waiting(localTime, reason);
    else ctx.log(waitLine(reason, realMs));
  }
  for (let round = 0; round < 8 && !ctx.signal.aborted; round++) {
    const ms = localTime - ctx.clock.now();
    if (ms <= 0) return;
    await ctx.clock.sleep(ms, ctx.signal);
  }
}

/** Keys of a plan that are not suspected banned. */
export function keysOf(ctx: ProbeContext, plan: PlanName): ApiKey[] {
  return ctx.keyStates
    .all()
    .filter((s) => s.key.plan === plan && !s.suspectedBan)
    .map((s) => s.key);
}

export interface FreshKey {
  key: ApiKey;
  /** 'unused': no request on it in this run, so every window is fresh; 'waited': the minute window holding its
   * last request has ended. */
  how: 'unused' | 'waited';
}

/**
 * A key of the plan on a fresh minute window: an unused key if there is one, else the key whose window ends first,
 * after waiting for that end (bounded by the window length). `exclude` keeps keys a probe already holds.
 */
export async function freshKey(
  ctx: ProbeContext,
  plan: PlanName,
  exclude: readonly ApiKey[] = [],
): Promise<FreshKey | null> {
  const candidates = ctx.keyStates
    .all()
    .filter((s) => s.key.plan === plan && !s.suspectedBan && !exclude.includes(s.key));
  const unused = candidates.find((s) => !s.used);
  if (unused) {
    unused.used = true; // reserve it
    return { key: unused.key, how: 'unused' };
  }
  if (candidates.length === 0) return null;
  const readyAt = (s: (typeof candidates)[number]) => Math.max(s.minuteWindowEndsBy ?? 0, s.blockedUntil);
  const best = candidates.reduce((a, b) => (readyAt(a) <= readyAt(b) ? a : b));
  const bound = ctx.clock.now() + MINUTE_MS + 2000;
  await waitUntil(ctx, Math.min(readyAt(best), bound), { who: best.key.label, for: 'its window to restart' });
  return { key: best.key, how: 'waited' };
}

/**
 * A key of the plan whose open window has room, for probes that need headroom rather than a fresh window: the
 * schedule (src/engine/schedule.ts) gives the probe a key with room; this waits out a running Retry-After only.
 */
export async function roomyKey(
  ctx: ProbeContext,
  plan: PlanName,
  exclude: readonly ApiKey[] = [],
): Promise<FreshKey | null> {
  const s = ctx.keyStates.all().find((st) => st.key.plan === plan && !st.suspectedBan && !exclude.includes(st.key));
  if (!s) return null;
  const how = s.used ? 'waited' : 'unused';
  s.used = true;
  await waitUntil(ctx, heldUntil(s, ctx.clock.now()), heldBack(s.key));
  return { key: s.key, how };
}

/** The wait of a key refused with a 429: until its Retry-After (or its window) ends. */
const heldBack = (key: ApiKey): WaitReason => ({ who: key.label, for: 'the end of the wait its 429 asked for' });

/** Skip every listed check for a plan with one reason. */
export function skipAll(ctx: ProbeContext, ids: readonly CheckId[], plan: PlanName | null, reason: SkipReason): void {
  for (const id of ids) ctx.ledger.skip(id, plan, reason);
}

/**
 * A key of the plan that may be sent on now: preferably one already used (unused keys stay fresh for the
 * rate-limit probes), waiting out a running Retry-After if every key has one (bounded by the window length).
 */
export async function usableKey(ctx: ProbeContext, plan: PlanName): Promise<ApiKey | null> {
  const states = ctx.keyStates.all().filter((s) => s.key.plan === plan && !s.suspectedBan);
  if (states.length === 0) return null;
  const now = ctx.clock.now();
  const ready = states.filter((s) => s.blockedUntil <= now);
  const pick = ready.find((s) => s.used) ?? ready[0];
  if (pick) return pick.key;
  const soonest = states.reduce((a, b) => (a.blockedUntil <= b.blockedUntil ? a : b));
  await waitUntil(ctx, heldUntil(soonest, now), heldBack(soonest.key));
  return soonest.key;
}

/**
 * Send, and if the answer is a rate-limit refusal (429, or an over-limit 5xx), wait what it asks (bounded by the window length) and try again: at most
 * `tries` requests. This is the probes' backoff policy for requests that are not about rate limits.
 */
export async function sendPatiently(ctx: ProbeContext, spec: RequestSpec, tries = 3): Promise<Exchange> {
  let ex = await ctx.send(spec);
  for (let i = 1; i < tries && isRateLimitRefusal(ex) && spec.auth.kind === 'key' && !ctx.signal.aborted; i++) {
    const s = ctx.keyStates.get(spec.auth.key);
    // An over-limit 5xx is a refusal too (in the wrong status): its Retry-After is waited as a 429's would be.
    const asked = ex.status === 429 ? null : retryAfterMs(ex);
    const until =
      asked !== null
        ? ex.localTime + Math.min(asked, MINUTE_MS)
        : s.blockedUntil > ctx.clock.now()
          ? s.blockedUntil
          : (s.minuteWindowEndsBy ?? ctx.clock.now() + MINUTE_MS);
    await waitUntil(ctx, Math.min(until, ctx.clock.now() + MINUTE_MS + 2000), heldBack(spec.auth.key));
    ex = await ctx.send(spec);
  }
  return ex;
}
