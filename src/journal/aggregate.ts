/**
 * What the journal holds in memory between two flushes: counts by plan, operation and status, latency histograms
 * by operation and status class, and the check events and notes that arrived. `exchange` is the hot path: a few
 * map lookups, a counter and one or two histogram records; nothing is kept per exchange and no string is built.
 * `take` turns it into one interval line and empties it; the histograms are reset and reused, not reallocated.
 */
import type { PlanName } from '../api/plans.js';
import type { RunEventOf } from '../core/run-events.js';
import {
  createHistogram,
  encodeHistogram,
  type Histogram,
  record,
  resetHistogram,
  totalCount,
} from '../metrics/histogram.js';
import { statusClass } from '../metrics/recorder.js';
import type { CountRow, JournalCheck, JournalInterval } from './format.js';
import type { SpanRollup } from './rollup.js';

/** An exchange event; `serviceMs` (real ms from the actual send) is read when the stream carries it. */
export type ExchangeEvent = RunEventOf<'exchange'> & { readonly serviceMs?: number };

/** The operation name of an exchange without one, as report.json names it. */
export const OTHER_OPERATION = 'other';

/** Status -1 stands for "no response", so that the maps are keyed by numbers. */
const NO_STATUS = -1;

/**
 * Encodes the histograms that recorded something since the last take, and resets them; `also` sees each one first
 * (a long run's roll-up merges them into its span, rollup.ts).
 */
function drain(
  hs: ReadonlyMap<string, Histogram>,
  also?: (name: string, h: Histogram) => void,
): Record<string, string> | null {
  let out: Record<string, string> | null = null;
  for (const [name, h] of hs) {
    if (totalCount(h) === 0) continue;
    out ??= {};
    out[name] = encodeHistogram(h);
    also?.(name, h);
    resetHistogram(h);
  }
  return out;
}

export class IntervalAggregate {
  /** plan ('' for none) → operation ('' for none) → status (NO_STATUS for none) → count. */
  private readonly counts = new Map<PlanName | '', Map<string, Map<number, number>>>();
  /** operation → status class → latency (µs). */
  private readonly latency = new Map<string, Map<string, Histogram>>();
  private readonly service = new Map<string, Histogram>();
  private checks: JournalCheck[] = [];
  private notes: string[] = [];
  private active = false;

  exchange(e: ExchangeEvent): void {
    const op = e.operation ?? OTHER_OPERATION;
    let byOp = this.counts.get(e.plan ?? '');
    if (byOp === undefined) this.counts.set(e.plan ?? '', (byOp = new Map()));
    let byStatus = byOp.get(e.operation ?? '');
    if (byStatus === undefined) byOp.set(e.operation ?? '', (byStatus = new Map()));
    const status = e.status ?? NO_STATUS;
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    record(this.latencyOf(op, statusClass(e.status)), e.latencyMs * 1000);
    if (e.serviceMs !== undefined) record(this.serviceOf(op), e.serviceMs * 1000);
    this.active = true;
  }

  private latencyOf(op: string, cls: string): Histogram {
    let byClass = this.latency.get(op);
    if (byClass === undefined) this.latency.set(op, (byClass = new Map()));
    let h = byClass.get(cls);
    if (h === undefined) byClass.set(cls, (h = createHistogram()));
    return h;
  }

  private serviceOf(op: string): Histogram {
    let h = this.service.get(op);
    if (h === undefined) this.service.set(op, (h = createHistogram()));
    return h;
  }

  check(e: RunEventOf<'check'>): void {
    this.checks.push({
      id: e.id,
      plan: e.plan,
      status: e.status,
      counts: { ...e.counts },
      ...(e.message !== undefined ? { message: e.message } : {}),
    });
    this.active = true;
  }

  note(text: string): void {
    this.notes.push(text);
    this.active = true;
  }

  /**
   * The interval [from, to) as a journal line, or null when nothing arrived in it; empties the aggregate. With
   * `span`, the line is also added to that roll-up (its histograms merged before they are reset).
   */
  take(from: number, to: number, span?: SpanRollup): JournalInterval | null {
    if (!this.active) return null;
    const counts: CountRow[] = [];
    for (const [plan, byOp] of this.counts)
      for (const [op, byStatus] of byOp)
        for (const [status, n] of byStatus)
          counts.push([plan === '' ? null : plan, op === '' ? null : op, status === NO_STATUS ? null : status, n]);
    const latency: Record<string, Record<string, string>> = {};
    for (const [op, byClass] of this.latency) {
      const encoded = drain(byClass, span && ((cls, h) => span.addLatency(op, cls, h)));
      if (encoded !== null) latency[op] = encoded;
    }
    const serviceTime = drain(this.service, span && ((op, h) => span.addService(op, h)));
    const line: JournalInterval = {
      type: 'interval',
      from,
      to,
      counts,
      latency,
      ...(serviceTime !== null ? { serviceTime } : {}),
      checks: this.checks,
      notes: this.notes,
    };
    span?.addLine(line);
    this.counts.clear();
    this.checks = [];
    this.notes = [];
    this.active = false;
    return line;
  }
}
