/**
 * Merging the metrics of runs of one scenario (`petload merge`), taken to have run side by side (e.g. on
 * several machines): histograms merge exactly and every summary is recomputed from them, counts add up,
 * rps adds up (concurrent throughput), timelines overlay from each run's start (see mergeTimelines) and key
 * timelines interleave (see mergeKeyTimelines).
 */
import { decodeHistogram, mergeEncoded, summarize } from './histogram.js';
import { mergeKeyTimelines } from './key-timelines.js';
import { ALL_HISTOGRAM, type MetricsSnapshot, OPERATION_NAMES, SERVICE_TIME_HISTOGRAM } from './recorder.js';
import { mergeTimelines } from './timeline.js';
import { operationsOf } from './traffic.js';

type OperationMetrics = MetricsSnapshot['operations'][number];

function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** The histograms every merged summary is recomputed from; a report without them cannot be merged exactly. */
function requireExact(op: OperationMetrics): OperationMetrics {
  for (const name of [ALL_HISTOGRAM, SERVICE_TIME_HISTOGRAM]) {
    if (op.histograms[name] === undefined)
      throw new Error(`operation ${op.operation} has no "${name}" histogram, so it cannot be merged exactly`);
  }
  return op;
}

function mergeOperation(a: OperationMetrics, b: OperationMetrics): OperationMetrics {
  const histograms: Record<string, string> = {};
  for (const name of new Set([...Object.keys(a.histograms), ...Object.keys(b.histograms)])) {
    histograms[name] = mergeEncoded([a.histograms[name], b.histograms[name]].filter((x) => x !== undefined));
  }
  return {
    operation: a.operation,
    count: a.count + b.count,
    statusCounts: addCounts(a.statusCounts, b.statusCounts),
    latency: summarize(decodeHistogram(histograms[ALL_HISTOGRAM]!)),
    serviceTime: summarize(decodeHistogram(histograms[SERVICE_TIME_HISTOGRAM]!)),
    histograms,
  };
}

const orderOf = (name: string): number => {
  const i = (OPERATION_NAMES as readonly string[]).indexOf(name);
  return i === -1 ? OPERATION_NAMES.length : i;
};

function mergeOperations(a: readonly OperationMetrics[], b: readonly OperationMetrics[]): OperationMetrics[] {
  const byName = new Map<string, OperationMetrics>();
  for (const op of [...a, ...b].map(requireExact)) {
    const seen = byName.get(op.operation);
    byName.set(op.operation, seen === undefined ? op : mergeOperation(seen, op));
  }
  return [...byName.values()].sort(
    (x, y) => orderOf(x.operation) - orderOf(y.operation) || x.operation.localeCompare(y.operation),
  );
}

/**
 * The operations of the merged runs, class by class (the load's with the load's, the probes' with the probes'). A
 * report of an older version mixes them: merged with it, every request is merged together, as that version did.
 */
function mergeClasses(
  a: MetricsSnapshot,
  b: MetricsSnapshot,
): Pick<MetricsSnapshot, 'operations' | 'traffic' | 'probeOperations'> {
  if (a.traffic === undefined || b.traffic === undefined)
    return { operations: mergeOperations(a.operations, b.operations) };
  const load = mergeOperations(operationsOf(a, 'load'), operationsOf(b, 'load'));
  const probes = mergeOperations(operationsOf(a, 'probes'), operationsOf(b, 'probes'));
  const measured = load.length > 0 || probes.length === 0 ? 'load' : 'probes';
  const names = (k: 'load' | 'probes') => [...new Set([...a.traffic![k], ...b.traffic![k]])];
  return {
    operations: measured === 'load' ? load : probes,
    traffic: { measured, load: names('load'), probes: names('probes') },
    ...(measured === 'load' && probes.length > 0 ? { probeOperations: probes } : {}),
  };
}

export function mergeSnapshots(a: MetricsSnapshot, b: MetricsSnapshot): MetricsSnapshot {
  return {
    totals: {
      requests: a.totals.requests + b.totals.requests,
      dropped: a.totals.dropped + b.totals.dropped,
      transportErrors: a.totals.transportErrors + b.totals.transportErrors,
      statusCounts: addCounts(a.totals.statusCounts, b.totals.statusCounts),
      rps: a.totals.rps + b.totals.rps,
    },
    ...mergeClasses(a, b),
    timeline: mergeTimelines(a.timeline, b.timeline),
    keyTimelines: mergeKeyTimelines(a.keyTimelines, b.keyTimelines),
  };
}
