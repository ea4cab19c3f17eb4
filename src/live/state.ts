/**
 * The live page's view of a run: a fold of the run's events into one snapshot, which the server sends about once
 * a second (not once per exchange). Latency per operation is kept in an HDR histogram per operation; traffic in
 * buckets of one real second. Everything here comes from events, which are redacted: keys appear as labels only.
 */
import type { PlanName } from '../api/plans.js';
import type { RunEvent, RunEventOf, RunEvents, RunEventType } from '../core/run-events.js';
import { createHistogram, type Histogram, percentile, record, totalCount } from '../metrics/histogram.js';
import {
  type CheckProblem,
  CheckTally,
  type CheckStanding,
  phaseAfter,
  type RunPhase,
  standingsOfSummary,
} from './tally.js';

/** How many seconds of traffic the page's chart shows. */
export const SERIES_SECONDS = 300;
/** How many failed or warned checks the page lists. */
const PROBLEMS_SHOWN = 20;

export interface TrafficSeries {
  /** Real seconds since the state began. */
  readonly t: number[];
  readonly sent: number[];
  readonly s2xx: number[];
  readonly s4xx: number[];
  readonly s429: number[];
  readonly s5xx: number[];
  readonly errors: number[];
}

export interface StatusMix {
  s2xx: number;
  /** 4xx other than 429. */
  s4xx: number;
  s429: number;
  s5xx: number;
  /** No response (a transport failure). */
  errors: number;
  /** 1xx and 3xx. */
  other: number;
}

export interface KeyView {
  readonly label: string;
  readonly plan: PlanName | null;
  sent: number;
  refused: number;
  remaining: number | null;
  heldBack: boolean;
  suspectedBan: boolean;
}

export interface PlanProbes {
  readonly plan: PlanName | null;
  readonly done: number;
  readonly total: number;
  readonly running: string[];
  /** Real seconds the schedule has left on this plan, by its plan; null when there is no plan. */
  readonly leftS: number | null;
}

export interface LiveSnapshot {
  readonly scenario: string | null;
  readonly target: string | null;
  readonly runPhase: RunPhase;
  /** Real seconds since the run started, and the run's expected length in real seconds (null until planned). */
  readonly elapsedS: number;
  readonly expectedS: number | null;
  readonly scale: number | null;
  readonly checks: Record<CheckStanding, number> & { readonly problems: CheckProblem[] };
  readonly traffic: {
    readonly sent: number;
    /** Exchanges in the last whole real second. */
    readonly perSecond: number;
    readonly status: StatusMix;
    readonly series: TrafficSeries;
  };
  readonly operations: { operation: string; count: number; p50Ms: number; p99Ms: number }[];
  readonly keys: KeyView[];
  readonly probes: PlanProbes[];
  readonly phase: RunEventOf<'phase'>['progress'] | null;
  readonly ended: {
    readonly verdict: string;
    readonly exitCode: number;
    readonly reason: string | null;
    /** Where report.html was written, shown as text; null when no report was written. */
    readonly reportFile: string | null;
    /** Where the page links to for it; null when there is nothing to link to. */
    readonly reportHref: string | null;
  } | null;
}

const emptySeries = (): TrafficSeries => ({ t: [], sent: [], s2xx: [], s4xx: [], s429: [], s5xx: [], errors: [] });
const SERIES_FIELDS = ['sent', 's2xx', 's4xx', 's429', 's5xx', 'errors'] as const;

/** A copy of each column, so that a snapshot does not move with the state. */
const copySeries = (s: TrafficSeries): TrafficSeries => ({
  t: [...s.t],
  sent: [...s.sent],
  s2xx: [...s.s2xx],
  s4xx: [...s.s4xx],
  s429: [...s.s429],
  s5xx: [...s.s5xx],
  errors: [...s.errors],
});

/** The column of the status mix an exchange counts in. */
function statusField(status: number | null): keyof StatusMix {
  if (status === null) return 'errors';
  if (status === 429) return 's429';
  if (status >= 200 && status < 300) return 's2xx';
  if (status >= 400 && status < 500) return 's4xx';
  if (status >= 500) return 's5xx';
  return 'other';
}

interface Planned {
  readonly durationMs: number;
  readonly scale: number;
  /** Each plan's last planned step end, run-clock ms from the schedule's start. */
  readonly ends: Map<PlanName | null, number>;
  readonly steps: Map<PlanName | null, number>;
}

export interface LiveStateOptions {
  /** Real ms (Date.now by default). */
  readonly now?: () => number;
  /** Where the page links to for report.html once the run ended (null: nothing to link to). */
  readonly reportHref?: (reportFile: string | null) => string | null;
}

export class LiveState {
  private readonly now: () => number;
  private readonly reportHref: (reportFile: string | null) => string | null;
  private readonly began: number;
  private scenario: string | null = null;
  private target: string | null = null;
  private startedAt: number | null = null;
  private runPhase: RunPhase = 'starting';
  private readonly tally = new CheckTally();
  private sent = 0;
  private readonly status: StatusMix = { s2xx: 0, s4xx: 0, s429: 0, s5xx: 0, errors: 0, other: 0 };
  private readonly series = emptySeries();
  private readonly latency = new Map<string, Histogram>();
  private readonly keys = new Map<string, KeyView>();
  private planned: Planned | null = null;
  private probesBegan: number | null = null;
  private readonly probes = new Map<PlanName | null, { done: number; total: number; running: string[] }>();
  private phase: LiveSnapshot['phase'] = null;
  private ended: LiveSnapshot['ended'] = null;
  /** The report's count of checks, once the run has ended with one. */
  private finalCounts: Record<CheckStanding, number> | null = null;

  constructor(options: LiveStateOptions = {}) {
    this.now = options.now ?? Date.now;
    this.reportHref = options.reportHref ?? (() => null);
    this.began = this.now();
  }

  /** Listen to every kind of event the page shows; returns the unsubscribe. Synchronous: no event is missed. */
  subscribe(events: RunEvents): () => void {
    const types: RunEventType[] = ['started', 'planned', 'exchange', 'check', 'keys', 'probe', 'phase', 'ended'];
    const offs = types.map((type) => events.on(type, (e: RunEvent) => this.apply(e)));
    return () => {
      for (const off of offs) off();
    };
  }

  apply(e: RunEvent): void {
    this.runPhase = phaseAfter(this.runPhase, e);
    if (e.type === 'exchange') this.exchange(e);
    else if (e.type === 'check') this.tally.add(e);
    else if (e.type === 'started') this.started(e);
    else if (e.type === 'planned') this.plan(e);
    else if (e.type === 'keys') this.keyStanding(e);
    else if (e.type === 'probe') this.probe(e);
    else if (e.type === 'phase') this.phase = e.progress;
    else if (e.type === 'ended') this.end(e);
  }

  private started(e: RunEventOf<'started'>): void {
    this.scenario = e.scenario;
    this.target = e.target;
    this.startedAt = this.now();
    for (const k of e.keys) this.keyView(k.label, k.plan);
  }

  private plan(e: RunEventOf<'planned'>): void {
    const ends = new Map<PlanName | null, number>();
    const steps = new Map<PlanName | null, number>();
    for (const s of e.steps) {
      ends.set(s.plan, Math.max(ends.get(s.plan) ?? 0, s.ends));
      steps.set(s.plan, (steps.get(s.plan) ?? 0) + 1);
    }
    this.planned = { durationMs: e.durationMs, scale: e.scale, ends, steps };
    for (const [plan, total] of steps) this.probes.set(plan, { done: 0, total, running: [] });
  }

  private keyView(label: string, plan: PlanName | null): KeyView {
    let k = this.keys.get(label);
    if (k === undefined) {
      k = { label, plan, sent: 0, refused: 0, remaining: null, heldBack: false, suspectedBan: false };
      this.keys.set(label, k);
    }
    return k;
  }

  /** Hot path: counts, a histogram record, and the key's Remaining. */
  private exchange(e: RunEventOf<'exchange'>): void {
    this.sent++;
    const field = statusField(e.status);
    this.status[field]++;
    this.bucket(field);
    const op = e.operation ?? 'other';
    let h = this.latency.get(op);
    if (h === undefined) {
      h = createHistogram();
      this.latency.set(op, h);
    }
    record(h, e.latencyMs * 1000);
    // Keys of a plan only: a probe's deliberately invalid credentials (plan null) are no key of the run.
    if (e.key !== null && e.plan !== null) {
      const k = this.keyView(e.key, e.plan);
      k.sent++;
      if (e.status === 429) k.refused++;
      if (e.remaining !== null) k.remaining = e.remaining;
    }
  }

  /** The traffic bucket of this real second (quiet seconds filled with zeros); the oldest leave the window. */
  private bucket(field: keyof StatusMix | null): void {
    const sec = Math.floor((this.now() - this.began) / 1000);
    const s = this.series;
    const last = s.t.at(-1);
    if (last === undefined || last < sec) {
      const from = last === undefined ? sec : Math.max(last + 1, sec - SERIES_SECONDS);
      for (let t = from; t <= sec; t++) {
        s.t.push(t);
        for (const f of SERIES_FIELDS) s[f].push(0);
      }
      const extra = s.t.length - SERIES_SECONDS;
      if (extra > 0) for (const f of ['t', ...SERIES_FIELDS] as const) s[f].splice(0, extra);
    }
    if (field === null) return;
    const i = s.t.length - 1;
    s.sent[i]!++;
    if (field !== 'other') s[field][i]!++;
  }

  private keyStanding(e: RunEventOf<'keys'>): void {
    for (const st of e.keys) {
      const k = this.keyView(st.label, st.plan);
      k.heldBack = st.heldBack;
      k.suspectedBan = st.suspectedBan;
    }
  }

  private probe(e: RunEventOf<'probe'>): void {
    const p = e.progress;
    this.probesBegan ??= this.now();
    const mine = this.probes.get(p.plan) ?? { done: 0, total: p.total, running: [] };
    mine.total = Math.max(mine.total, p.total);
    if (p.state === 'start') mine.running.push(p.probe);
    else {
      mine.done++;
      const i = mine.running.indexOf(p.probe);
      if (i >= 0) mine.running.splice(i, 1);
    }
    this.probes.set(p.plan, mine);
  }

  private end(e: RunEventOf<'ended'>): void {
    const reportFile = e.files?.html ?? null;
    this.ended = {
      verdict: e.verdict,
      exitCode: e.exitCode,
      reason: e.reason ?? null,
      reportFile,
      reportHref: this.reportHref(reportFile),
    };
    this.phase = null;
    if (e.summary) this.finalCounts = standingsOfSummary(e.summary);
  }

  /** Where report.html was written, once the run has ended with one. */
  reportFile(): string | null {
    return this.ended?.reportFile ?? null;
  }

  private probeViews(): PlanProbes[] {
    const elapsedRun = this.probesBegan === null ? 0 : (this.now() - this.probesBegan) * (this.planned?.scale ?? 1);
    return [...this.probes].map(([plan, p]) => {
      const end = this.planned?.ends.get(plan);
      const left =
        end === undefined || this.planned === null
          ? null
          : p.done >= p.total
            ? 0
            : Math.max(0, (end - elapsedRun) / this.planned.scale / 1000);
      return { plan, done: p.done, total: p.total, running: [...p.running], leftS: left };
    });
  }

  snapshot(): LiveSnapshot {
    this.bucket(null);
    const s = this.series;
    // The last whole second: the one before the bucket of now.
    const perSecond = s.sent.length >= 2 ? s.sent[s.sent.length - 2]! : 0;
    const counts = this.finalCounts ?? this.tally.counts();
    return {
      scenario: this.scenario,
      target: this.target,
      runPhase: this.runPhase,
      elapsedS: this.startedAt === null ? 0 : (this.now() - this.startedAt) / 1000,
      expectedS: this.planned === null ? null : this.planned.durationMs / this.planned.scale / 1000,
      scale: this.planned?.scale ?? null,
      checks: { ...counts, problems: this.tally.problems(PROBLEMS_SHOWN) },
      traffic: {
        sent: this.sent,
        perSecond,
        status: { ...this.status },
        series: copySeries(s),
      },
      operations: [...this.latency]
        .filter(([, h]) => totalCount(h) > 0)
        .map(([operation, h]) => ({
          operation,
          count: totalCount(h),
          p50Ms: percentile(h, 50),
          p99Ms: percentile(h, 99),
        }))
        .sort((a, b) => a.operation.localeCompare(b.operation)),
      keys: [...this.keys.values()].map((k) => ({ ...k })),
      probes: this.probeViews(),
      phase: this.phase,
      ended: this.ended,
    };
  }
}
