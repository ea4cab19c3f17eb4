/**
 * Child process entry: what the passive checks cost per exchange, in process. A run of `exchanges`
 * exchanges (bench/in-process/exchange-stream.ts) is built before each pass, untimed (so that each pass gets its
 * exchanges with empty parse memos, src/http/parsed.ts, as a run gets them from its client); each pass judges
 * all of it with a fresh observer and records all of it in fresh metrics, timing the two apart. The first pass
 * warms the JIT and is not counted.
 */
import { Ledger } from '../../src/checks/ledger.js';
import { createObserver } from '../../src/checks/observer.js';
import { createClock } from '../../src/core/clock.js';
import type { Exchange } from '../../src/http/exchange.js';
import { createMetrics } from '../../src/metrics/recorder.js';
import { emitResult } from '../lib/child-protocol.js';
import { mean, median } from '../lib/stats.js';
import { createExchangeStream, STREAM_PLANS } from './exchange-stream.js';

export interface CheckCostJob {
  exchanges: number;
  passes: number;
}

export interface CheckCostResult {
  exchanges: number;
  passes: number;
  /** Microseconds per exchange of observer.observe (every passive check): median and mean of the passes. */
  observeMicros: { median: number; mean: number; passes: number[] };
  /** Microseconds per exchange of metrics.record, likewise. */
  recordMicros: { median: number; mean: number; passes: number[] };
  /** Outcomes (pass, fail or skip) recorded per exchange, and failures in all (0: the passing path). */
  outcomesPerExchange: number;
  failedChecks: number;
}

const job = JSON.parse(process.argv[2] ?? '') as CheckCostJob;
const clock = createClock(1);

function pass(): { observe: number; record: number; outcomes: number; failed: number } {
  const stream = createExchangeStream();
  const exchanges: Exchange[] = Array.from({ length: job.exchanges }, (_, i) => stream.at(i));
  const ledger = new Ledger();
  const observer = createObserver({ ledger, plans: STREAM_PLANS, clockScale: 1 });
  const metrics = createMetrics({ clock, startMono: 0 });
  const t0 = performance.now();
  for (const ex of exchanges) observer.observe(ex);
  const t1 = performance.now();
  for (const ex of exchanges) metrics.record(ex);
  const t2 = performance.now();
  const all = ledger.all();
  return {
    observe: ((t1 - t0) * 1000) / exchanges.length,
    record: ((t2 - t1) * 1000) / exchanges.length,
    outcomes: all.reduce((n, o) => n + o.passed + o.failed + o.skipped, 0),
    failed: all.reduce((n, o) => n + o.failed, 0),
  };
}

pass();
const passes = Array.from({ length: job.passes }, pass);
const observe = passes.map((p) => p.observe);
const record = passes.map((p) => p.record);
const result: CheckCostResult = {
  exchanges: job.exchanges,
  passes: job.passes,
  observeMicros: { median: median(observe), mean: mean(observe), passes: observe },
  recordMicros: { median: median(record), mean: mean(record), passes: record },
  outcomesPerExchange: passes[0]!.outcomes / job.exchanges,
  failedChecks: passes[0]!.failed,
};
emitResult(result);
