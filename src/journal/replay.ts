/**
 * What a journal's lines add up to, in report.json's shapes: the metrics (counts summed, histograms merged exactly,
 * a timeline of one bucket per interval) and the check outcomes (each check and plan as its last event left it).
 * src/engine/recover.ts makes a report of them.
 */
import type { PlanName } from '../api/plans.js';
import { PetloadError } from '../core/errors.js';
import type { AnyCheckId } from '../checks/catalogue.js';
import { MAX_EVIDENCE, type Outcome } from '../checks/ledger.js';
import {
  addInto,
  createHistogram,
  decodeHistogram,
  type Histogram,
  percentile,
  resetHistogram,
  totalCount,
} from '../metrics/histogram.js';
import { ERROR_STATUS, type MetricsSnapshot, OPERATION_NAMES, operationSnapshot } from '../metrics/recorder.js';
import { MAX_TIMELINE_BUCKETS, type TimelineBucket } from '../metrics/timeline.js';
import { OTHER_OPERATION } from './aggregate.js';
import type { JournalCheck, JournalInterval } from './format.js';
import type { JournalContents } from './reader.js';

/** Real ms from the run's start that the journal covers: its end line, else the end of its last interval. */
export function coveredMs(j: JournalContents): number {
  return j.end?.at ?? j.intervals.at(-1)?.to ?? 0;
}

interface OperationSum {
  count: number;
  statusCounts: Record<string, number>;
  /** Status class → latency. */
  latency: Map<string, Histogram>;
  service: Histogram;
}

function operationSum(ops: Map<string, OperationSum>, name: string): OperationSum {
  let s = ops.get(name);
  if (s === undefined) {
    s = { count: 0, statusCounts: {}, latency: new Map(), service: createHistogram() };
    ops.set(name, s);
  }
  return s;
}

/** A histogram of a journal line that petload never wrote (damaged, or crafted), named by where it stands. */
class JournalHistogramError extends Error {}

function decodeAt(where: string, b64: string): Histogram {
  try {
    return decodeHistogram(b64);
  } catch (e) {
    throw new JournalHistogramError(`${where}: ${(e as Error).message}`);
  }
}

function addEncoded(into: Map<string, Histogram>, name: string, b64: string, where: string): Histogram {
  const h = decodeAt(where, b64);
  const have = into.get(name);
  if (have === undefined) into.set(name, h);
  else addInto(have, h);
  return h;
}

const emptyBucket = (t: number): TimelineBucket => ({
  t,
  sent: 0,
  s2xx: 0,
  s4xx: 0,
  s429: 0,
  s5xx: 0,
  errors: 0,
  p99: null,
});

/**
 * The timeline: one bucket per interval on the run clock (merged pairwise past MAX_TIMELINE_BUCKETS), from the
 * start to the last interval with exchanges, those without any at zero, as a run's own timeline has them.
 */
class TimelineBuilder {
  private readonly buckets: TimelineBucket[] = [];
  private readonly latency = createHistogram();
  private readonly factor: number;

  constructor(
    private readonly intervalMs: number,
    private readonly scale: number,
    intervals: readonly JournalInterval[],
  ) {
    // The latest interval, wherever it stands (the reader checks their order): the buckets never exceed the cap.
    const last = intervals.reduce((m, iv) => Math.max(m, iv.from), 0);
    const n = Math.round(last / intervalMs) + 1;
    let factor = 1;
    while (Math.ceil(n / factor) > MAX_TIMELINE_BUCKETS) factor *= 2;
    this.factor = factor;
  }

  get bucketMs(): number {
    return this.intervalMs * this.factor * this.scale;
  }

  /** The bucket of the next interval with exchanges (they come in time order), and its latency histogram. */
  bucketOf(iv: JournalInterval): { bucket: TimelineBucket; latency: Histogram } {
    const index = Math.floor(Math.round(iv.from / this.intervalMs) / this.factor);
    if (this.buckets.length <= index) {
      this.closeLast();
      while (this.buckets.length <= index) this.buckets.push(emptyBucket(this.buckets.length * this.bucketMs));
    }
    return { bucket: this.buckets.at(-1)!, latency: this.latency };
  }

  private closeLast(): void {
    const last = this.buckets.at(-1);
    if (last !== undefined && totalCount(this.latency) > 0) last.p99 = percentile(this.latency, 99);
    resetHistogram(this.latency);
  }

  close(): TimelineBucket[] {
    this.closeLast();
    return this.buckets;
  }
}

function countInto(b: TimelineBucket, status: number | null, n: number): void {
  b.sent += n;
  if (status === null) b.errors += n;
  else if (status === 429) b.s429 += n;
  else if (status >= 200 && status < 300) b.s2xx += n;
  else if (status >= 400 && status < 500) b.s4xx += n;
  else if (status >= 500 && status < 600) b.s5xx += n;
}

function addInterval(ops: Map<string, OperationSum>, iv: JournalInterval, t: TimelineBuilder): void {
  if (iv.counts.length === 0) return;
  const slot = t.bucketOf(iv);
  for (const [, op, status, n] of iv.counts) {
    const s = operationSum(ops, op ?? OTHER_OPERATION);
    const key = status === null ? ERROR_STATUS : String(status);
    s.count += n;
    s.statusCounts[key] = (s.statusCounts[key] ?? 0) + n;
    countInto(slot.bucket, status, n);
  }
  for (const [op, byClass] of Object.entries(iv.latency)) {
    const s = operationSum(ops, op);
    for (const [cls, b64] of Object.entries(byClass))
      addInto(slot.latency, addEncoded(s.latency, cls, b64, `latency.${op}.${cls}`));
  }
  for (const [op, b64] of Object.entries(iv.serviceTime ?? {}))
    addInto(operationSum(ops, op).service, decodeAt(`serviceTime.${op}`, b64));
}

const orderOf = (name: string): number => {
  const i = (OPERATION_NAMES as readonly string[]).indexOf(name);
  return i === -1 ? OPERATION_NAMES.length : i;
};

function operationMetrics(name: string, s: OperationSum): MetricsSnapshot['operations'][number] {
  return operationSnapshot(name, s.count, s.statusCounts, s.latency, s.service);
}

/** The metrics the journal's intervals add up to (no key timelines: the journal does not keep them; dropped: 0). */
export function metricsOf(j: JournalContents): MetricsSnapshot {
  const ops = new Map<string, OperationSum>();
  const timeline = new TimelineBuilder(j.head.intervalMs, j.head.target.timeScale, j.intervals);
  for (const iv of j.intervals) {
    try {
      addInterval(ops, iv, timeline);
    } catch (e) {
      if (!(e instanceof JournalHistogramError)) throw e;
      throw new PetloadError(
        'E_USAGE',
        `${j.path} cannot be recovered: in its interval from ${iv.from} ms, ${e.message}; a run never writes that (the journal was altered)`,
        { cause: e, hint: 'Give the report directory of a run (the folder that holds its journal.ndjson).' },
      );
    }
  }
  const operations = [...ops]
    .sort((a, b) => orderOf(a[0]) - orderOf(b[0]) || a[0].localeCompare(b[0]))
    .map(([name, s]) => operationMetrics(name, s));
  const statusCounts: Record<string, number> = {};
  for (const op of operations)
    for (const [k, n] of Object.entries(op.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + n;
  const requests = operations.reduce((n, op) => n + op.count, 0);
  const seconds = coveredMs(j) / 1000;
  return {
    totals: {
      requests,
      dropped: 0,
      transportErrors: statusCounts[ERROR_STATUS] ?? 0,
      statusCounts,
      rps: seconds > 0 ? requests / seconds : 0,
    },
    operations,
    timeline: { bucketMs: timeline.bucketMs, buckets: timeline.close() },
    keyTimelines: [],
  };
}

/** A check event into its outcome: counts as the event says, its message as evidence or as a skip reason. */
function applyCheck(o: Outcome, c: JournalCheck): void {
  const before = { failed: o.failed, skipped: o.skipped };
  o.passed = Math.max(o.passed, c.counts.passed);
  o.failed = Math.max(o.failed, c.counts.failed);
  o.skipped = Math.max(o.skipped, c.counts.skipped);
  if (c.message === undefined) return;
  // The ledger tells of a failure while it keeps evidence of it (MAX_EVIDENCE), and of each new skip reason: a
  // message that came with more failures, while evidence was kept, is a failure's.
  if (o.failed > before.failed && o.evidence.length < MAX_EVIDENCE) o.evidence.push({ message: c.message });
  else if (o.skipped > before.skipped && !o.skipReasons.includes(c.message) && o.skipReasons.length < MAX_EVIDENCE)
    o.skipReasons.push(c.message);
}

/**
 * Each check on each plan as its last event left it: its status and counts then, the messages of its failures
 * as evidence (message only) and of its skips as reasons. Threshold checks are left out: they are judged again.
 */
export function outcomesOf(j: JournalContents): Outcome[] {
  const byCheck = new Map<string, Map<PlanName | '', Outcome>>();
  for (const iv of j.intervals) {
    for (const c of iv.checks) {
      if (c.id.startsWith('threshold.')) continue;
      let byPlan = byCheck.get(c.id);
      if (byPlan === undefined) byCheck.set(c.id, (byPlan = new Map()));
      let o = byPlan.get(c.plan ?? '');
      if (o === undefined) {
        o = {
          id: c.id as AnyCheckId,
          plan: c.plan,
          passed: 0,
          failed: 0,
          skipped: 0,
          evidence: [],
          skipReasons: [],
          info: {},
        };
        byPlan.set(c.plan ?? '', o);
      }
      applyCheck(o, c);
    }
  }
  return [...byCheck.values()].flatMap((m) => [...m.values()]);
}
