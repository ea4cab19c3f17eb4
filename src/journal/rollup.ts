/**
 * Rolling a long run's journal up (docs/journal.md, "A long run"): past the report timeline's first
 * MAX_TIMELINE_BUCKETS seconds, the journal keeps one `interval` line per **span** of seconds instead of one per
 * second, the span as wide as a bucket of the timeline a report of the run so far would have (a power of two of
 * seconds: 2 s past 10 minutes, 8 s past 40 minutes, 256 s past 19 hours), aligned on that width from the run's start.
 * A report's timeline buckets only ever widen (by doubling), so every span stays within one bucket of the recovered
 * timeline, however long the run goes on: the recovered report is the same as from the seconds (counts summed,
 * histograms merged exactly, each timeline bucket's counts and p99, the check events and notes in order).
 *
 * The seconds of the span under way are written as before, one line a second, to a side file (tail.ts), so that a
 * killed run still loses at most its last second; when the span ends, its roll-up line is appended to the journal.
 */
import {
  addInto,
  createHistogram,
  encodeHistogram,
  type Histogram,
  resetHistogram,
  totalCount,
} from '../metrics/histogram.js';
import { MAX_TIMELINE_BUCKETS } from '../metrics/timeline.js';
import type { CountRow, JournalCheck, JournalInterval } from './format.js';
import type { TailFiles } from './tail.js';

/**
 * The width, in intervals, of the span that begins with interval `index`: the bucket width (in intervals) of the
 * timeline of a report whose last interval is `index`, as the recovery builds it (replay.ts: the smallest power of
 * two that keeps the buckets within `maxBuckets`). 1 while the run is young: a line per interval, as ever.
 */
export function spanWidth(index: number, maxBuckets = MAX_TIMELINE_BUCKETS): number {
  let width = 1;
  while (Math.ceil((index + 1) / width) > maxBuckets) width *= 2;
  return width;
}

/** The interval index of a line that starts `fromMs` into the run, as the recovered timeline places it. */
export const intervalIndex = (fromMs: number, intervalMs: number): number => Math.round(fromMs / intervalMs);

function addHistogram(into: Map<string, Histogram>, name: string, h: Histogram): void {
  let have = into.get(name);
  if (have === undefined) into.set(name, (have = createHistogram()));
  addInto(have, h);
}

/** Encodes the histograms that hold something, and resets them (they are reused for the next span). */
function drained(hs: ReadonlyMap<string, Histogram>): Record<string, string> | null {
  let out: Record<string, string> | null = null;
  for (const [name, h] of hs) {
    if (totalCount(h) === 0) continue;
    out ??= {};
    out[name] = encodeHistogram(h);
    resetHistogram(h);
  }
  return out;
}

/**
 * The lines of one span summed into one: counts added by plan, operation and status, histograms merged exactly
 * (handed over raw by the aggregate before it encodes them, so that nothing is decoded), check events and notes
 * in their order, from the first line's start to the last one's end.
 */
export class SpanRollup {
  /** The span's index (interval index / width) and width, in intervals; -1 while no span is open. */
  index = -1;
  width = 1;
  /** How many spans were opened so far (the open one included): the tail files take turns by it. */
  seq = 0;
  private from = 0;
  private to = 0;
  private lines = 0;
  private readonly counts = new Map<string, CountRow>();
  private readonly latency = new Map<string, Map<string, Histogram>>();
  private readonly service = new Map<string, Histogram>();
  private checks: JournalCheck[] = [];
  private notes: string[] = [];

  get open(): boolean {
    return this.index >= 0;
  }

  /** Opens the span of interval `index`. */
  start(index: number): void {
    this.width = spanWidth(index);
    this.index = Math.floor(index / this.width);
    this.seq++;
  }

  /** Whether interval `index` belongs to the open span. */
  holds(index: number): boolean {
    return this.open && Math.floor(index / this.width) === this.index;
  }

  /** A latency histogram of the line being added (before the aggregate resets it). */
  addLatency(op: string, cls: string, h: Histogram): void {
    let byClass = this.latency.get(op);
    if (byClass === undefined) this.latency.set(op, (byClass = new Map()));
    addHistogram(byClass, cls, h);
  }

  addService(op: string, h: Histogram): void {
    addHistogram(this.service, op, h);
  }

  /** The rest of a line (its histograms came through addLatency and addService). */
  addLine(line: JournalInterval): void {
    if (this.lines === 0) this.from = line.from;
    this.to = line.to;
    this.lines++;
    for (const row of line.counts) {
      const key = `${row[0]}\u0000${row[1]}\u0000${row[2]}`;
      const have = this.counts.get(key);
      if (have === undefined) this.counts.set(key, [row[0], row[1], row[2], row[3]]);
      else have[3] += row[3];
    }
    for (const c of line.checks) this.checks.push(c);
    for (const n of line.notes) this.notes.push(n);
  }

  /** The span as one line (null when none of its intervals had activity); closes it. */
  take(): JournalInterval | null {
    const had = this.lines > 0;
    const latency: Record<string, Record<string, string>> = {};
    for (const [op, byClass] of this.latency) {
      const encoded = drained(byClass);
      if (encoded !== null) latency[op] = encoded;
    }
    const serviceTime = drained(this.service);
    const line: JournalInterval = {
      type: 'interval',
      from: this.from,
      to: this.to,
      counts: [...this.counts.values()],
      latency,
      ...(serviceTime !== null ? { serviceTime } : {}),
      checks: this.checks,
      notes: this.notes,
    };
    this.counts.clear();
    this.checks = [];
    this.notes = [];
    this.lines = 0;
    this.index = -1;
    return had ? line : null;
  }
}

/** What the long-run roll-up needs of the journal writer. */
export interface RollupIo {
  readonly intervalMs: number;
  readonly tails: TailFiles;
  /** Appends a line to the journal (one write(2)); false when it could not. */
  append(line: JournalInterval): boolean;
  /** Makes what the journal holds durable now (fdatasync; nothing when the run does not sync). */
  syncNow(): void;
}

/**
 * The journal's intervals as a long run writes them: each to the journal itself while the run is young (spans one
 * interval wide), else to the tail file of its span, whose roll-up goes to the journal when the next span begins.
 */
export class LongRun {
  private readonly span = new SpanRollup();
  /** The last span (sequence number) whose roll-up is in the journal, and the last one known durable there. */
  private rolled = 0;
  private synced = 0;

  constructor(private readonly io: RollupIo) {}

  /**
   * The interval [from, to) out of the aggregate (closing the span before it when it begins a new one); true when
   * something was written (a line to sync).
   */
  flush(
    agg: { take(from: number, to: number, span?: SpanRollup): JournalInterval | null },
    from: number,
    to: number,
  ): boolean {
    const index = intervalIndex(from, this.io.intervalMs);
    const rolled = this.span.open && !this.span.holds(index) && this.roll();
    if (!this.span.open && spanWidth(index) > 1) this.span.start(index);
    const line = agg.take(from, to, this.span.open ? this.span : undefined);
    if (line === null) return rolled;
    if (!this.span.open) return this.io.append(line) || rolled;
    this.io.tails.write(this.span.seq, `${JSON.stringify(line)}\n`, (older) => {
      if (this.synced < older) {
        this.io.syncNow();
        this.synced = this.rolled;
      }
    });
    return true;
  }

  /** Appends the open span's roll-up line to the journal (at a span's end, and when the run ends); true if written. */
  roll(): boolean {
    if (!this.span.open) return false;
    const seq = this.span.seq;
    const line = this.span.take();
    const written = line !== null && this.io.append(line);
    if (line === null || written) this.rolled = seq;
    return written;
  }

  /** Call as a sync of the journal starts; call what it returns when it has completed. */
  syncing(): () => void {
    const covering = this.rolled;
    return () => {
      this.synced = Math.max(this.synced, covering);
    };
  }
}
