/**
 * The events of a run, in one stream: what every sink of a run (the report's notes, the console, a journal, a
 * live page, metrics) reads. The engine makes them in one place, `createRunEvents`, which redacts their free text
 * as it emits them, field by field from one table (REDACT below): a sink never sees a key, and a new sink needs no
 * redaction of its own. Events are plain data; an exchange event carries numbers and labels, never a header or a
 * body, so that making one costs no redaction on the hot path.
 */
import type { PlanName } from '../api/plans.js';
import type { ProbeProgress, ProgressStats } from './progress.js';

export type CheckEventStatus = 'pass' | 'fail' | 'skip';

/** A key's standing in a `keys` event. */
export interface KeyStanding {
  readonly label: string;
  readonly plan: PlanName;
  /** Requests sent on the key so far, and how many were answered 429. */
  readonly sent: number;
  readonly refused: number;
  /** A Retry-After received on the key is running: petload holds its requests back. */
  readonly heldBack: boolean;
  readonly suspectedBan: boolean;
}

export type RunEvent =
  /** The run has its target, plans and keys, and is about to send. */
  | {
      readonly type: 'started';
      readonly scenario: string;
      readonly target: string;
      readonly plans: readonly PlanName[];
      readonly keys: readonly { readonly label: string; readonly plan: PlanName }[];
      /** ISO time. */
      readonly at: string;
    }
  /** One exchange judged and measured (run-clock ms since the run's start; real latency in ms). */
  | {
      readonly type: 'exchange';
      readonly key: string | null;
      readonly plan: PlanName | null;
      readonly operation: string | null;
      /** null: no response (a transport failure). */
      readonly status: number | null;
      /** Real ms from the intended send time (latency) and from the actual send (service time). */
      readonly latencyMs: number;
      readonly serviceMs: number;
      /** X-RateLimit-Remaining as sent, when it was a plain integer. */
      readonly remaining: number | null;
      readonly at: number;
    }
  /**
   * A check's outcome on a plan settled or changed: its first outcome, its first failure, a new skip reason.
   * `counts` are the totals so far.
   */
  | {
      readonly type: 'check';
      readonly id: string;
      readonly plan: PlanName | null;
      readonly status: CheckEventStatus;
      readonly counts: { readonly passed: number; readonly failed: number; readonly skipped: number };
      /** The failure's message or the skip's reason that changed it. */
      readonly message?: string;
    }
  /**
   * The run's plan, once, before the probes: its expected length (run-clock ms, probes and load phases), the run
   * clock's scale, and the probe schedule's steps (run-clock ms from the schedule's start).
   */
  | {
      readonly type: 'planned';
      readonly durationMs: number;
      readonly scale: number;
      readonly steps: readonly {
        readonly probe: string;
        readonly plan: PlanName | null;
        readonly at: number;
        readonly ends: number;
      }[];
    }
  /** Each key's standing as the run stands, about once a second while it sends and once after (labels and numbers). */
  | { readonly type: 'keys'; readonly keys: readonly KeyStanding[] }
  /** A probe started or ended on a plan. */
  | { readonly type: 'probe'; readonly progress: ProbeProgress }
  /** A load phase's progress, about once a second. */
  | { readonly type: 'phase'; readonly progress: ProgressStats }
  /** A note for the report. */
  | { readonly type: 'note'; readonly text: string }
  /** A line for people: `notice` lines are shown even when the log is quiet. */
  | { readonly type: 'log'; readonly text: string; readonly notice: boolean }
  /** The run is over and its report written (or not: `files` null). */
  | {
      readonly type: 'ended';
      readonly verdict: string;
      readonly exitCode: number;
      readonly reason?: string;
      readonly files: Readonly<Record<string, string>> | null;
      /** The report's count of checks by outcome (a warning: a failure whose severity does not fail the run). */
      readonly summary?: {
        readonly passed: number;
        readonly failed: number;
        readonly warnings: number;
        readonly skipped: number;
      };
    };

export type RunEventType = RunEvent['type'];
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
type Redact = (text: string) => string;

/** The free text of each kind of event, redacted as it is made. A new kind must say what it has (it does not compile otherwise). */
const REDACT: { readonly [T in RunEventType]: (e: RunEventOf<T>, redact: Redact) => RunEventOf<T> } = {
  // Labels, names and a URL checked to carry no credentials: no free text.
  started: (e) => e,
  exchange: (e) => e,
  planned: (e) => e,
  keys: (e) => e,
  check: (e, redact) => (e.message === undefined ? e : { ...e, message: redact(e.message) }),
  probe: (e) => e,
  phase: (e) => e,
  note: (e, redact) => ({ ...e, text: redact(e.text) }),
  log: (e, redact) => ({ ...e, text: redact(e.text) }),
  ended: (e, redact) => (e.reason === undefined ? e : { ...e, reason: redact(e.reason) }),
};

/** Every type of event (the keys of REDACT, so that the list cannot miss one). */
export const RUN_EVENT_TYPES = Object.keys(REDACT) as RunEventType[];

export type RunEventListener<T extends RunEventType = RunEventType> = (e: RunEventOf<T>) => void;

export interface RunEvents {
  /** Redact the event's free text and hand it to every listener of its type, in the order they subscribed. */
  emit(e: RunEvent): void;
  /** Listen to one type of event; returns the unsubscribe. */
  on<T extends RunEventType>(type: T, listener: RunEventListener<T>): () => void;
  /** Whether anyone listens to a type (the hot path makes no exchange event for nobody). */
  wants(type: RunEventType): boolean;
}

export function createRunEvents(redact: Redact = (s) => s): RunEvents {
  // Listeners are kept by type; each is called only with events of its own type.
  type AnyListener = (e: RunEvent) => void;
  const listeners = new Map<RunEventType, AnyListener[]>();
  return {
    emit(e) {
      const mine = listeners.get(e.type);
      if (mine === undefined || mine.length === 0) return;
      const clean = (REDACT[e.type] as (e: RunEvent, r: Redact) => RunEvent)(e, redact);
      for (const l of mine) l(clean);
    },
    on(type, listener) {
      const mine = listeners.get(type) ?? [];
      const l = listener as unknown as AnyListener;
      mine.push(l);
      listeners.set(type, mine);
      return () => {
        const i = mine.indexOf(l);
        if (i >= 0) mine.splice(i, 1);
      };
    },
    wants: (type) => (listeners.get(type)?.length ?? 0) > 0,
  };
}

/** Keeps the text of every note, in order (the report's notes). */
export function collectNotes(events: RunEvents): { readonly all: () => string[] } {
  const notes: string[] = [];
  events.on('note', (e) => notes.push(e.text));
  return { all: () => [...notes] };
}
