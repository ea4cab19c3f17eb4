/**
 * The run's metrics. `record` is on the hot path (every exchange): a few counter updates, three histogram
 * records and, for a key of the keys file, two header reads; nothing is kept per request, so memory does not
 * grow with the number of requests (measured: ~0.7-1.2 µs and well under 20 MB of RSS for 1,000,000
 * exchanges). Everything else is computed in `snapshot`.
 *
 * Times: exchange timings are on the run clock, which may be scaled; latencies are converted back to real
 * time (a scaled run must not report latencies `scale` times too long). Latency is measured from the
 * intended send time (no coordinated omission), service time from the actual send. Timelines are placed
 * on the run clock, like the target's windows.
 */
import type { OperationId } from '../api/operations.js';
import type { Clock } from '../core/clock.js';
import type { Report } from '../report/schema.js';
import type { Exchange, TrafficClass } from '../http/exchange.js';
import {
  addInto,
  createHistogram,
  encodeHistogram,
  type Histogram,
  percentile,
  record,
  summarize,
  totalCount,
} from './histogram.js';
import { KeyTimelines } from './key-timelines.js';
import { Timeline } from './timeline.js';

export type MetricsSnapshot = Pick<Report, 'totals' | 'operations' | 'timeline' | 'keyTimelines'> &
  Partial<Pick<Report, 'traffic' | 'probeOperations'>>;

/** Cheap running figures for a live progress line (snapshot() encodes every histogram: tens of ms). */
export interface MetricsProgress {
  requests: number;
  dropped: number;
  transportErrors: number;
  s2xx: number;
  /** 4xx other than 429. */
  s4xx: number;
  s429: number;
  s5xx: number;
  /** p99 latency (ms) of all requests so far; null before the first. */
  p99: number | null;
}

export interface Metrics {
  /** Records one completed exchange (response or transport error). */
  record(ex: Exchange): void;
  /** Counts sends that could not start on time (in-flight cap reached), like k6's dropped iterations. */
  dropped(n?: number): void;
  progress(): MetricsProgress;
  /**
   * Everything so far, as report.json carries it. `totals.rps` is requests per real second (not run-clock
   * second) from `startMono` to now: the throughput the machine achieved.
   */
  snapshot(): MetricsSnapshot;
}

export type OperationName = OperationId | 'other';
/** Report order of operations. */
export const OPERATION_NAMES: readonly OperationName[] = ['listPets', 'createPet', 'getPet', 'listOrders', 'other'];

/** Per-code latency histograms an operation's snapshot keeps at most (the most answered codes; the rest in classes). */
export const MAX_STATUS_HISTOGRAMS = 40;

/** Status-count key of a transport error (no response). */
export const ERROR_STATUS = 'error';
/** Names of the encoded histograms of an operation besides its status classes and codes. */
export const ALL_HISTOGRAM = 'all';
export const SERVICE_TIME_HISTOGRAM = 'serviceTime';

const CLASS_BY_HUNDRED = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx', '6xx', '7xx', '8xx', '9xx'];

/** Latency class of a status: `2xx`, `4xx` (without 429), `429`, `5xx`, ..., or `error` for no response. */
export function statusClass(status: number | null): string {
  if (status === null) return ERROR_STATUS;
  if (status === 429) return '429';
  return CLASS_BY_HUNDRED[Math.floor(status / 100)] ?? 'other';
}

class OperationState {
  count = 0;
  /** Count by status code + 1 (0: transport errors): an array, so the hot path builds no strings and hashes nothing. */
  private readonly byStatus = new Float64Array(1001);
  /** Codes outside 0..999, which no parser lets through. */
  private readonly otherStatus = new Map<number, number>();
  /** Latency per status code (-1: no response); the status classes' are summed from them in a snapshot. */
  readonly latencyByCode = new Map<number, Histogram>();
  readonly serviceTime = createHistogram();

  /** The status of the last exchange recorded, and its histogram (a load repeats both). */
  private lastStatus: number | null | undefined = undefined;
  private lastLatency: Histogram | null = null;

  countStatus(status: number | null): void {
    const i = status === null ? 0 : status + 1;
    if (i >= 0 && i < this.byStatus.length) this.byStatus[i]!++;
    else this.otherStatus.set(i - 1, (this.otherStatus.get(i - 1) ?? 0) + 1);
  }

  /** Status code → count, in ascending order (codes outside 0..999 last); -1 for transport errors. */
  statusCounts(): Map<number, number> {
    const out = new Map<number, number>();
    for (let i = 0; i < this.byStatus.length; i++) if (this.byStatus[i]! > 0) out.set(i - 1, this.byStatus[i]!);
    for (const [status, n] of this.otherStatus) out.set(status, n);
    return out;
  }

  latencyOfStatus(status: number | null): Histogram {
    if (status !== this.lastStatus || this.lastLatency === null) {
      this.lastStatus = status;
      const code = status ?? -1;
      let h = this.latencyByCode.get(code);
      if (h === undefined) {
        h = createHistogram();
        this.latencyByCode.set(code, h);
      }
      this.lastLatency = h;
    }
    return this.lastLatency;
  }

  /** Latency per status code as report.json names them (`201`, `error`), in ascending order. */
  latencyByStatus(): Map<string, Histogram> {
    const codes = [...this.latencyByCode.keys()].sort((a, b) => a - b);
    return new Map(codes.map((c) => [c === -1 ? ERROR_STATUS : String(c), this.latencyByCode.get(c)!]));
  }

  /** The status classes' latency, each the exact sum of its status codes' histograms. */
  latencyByClass(): Map<string, Histogram> {
    const out = new Map<string, Histogram>();
    for (const [code, h] of this.latencyByCode) {
      const cls = statusClass(code === -1 ? null : code);
      let sum = out.get(cls);
      if (sum === undefined) {
        sum = createHistogram();
        out.set(cls, sum);
      }
      addInto(sum, h);
    }
    return out;
  }
}

/**
 * One operation's part of a snapshot: its latency per status class, all of them together and its service time, as
 * summaries and as encoded histograms (classes in name order), and per status code when given (`201`, `400`: the
 * keys of statusCounts; the class `429` and the code `429` are one histogram, so are the two `error`s). The recorder
 * gives both; the journal's replay, which keeps classes only, the classes.
 */
export function operationSnapshot(
  operation: string,
  count: number,
  statusCounts: Record<string, number>,
  latencyByClass: ReadonlyMap<string, Histogram>,
  serviceTime: Histogram,
  latencyByStatus: ReadonlyMap<string, Histogram> = new Map(),
): MetricsSnapshot['operations'][number] {
  const all = createHistogram();
  const histograms: Record<string, string> = {};
  // The most answered codes, a bounded number however many a target invents (report readers cap histograms).
  const byCount = [...latencyByStatus].sort((a, b) => totalCount(b[1]) - totalCount(a[1]));
  for (const [status, h] of byCount.slice(0, MAX_STATUS_HISTOGRAMS)) histograms[status] = encodeHistogram(h);
  for (const [cls, h] of [...latencyByClass].sort((a, b) => a[0].localeCompare(b[0]))) {
    addInto(all, h);
    histograms[cls] = encodeHistogram(h);
  }
  histograms[ALL_HISTOGRAM] = encodeHistogram(all);
  histograms[SERVICE_TIME_HISTOGRAM] = encodeHistogram(serviceTime);
  return {
    operation,
    count,
    statusCounts,
    latency: summarize(all),
    serviceTime: summarize(serviceTime),
    histograms,
  };
}

function statusCountsRecord(counts: Map<number, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [status, n] of counts) out[status === -1 ? ERROR_STATUS : String(status)] = n;
  return out;
}

/** One traffic class's operations, timeline and the names of its senders. */
class ClassState {
  readonly ops = new Map<OperationName, OperationState>();
  readonly timeline = new Timeline();
  readonly names = new Set<string>();
  private lastName: string | null = null;
  /** The operation op() answered for last, and its state. */
  private lastOp: [OperationName, OperationState] | null = null;
  count = 0;

  /** Notes a sender's name (the same as the last one's, most of the time). */
  name(sender: string): void {
    if (sender === this.lastName) return;
    this.lastName = sender;
    this.names.add(sender);
  }

  op(name: OperationName): OperationState {
    if (name === this.lastOp?.[0]) return this.lastOp[1];
    let s = this.ops.get(name);
    if (s === undefined) {
      s = new OperationState();
      this.ops.set(name, s);
    }
    this.lastOp = [name, s];
    return s;
  }

  operations(): MetricsSnapshot['operations'] {
    const out: MetricsSnapshot['operations'] = [];
    for (const name of OPERATION_NAMES) {
      const s = this.ops.get(name);
      if (s === undefined) continue;
      const counts = statusCountsRecord(s.statusCounts());
      out.push(operationSnapshot(name, s.count, counts, s.latencyByClass(), s.serviceTime, s.latencyByStatus()));
    }
    return out;
  }
}

export function createMetrics(opts: { clock: Clock; startMono: number }): Metrics {
  const { clock, startMono } = opts;
  const toMicros = 1000 / clock.scale;
  const classes: Record<TrafficClass, ClassState> = { load: new ClassState(), probes: new ClassState() };
  const keys = new KeyTimelines();
  let requests = 0;
  let transportErrors = 0;
  let dropped = 0;

  return {
    record(ex) {
      // An exchange without a traffic source is the load's (saturate's, a test's): only probes are set apart.
      const cls = classes[ex.traffic?.class ?? 'load'];
      cls.name(ex.traffic?.name ?? ex.tag);
      cls.count++;
      const op = cls.op(ex.operation ?? 'other');
      const status = ex.status;
      requests++;
      op.count++;
      if (status === null) transportErrors++;
      op.countStatus(status);
      const { intended, sent, headers, done } = ex.timing;
      const latency = (done - intended) * toMicros;
      record(op.latencyOfStatus(status), latency);
      record(op.serviceTime, (done - sent) * toMicros);
      cls.timeline.add(sent - startMono, status, latency);
      keys.add(ex, (headers ?? done) - startMono);
    },

    dropped(n = 1) {
      dropped += n;
    },

    progress() {
      const p: MetricsProgress = { requests, dropped, transportErrors, s2xx: 0, s4xx: 0, s429: 0, s5xx: 0, p99: null };
      const all = createHistogram();
      for (const s of [...classes.load.ops.values(), ...classes.probes.ops.values()]) {
        for (const [status, n] of s.statusCounts()) {
          if (status === 429) p.s429 += n;
          else if (status >= 200 && status < 300) p.s2xx += n;
          else if (status >= 400 && status < 500) p.s4xx += n;
          else if (status >= 500 && status < 600) p.s5xx += n;
        }
        for (const h of s.latencyByCode.values()) addInto(all, h);
      }
      if (totalCount(all) > 0) p.p99 = percentile(all, 99);
      return p;
    },

    snapshot() {
      const totalCounts = new Map<number, number>();
      for (const s of [...classes.load.ops.values(), ...classes.probes.ops.values()])
        for (const [k, n] of s.statusCounts()) totalCounts.set(k, (totalCounts.get(k) ?? 0) + n);
      // The load's figures when any load phase sent; else the probes' (a run without load), and said so.
      const measured: TrafficClass = classes.load.count > 0 || classes.probes.count === 0 ? 'load' : 'probes';
      const realSeconds = (clock.monotonic() - startMono) / clock.scale / 1000;
      return {
        totals: {
          requests,
          dropped,
          transportErrors,
          statusCounts: statusCountsRecord(totalCounts),
          rps: realSeconds > 0 ? requests / realSeconds : 0,
        },
        operations: classes[measured].operations(),
        traffic: { measured, load: [...classes.load.names], probes: [...classes.probes.names] },
        ...(measured === 'load' && classes.probes.count > 0 ? { probeOperations: classes.probes.operations() } : {}),
        timeline: classes[measured].timeline.snapshot(),
        keyTimelines: keys.snapshot(),
      };
    },
  };
}
