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

/**
 * Whether a report's load phases ran and sent nothing: its figures are then the probes', and a title must not call
 * it a run without load (the engine names every phase that ran in `traffic.load`, sent or not).
 */
export const loadSentNone = (s: Pick<Source, 'traffic'> | undefined): boolean =>
  s?.traffic !== undefined && s.traffic.measured === 'probes' && s.traffic.load.length > 0;

/**
 * A few words for what a class's figures are, for titles: `the load's requests`, `the probes' requests`. Given the
 * report (`s`), a run whose load phases sent nothing says so instead of "no load".
 */
export function trafficWords(m: MeasuredTraffic, s?: Pick<Source, 'traffic'>): string {
  if (m === 'load') return "the load's requests";
  if (m === 'probes')
    return loadSentNone(s)
      ? `the probes' requests (the load sent none: ${s!.traffic!.load.join(', ')}; see the notes for why)`
      : "the probes' requests (this run has no load)";
  return 'every request, load and probes together (a report of an older version)';
}

/** The same in a word or two, for chart notes: `load`, `probes (no load)`, `all requests`. */
export function trafficWord(m: MeasuredTraffic, s?: Pick<Source, 'traffic'>): string {
  if (m === 'probes') return loadSentNone(s) ? 'probes (the load sent none)' : 'probes (no load)';
  return m === 'load' ? 'load' : 'all requests';
}
