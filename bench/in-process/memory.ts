/**
 * Child process entry (run with --expose-gc): records `exchanges` exchanges of bench/in-process/exchange-stream.ts
 * through the passive checks and the metrics, in process, and reports the resident memory it took: after a
 * full collection before the observer and metrics exist, after the first tenth of the exchanges (by then every
 * histogram, bucket and per-key state exists) and at the end. What grows between the last two grows with the
 * number of requests. The heap's used size is reported beside: RSS also holds the room V8 reserves for a
 * high allocation rate (its young generation grows to tens of MB), which is not kept per request.
 */
import { Ledger } from '../../src/checks/ledger.js';
import { createObserver } from '../../src/checks/observer.js';
import { createClock } from '../../src/core/clock.js';
import { createMetrics } from '../../src/metrics/recorder.js';
import { emitResult } from '../lib/child-protocol.js';
import { createExchangeStream, STREAM_PLANS } from './exchange-stream.js';

export interface MemoryJob {
  exchanges: number;
}

export interface MemoryResult {
  exchanges: number;
  /** RSS (MB) after a full collection: before recording, after a tenth of the exchanges, at the end. */
  rssMB: { before: number; warm: number; after: number };
  heapUsedMB: { before: number; warm: number; after: number };
  /** RSS growth from before to the end, and from the first tenth to the end (MB). */
  growthMB: number;
  growthAfterWarmMB: number;
  /** Failures the checks recorded: 0 when the stream stayed on the passing path. */
  failedChecks: number;
  seconds: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const MB = 1024 * 1024;

function settled(): { rss: number; heap: number } {
  for (let i = 0; i < 3; i++) gc!();
  const m = process.memoryUsage();
  return { rss: m.rss / MB, heap: m.heapUsed / MB };
}

const job = JSON.parse(process.argv[2] ?? '') as MemoryJob;
const stream = createExchangeStream();
const before = settled();
const ledger = new Ledger();
const observer = createObserver({ ledger, plans: STREAM_PLANS, clockScale: 1 });
const metrics = createMetrics({ clock: createClock(1), startMono: 0 });
const warmAt = Math.floor(job.exchanges / 10);
let warm = before;
const t0 = performance.now();
for (let i = 0; i < job.exchanges; i++) {
  if (i === warmAt) warm = settled();
  const ex = stream.at(i);
  observer.observe(ex);
  metrics.record(ex);
}
const seconds = (performance.now() - t0) / 1000;
const after = settled();
// Read both after the last measurement, so that neither is collected before it.
const recorded = metrics.progress().requests;
const failedChecks = ledger.all().reduce((n, o) => n + o.failed, 0);
if (recorded !== job.exchanges) throw new Error(`the metrics recorded ${recorded} exchanges of ${job.exchanges}`);
const result: MemoryResult = {
  exchanges: job.exchanges,
  rssMB: { before: before.rss, warm: warm.rss, after: after.rss },
  heapUsedMB: { before: before.heap, warm: warm.heap, after: after.heap },
  growthMB: after.rss - before.rss,
  growthAfterWarmMB: after.rss - warm.rss,
  failedChecks,
  seconds,
};
emitResult(result);
