/**
 * The traffic classes of a run's figures (src/http/exchange.ts TrafficClass): which operations are the load's and
 * which the probes', in a snapshot or a report of this version or an older one (no `traffic`: every request in
 * `operations`, read as the load's, as thresholds always judged them).
 */
import type { TrafficClass } from '../http/exchange.js';
import type { MetricsSnapshot } from './recorder.js';

type Operations = MetricsSnapshot['operations'];
type Source = Pick<MetricsSnapshot, 'operations' | 'traffic' | 'probeOperations'>;

/** What `operations` describes: a class, or `all` for a report of an older version (load and probes together). */
export type MeasuredTraffic = TrafficClass | 'all';

export const measuredTraffic = (s: Source): MeasuredTraffic => s.traffic?.measured ?? 'all';

/** The operations of one class; an older report's `operations` count as the load's. */
export function operationsOf(s: Source, cls: TrafficClass): Operations {
  const measured = measuredTraffic(s);
  if (measured === 'all') return cls === 'load' ? s.operations : [];
  if (measured === cls) return s.operations;
  return cls === 'probes' ? (s.probeOperations ?? []) : [];
}

/** Requests, status counts and transport errors of some operations (what thresholds without an operation read). */
export function totalsOf(ops: Operations): { requests: number; statusCounts: Record<string, number>; errors: number } {
  const statusCounts: Record<string, number> = {};
  let requests = 0;
  for (const op of ops) {
    requests += op.count;
    for (const [k, n] of Object.entries(op.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + n;
  }
  return { requests, statusCounts, errors: statusCounts.error ?? 0 };
}

/** A few words for what a class's figures are, for titles: `the load's requests`, `the probes' requests`. */
export function trafficWords(m: MeasuredTraffic): string {
  if (m === 'load') return "the load's requests";
  if (m === 'probes') return "the probes' requests (this run has no load)";
  return 'every request, load and probes together (a report of an older version)';
}

/** The same in a word or two, for chart notes: `load`, `probes (no load)`, `all requests`. */
export function trafficWord(m: MeasuredTraffic): string {
  return m === 'load' ? 'load' : m === 'probes' ? 'probes (no load)' : 'all requests';
}
