/**
 * The run's timeline: requests bucketed by actual send time on the run clock, with the status mix and a p99
 * per bucket. Buckets start 1 s wide; whenever a send would need more than MAX_TIMELINE_BUCKETS buckets,
 * neighbouring buckets merge pairwise and the width doubles, so memory is bounded however long the run.
 * Each bucket's p99 comes from its own coarse histogram (2 significant digits, ~14 kB): at most
 * MAX_TIMELINE_BUCKETS of them live at once (~9 MB worst case), and merging pairs stays exact. Histograms
 * freed by a merge are reset and reused rather than left to the collector: their counts live outside the
 * JS heap, where churn shows as resident memory that is slow to come back.
 */
import type * as z from 'zod';
import type { TimelineBucket as TimelineBucketSchema } from '../report/schema.js';
import { addInto, createHistogram, type Histogram, percentile, record, resetHistogram } from './histogram.js';

export type TimelineBucket = z.infer<typeof TimelineBucketSchema>;
export interface TimelineSnapshot {
  bucketMs: number;
  buckets: TimelineBucket[];
}

export const INITIAL_BUCKET_MS = 1000;
export const MAX_TIMELINE_BUCKETS = 600;

interface Bucket {
  sent: number;
  s2xx: number;
  s4xx: number;
  s429: number;
  s5xx: number;
  errors: number;
  latency: Histogram | null;
}

const emptyBucket = (): Bucket => ({ sent: 0, s2xx: 0, s4xx: 0, s429: 0, s5xx: 0, errors: 0, latency: null });

/** Counts one response status into the bucket's status mix (1xx and 3xx count only as sent). */
function countStatus(b: Bucket, status: number | null): void {
  if (status === null) b.errors++;
  else if (status === 429) b.s429++;
  else if (status >= 200 && status < 300) b.s2xx++;
  else if (status >= 400 && status < 500) b.s4xx++;
  else if (status >= 500 && status < 600) b.s5xx++;
}

export class Timeline {
  private width: number;
  /** Sparse: a bucket exists once a request was sent in it. */
  private buckets: (Bucket | undefined)[] = [];
  private readonly spare: Histogram[] = [];

  constructor(
    initialWidthMs = INITIAL_BUCKET_MS,
    private readonly maxBuckets = MAX_TIMELINE_BUCKETS,
  ) {
    this.width = initialWidthMs;
  }

  /** One request sent `tMs` after the run started (run clock), its status (null: transport error) and latency. */
  add(tMs: number, status: number | null, latencyMicros: number): void {
    let i = Math.floor(tMs / this.width);
    if (!(i >= 0)) i = 0;
    while (i >= this.maxBuckets) {
      this.halve();
      i = Math.floor(tMs / this.width);
    }
    let b = this.buckets[i];
    if (b === undefined) {
      b = emptyBucket();
      this.buckets[i] = b;
    }
    b.sent++;
    countStatus(b, status);
    b.latency ??= this.spare.pop() ?? createHistogram('coarse');
    record(b.latency, latencyMicros);
  }

  private halve(): void {
    const next: (Bucket | undefined)[] = [];
    for (let i = 0; i < this.buckets.length; i += 2) next.push(this.merge(this.buckets[i], this.buckets[i + 1]));
    this.buckets = next;
    this.width *= 2;
  }

  /** Adds b into a (either may be missing); b's histogram goes back to the spares. */
  private merge(a: Bucket | undefined, b: Bucket | undefined): Bucket | undefined {
    if (a === undefined) return b;
    if (b === undefined) return a;
    a.sent += b.sent;
    a.s2xx += b.s2xx;
    a.s4xx += b.s4xx;
    a.s429 += b.s429;
    a.s5xx += b.s5xx;
    a.errors += b.errors;
    if (b.latency !== null) {
      if (a.latency === null) a.latency = b.latency;
      else {
        addInto(a.latency, b.latency);
        resetHistogram(b.latency);
        this.spare.push(b.latency);
      }
    }
    return a;
  }

  /** Every bucket from the run's start to the last one used; buckets without traffic have zeros and p99 null. */
  snapshot(): TimelineSnapshot {
    const out: TimelineBucket[] = [];
    for (let i = 0; i < this.buckets.length; i++) {
      const b = this.buckets[i];
      out.push({
        t: i * this.width,
        sent: b?.sent ?? 0,
        s2xx: b?.s2xx ?? 0,
        s4xx: b?.s4xx ?? 0,
        s429: b?.s429 ?? 0,
        s5xx: b?.s5xx ?? 0,
        errors: b?.errors ?? 0,
        p99: b?.latency ? percentile(b.latency, 99) : null,
      });
    }
    return { bucketMs: this.width, buckets: out };
  }
}

/**
 * Overlays two timelines, each measured from its own run's start (runs merged are taken to have run side by
 * side, e.g. on several machines): counts add up per bucket of the wider width (doubled again if needed to
 * stay within `maxBuckets`). A bucket's p99 becomes the larger of the two: the merged p99 is never above it,
 * and the per-bucket histograms are not kept in reports.
 */
export function mergeTimelines(
  a: TimelineSnapshot,
  b: TimelineSnapshot,
  maxBuckets = MAX_TIMELINE_BUCKETS,
): TimelineSnapshot {
  const all = [...a.buckets, ...b.buckets];
  // Timelines read from files may say anything: a width of at least 1 ms and starts from 0 keep the loop bounded.
  let width = Math.max(a.bucketMs, b.bucketMs, 1);
  const lastStart = all.reduce((m, x) => Math.max(m, x.t), 0);
  while (Math.floor(lastStart / width) >= maxBuckets) width *= 2;
  const out: TimelineBucket[] = [];
  for (const x of all) {
    const i = Math.max(0, Math.floor(x.t / width));
    for (let j = out.length; j <= i; j++)
      out.push({ t: j * width, sent: 0, s2xx: 0, s4xx: 0, s429: 0, s5xx: 0, errors: 0, p99: null });
    const o = out[i]!;
    o.sent += x.sent;
    o.s2xx += x.s2xx;
    o.s4xx += x.s4xx;
    o.s429 += x.s429;
    o.s5xx += x.s5xx;
    o.errors += x.errors;
    if (x.p99 !== null) o.p99 = o.p99 === null ? x.p99 : Math.max(o.p99, x.p99);
  }
  return { bucketMs: width, buckets: out };
}
