/**
 * A plan's share of a load phase: its keys (which share its traffic round-robin), the backoff policy between
 * the executor and the target, and the counts the phase reports. Every request of the load goes through a
 * lane: it picks a key the policy lets it send on, sends, learns from the answer, and retries a refused
 * request on a free key of the plan while tries last.
 */
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { BackoffPolicy, SuspectedBan, Verdict } from '../backoff/policy.js';
import { readWindow } from '../backoff/response.js';
import type { PlanPhaseRecord } from '../backoff/no-ban.js';
import { AcceptedWindows } from '../backoff/windows.js';
import type { ApiKey } from '../core/api-key.js';
import { retryAfterMs, TOLERANCE_MS } from '../backoff/key-state.js';
import type { Exchange, RequestSpec, TrafficSource } from '../http/exchange.js';
import type { Budget } from './budget.js';
import type { LoadContext } from './context.js';
import type { Traffic } from './traffic.js';

/** What a plan did in one phase. `planned` arrivals became `sent` requests (first tries), or were held back or dropped. */
export interface PlanCounts {
  planned: number;
  /** Requests sent, retries included. */
  sent: number;
  retries: number;
  /** 2xx. */
  accepted: number;
  /** 429 and other refusals (see backoff/response.ts). */
  refused: number;
  /** Answered without being accepted or refused (400, 404, 5xx...). */
  answered: number;
  /** No response (transport error). */
  failed: number;
  /** Not sent because every key of the plan was waiting (backoff), not counted as dropped. */
  heldBack: number;
  /** Not sent because the in-flight cap was reached (also counted by ctx.dropped, like k6's dropped iterations). */
  dropped: number;
  /** Refused requests not retried any more: tries used up, the phase ended, or no key became free in time. */
  gaveUp: number;
}

/** Arrivals a plan held back for one cause, and until when the cause held (local run-clock time). */
export interface HeldBack {
  /** `free#1 (…b0e7) waiting out a 429 of probe enforce`. */
  readonly cause: string;
  count: number;
  until: number;
}

const newCounts = (): PlanCounts => ({
  planned: 0,
  sent: 0,
  retries: 0,
  accepted: 0,
  refused: 0,
  answered: 0,
  failed: 0,
  heldBack: 0,
  dropped: 0,
  gaveUp: 0,
});

/** What every lane of a load section shares. */
export interface LaneShared {
  readonly ctx: LoadContext;
  readonly policy: BackoffPolicy;
  readonly traffic: Traffic;
  readonly budget: Budget;
  /** Requests per planned request at most (1: no retry). */
  readonly maxTries: number;
  /** Requests in flight at most on the engine's client; a retry that would exceed it gives up. */
  readonly maxInFlight: number;
}

export interface LaneOptions {
  readonly plan: PlanName;
  readonly keys: readonly ApiKey[];
  /** The exchanges' tag: the executor's name. */
  readonly tag: string;
  /** The phase's label (`phase 1 (constant-rate)`): the exchanges' traffic is the load's, under that name. */
  readonly phase?: string;
  readonly signal: AbortSignal;
  /** Local run-clock time at which the phase ends: no retry waits past it. */
  readonly endsAt: number;
}

export class PlanLane {
  readonly plan: PlanName;
  readonly keys: readonly ApiKey[];
  readonly counts: PlanCounts = newCounts();
  readonly bans: SuspectedBan[] = [];
  readonly record: PlanPhaseRecord;
  private cursor = 0;
  private pending = 0;
  /** Why arrivals were held back, by cause (the key states know why a key waits). */
  private readonly holds = new Map<string, HeldBack>();
  private onIdle: (() => void) | null = null;
  private failure: { error: unknown } | null = null;
  /** Whose traffic the lane's exchanges are: its phase's, one object for all of them. */
  private readonly traffic: TrafficSource | null;

  constructor(
    private readonly shared: LaneShared,
    private readonly options: LaneOptions,
  ) {
    this.plan = options.plan;
    this.keys = options.keys;
    this.traffic = options.phase === undefined ? null : Object.freeze({ class: 'load', name: options.phase });
    this.record = {
      plan: options.plan,
      keys: options.keys,
      windows: new AcceptedWindows(),
      bans: this.bans,
      accepted: 0,
      refused: 0,
      heldBack: 0,
      dayQuotaSpent: false,
    };
  }

  /** A key the policy lets the plan send on now, round-robin from the last one used; null if all are waiting. */
  freeKey(now: number): ApiKey | null {
    const n = this.keys.length;
    for (let j = 0; j < n; j++) {
      const i = (this.cursor + j) % n;
      const key = this.keys[i]!;
      if (this.shared.policy.isFree(key, now)) {
        this.cursor = (i + 1) % n;
        return key;
      }
    }
    return null;
  }

  /** Whether some key of the plan is not suspected banned. */
  alive(): boolean {
    return this.keys.some((k) => !this.shared.policy.isBanned(k));
  }

  /** Count an arrival that found every key waiting, with why. */
  holdBack(): void {
    this.counts.heldBack++;
    this.record.heldBack++;
    const { cause, until } = this.whyHeld(this.shared.ctx.clock.now());
    const held = this.holds.get(cause);
    if (held === undefined) this.holds.set(cause, { cause, count: 1, until });
    else {
      held.count++;
      held.until = Math.max(held.until, until);
    }
  }

  /** The causes of the arrivals held back so far, most first. */
  heldBack(): HeldBack[] {
    return [...this.holds.values()].sort((a, b) => b.count - a.count);
  }

  /** Why the plan cannot send now (every key waits): the first waiting key's reason, from its state. */
  private whyHeld(now: number): { cause: string; until: number } {
    const { ctx, policy } = this.shared;
    for (const key of this.keys) {
      const s = ctx.keyStates.get(key);
      if (s.suspectedBan) continue;
      if (s.blockedUntil > now)
        return {
          cause: `${key.label} waiting out a 429 of ${s.blockedBy ?? 'an earlier request'}`,
          until: s.blockedUntil,
        };
      const ready = policy.readyAt(key);
      if (ready > now) return { cause: `${key.label} in the backoff after a refusal`, until: ready };
      return { cause: `${key.label} at the end of its Remaining (no request left in its window)`, until: now };
    }
    return { cause: 'every key suspected banned', until: now };
  }

  /** Count an arrival that found the in-flight cap reached. */
  drop(): void {
    this.counts.dropped++;
    this.shared.ctx.dropped();
  }

  /**
   * Wait for a key the policy lets the plan send on, until `until` (local run-clock time) at the latest.
   * Null when the time is up, the phase stopped or every key of the plan is suspected banned.
   */
  async waitForKey(until: number): Promise<ApiKey | null> {
    const { clock } = this.shared.ctx;
    const policy = this.shared.policy;
    while (!this.options.signal.aborted && this.alive()) {
      const now = clock.now();
      const key = this.freeKey(now);
      if (key !== null) return key;
      if (now >= until) return null;
      const soonest = this.keys.reduce(
        (t, k) => (policy.isBanned(k) ? t : Math.min(t, policy.readyAt(k))),
        Number.POSITIVE_INFINITY,
      );
      // A key whose wait is over but whose one half-open request is on its way: look again a real ms later.
      await clock.sleep(Math.min(until, Math.max(soonest, now + clock.scale)) - now, this.options.signal);
    }
    return null;
  }

  /**
   * Send one planned request on `first` (already taken from the budget by the caller) and retry it while it is
   * refused and tries last. Resolves when it is done; never rejects (a tool error is kept for `idle`).
   */
  async request(first: ApiKey, intended?: number): Promise<void> {
    this.pending++;
    try {
      const { ctx, traffic, maxTries, budget, maxInFlight } = this.shared;
      let key = first;
      let spec: RequestSpec = traffic.spec(key, this.options.tag);
      if (this.traffic !== null) spec.traffic = this.traffic;
      if (intended !== undefined) spec.intended = intended;
      for (let tries = 1; ; tries++) {
        const sentAt = this.sending(key, tries);
        const ex = await ctx.send(spec);
        if (this.learn(key, sentAt, ex, tries > 1) !== 'refused') return;
        const next = tries < maxTries ? await this.waitForKey(this.options.endsAt) : null;
        if (next === null || ctx.inFlight() >= maxInFlight || !budget.take()) {
          this.counts.gaveUp++;
          return;
        }
        key = next;
        spec = { ...spec, auth: { kind: 'key', key } };
        delete spec.intended;
      }
    } catch (error) {
      this.failure ??= { error };
    } finally {
      this.pending--;
      if (this.pending === 0) this.onIdle?.();
    }
  }

  /** Like `request`, without waiting for it. */
  start(key: ApiKey, intended?: number): void {
    void this.request(key, intended);
  }

  /** Note a request about to be sent on `key`; returns its send time (local run clock). */
  sending(key: ApiKey, tries = 1): number {
    const at = this.shared.ctx.clock.now();
    this.shared.policy.noteSent(key, at);
    this.counts.sent++;
    if (tries > 1) this.counts.retries++;
    return at;
  }

  /** Learn from the answer to a request sent on `key` at `sentAt` (a retry or not): policy, ids, counts, accepted windows. */
  learn(key: ApiKey, sentAt: number, ex: Exchange, retry = false): Verdict {
    this.shared.traffic.learn(ex);
    const w = readWindow(ex, key);
    const verdict = this.shared.policy.onResponse(key, sentAt, ex, w);
    if (ex.error?.kind === 'aborted') {
      const unsent = ex.error.unsent;
      if (unsent === undefined) {
        // Abandoned on its way when the run stopped: sent, never answered.
        this.counts.failed++;
        return verdict;
      }
      // Never written, so not a send. Held back when a 429 on its key arrived while it was queued.
      this.counts.sent--;
      if (retry) this.counts.retries--;
      if (unsent === 'held-back') this.holdBack();
      return verdict;
    }
    this.record.windows.note(key, sentAt, ex, w);
    switch (verdict) {
      case 'accepted':
        this.counts.accepted++;
        this.record.accepted++;
        break;
      case 'refused':
      case 'banned': {
        this.counts.refused++;
        this.record.refused++;
        // A refusal of the day window: the day figure, not the minute one, caps the throughput from now on.
        const wait = retryAfterMs(ex);
        if (
          (w.window === 'day' && w.remaining === 0 && key.limits.perDay !== key.limits.perMinute) ||
          (wait !== null && wait > MINUTE_MS + TOLERANCE_MS)
        ) {
          this.record.dayQuotaSpent = true;
        }
        break;
      }
      case 'answered':
        this.counts.answered++;
        break;
      case 'no-response':
        this.counts.failed++;
        break;
    }
    return verdict;
  }

  /** Resolves when no request of the lane is on its way; rethrows a tool error one of them met. */
  async idle(): Promise<void> {
    if (this.pending > 0) await new Promise<void>((resolve) => (this.onIdle = resolve));
    this.onIdle = null;
    if (this.failure) throw this.failure.error;
  }
}
