import type { PlanName } from '../api/plans.js';
import type { CheckId } from '../checks/catalogue.js';
import type { ProbeContext } from './context.js';
import type { ProbeName } from './names.js';

/** How a probe's requests share the wire with the other probes' (src/engine/run-schedule.ts). */
export type SendMode =
  /**
   * Its judgement counts what a key's window admitted, or its keyless requests may be charged to every key: from
   * its first request to its end no other probe's request goes out.
   */
  | 'alone'
  /** Its one request must go out at the instant it waited for (a Retry-After to judge): never held back. */
  | 'on-time'
  /** Anything else: it waits while a probe sends alone. */
  | 'shared';

/**
 * What a probe needs of the plan's keys and their minute windows, as a k6 executor states its execution
 * requirements: the probe planner (src/engine/schedule.ts) lays the schedule out from these alone. A key `slot` is
 * the place of the key among the plan's usable keys (0: the first); where the plan has fewer keys, a slot falls on
 * the last key it has. Spans are real ms, given `requestMs`: the real ms of one request, one after another (the
 * link's round trip and the target's answer; about 1 on loopback); the planner scales them to the run clock.
 */
export type WindowNeed =
  /** Requests without a valid key only: once, before the plans, on the client address's budget. */
  | { readonly window: 'none'; readonly unkeyed: number }
  /**
   * Its own window from its first request, with `requests(quota)` on it in `span(quota, requestMs)`. One such
   * exact count runs at a time in a plan, and across plans on loopback (docs/schedule.md, "At a distance"). A fresh
   * probe whose slot falls on a key another fresh probe of the plan has runs last, in that key's next window.
   * `spareKey`: it may count again on the key after the fastest pass's.
   */
  | {
      readonly window: 'fresh';
      readonly slot: number;
      readonly requests: (quota: number) => number;
      readonly span: (quota: number, requestMs: number) => number;
      readonly spareKey?: boolean;
    }
  /**
   * A 429 left on its key by an earlier step, to wait out: it sends one request in the key's next window. With no
   * 429 to wait out it exhausts the key first, `exhaustSpan(requests, requestMs)` long.
   */
  | {
      readonly window: 'refusal';
      readonly slot: number;
      readonly exhaustSpan: (requests: number, requestMs: number) => number;
    }
  /**
   * Two distinct keys of the plan: it spends what is left of the first key's open window (`exhaustSpan`) and sends
   * `second` requests on the other. Skipped when the plan has one key.
   */
  | {
      readonly window: 'pair';
      readonly slots: readonly [number, number];
      readonly second: number;
      readonly exhaustSpan: (requests: number, requestMs: number) => number;
    }
  /**
   * Room in the window open on its key for `requests`; `unkeyed` more without a key, on the client address's budget
   * (such a probe goes first among the headroom probes: it may need a key window of its own to last across an
   * address window).
   */
  | { readonly window: 'headroom'; readonly slot: number; readonly requests: number; readonly unkeyed?: number }
  /**
   * A key marked sacrificial (skipped without one), after the plan's other steps, `holdsMs` of the run clock. A
   * scenario with such a probe must say `requiresSacrificialKey: true`; `because` says why (config/scenario.ts).
   */
  | {
      readonly window: 'sacrificial';
      readonly requests: (quota: number) => number;
      readonly holdsMs: number;
      readonly because: string;
    }
  /**
   * A key marked for the audit (skipped without one), from the start, side by side with the other plans'; its
   * requests and the run-clock ms it takes follow the key's figures. A scenario with such a probe must say
   * `requiresAuditKey: true`; `because` says why (config/scenario.ts).
   */
  | {
      readonly window: 'audit';
      readonly because: string;
      readonly requests: (figures: KeyFigures) => number;
      readonly holdsMs: (figures: KeyFigures) => number;
    };

/** A key's sold figures, as the planner knows them. */
export interface KeyFigures {
  readonly perMinute: number;
  readonly perDay: number;
}

/**
 * The probe's design on a compliant target, beyond its planned span: what its own time bound is derived from
 * (src/engine/probe-bounds.ts: the design and a margin, never shorter), and whether refusals are its business.
 */
export interface ProbeDesign {
  /**
   * Minute windows it waits out by itself, one after another, within its step (the planner's span begins after the
   * first): a 429's window to end, each at most a window and Reset's rounding. Absent: none.
   */
  readonly waits?: number;
  /**
   * Run-clock ms it may take beyond its planned span by bounded waits the planner cannot foresee (the ban probe
   * following a ban); absent: none. The run's deadline allows for it too.
   */
  readonly beyondPlanMs?: number;
  /**
   * Refusals are what it provokes or judges (the ban probe, the plan audit, the probes that wait a 429 out and judge
   * the answer after it): its 429s never end it (its own loop bounds them); server errors and silences still do.
   */
  readonly expectsRefusals?: boolean;
}

export type ProbeNeeds = WindowNeed & ProbeDesign & { readonly sends: SendMode };

/** An active sequence. `perPlan` probes run once per judged plan; the others once with plan null. */
export interface Probe {
  readonly name: ProbeName;
  /** The checks this probe exists to judge (passive checks judge its exchanges too). */
  readonly checks: readonly CheckId[];
  readonly perPlan: boolean;
  /**
   * What it needs of keys, windows and the wire (the planner reads nothing else of a probe), and its design beyond
   * the plan (its own waits, refusals it expects), from which its bounds follow.
   */
  readonly needs: ProbeNeeds;
  /**
   * What the probe sends on its nominal path (no retry after a 429), when that is a fixed number: requests on
   * the plan's key, and requests without a valid key.
   */
  readonly requests?: { readonly keyed: number; readonly unkeyed: number };
  run(ctx: ProbeContext, plan: PlanName | null): Promise<void>;
}
