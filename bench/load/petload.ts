/**
 * Child process entry: one petload load phase against a URL with the bench key, through the real executors
 * (runLoad) on the engine's send path (bench/lib/engine-context.ts), and its measurements as the result.
 *
 * - saturate: autocannon inside petload; requests/s as the executor reports it.
 * - concurrency: closed model with every passive check on; requests/s over the phase.
 *   Both may first run the same phase for `warmupS` on the same context (the metrics then start afresh), as the
 *   autocannon CLI they are compared with warms up with `--warmup`: the figure compares steady states. A fresh
 *   process spends its first 0.5–0.75 s compiling (measured: per 250 ms, 366, 907, 2021, then about 8000
 *   checked requests), a quarter of a 3 s window.
 * - constant-rate: open model; per request, the send lag (actual send − intended, real ms), the achieved
 *   rate (requests that left within the phase's duration, per second of it), and the latency percentiles
 *   the metrics report.
 *   An optional warm-up first sends at 1000 real requests/s on the same context, as a run's probes come
 *   before its load phases on the same client and checks; the metrics then start afresh. Without it, a
 *   fresh process on one pinned core keeps stalling its sends for milliseconds while V8 compiles and
 *   re-optimises the send path (measured: about 90 sends of 5000 lagging over 2 ms after a 1 s warm-up,
 *   about 25 after 3 s).
 * Only listPets is sent, the request every peer serves.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { ScenarioSchema, type LoadSection } from '../../src/config/scenario.js';
import { createClock } from '../../src/core/clock.js';
import { createRunEvents } from '../../src/core/run-events.js';
import { runLoad } from '../../src/executors/run-load.js';
import type { Exchange } from '../../src/http/exchange.js';
import { createHttpClient } from '../../src/http/client.js';
import { startJournal } from '../../src/journal/writer.js';
import { relayEvents, startLivePage, startMetrics } from '../../src/live/index.js';
import { emitResult } from '../lib/child-protocol.js';
import { createEngineContext, type EngineContext } from '../lib/engine-context.js';
import { keyFromEnv } from '../lib/key.js';
import { spread } from '../lib/stats.js';

export type LoadJob =
  /** `warmupS`: real seconds of the same phase on the same context first, left out of the result. */
  | { kind: 'saturate'; url: string; connections: number; seconds: number; warmupS: number }
  | { kind: 'concurrency'; url: string; workers: number; seconds: number; warmupS: number }
  /** `seconds` of concurrency in slices of `sliceMs`, without and with the live sinks in turns (liveSlices below). */
  | { kind: 'live-slices'; url: string; workers: number; seconds: number; sliceMs: number; warmupS: number }
  /**
   * The HTTP client alone (no check, no metrics, no executor): `workers` loops sending listPets through
   * createHttpClient over one transport, to weigh the direct HTTP/1.1 transport against undici's Pool.
   */
  | { kind: 'client'; url: string; workers: number; seconds: number; warmupS: number; transport: 'direct' | 'undici' }
  /** `seconds` of the run clock, which runs `scale` times faster than real time. */
  | {
      kind: 'constant-rate';
      url: string;
      perSecond: number;
      seconds: number;
      scale: number;
      warmupS: number;
    };

export interface ThroughputResult {
  requests: number;
  /** Real seconds. */
  seconds: number;
  /** The measured phase, in epoch ms (the server's CPU share over it is read by the parent). */
  window: { from: number; to: number };
  requestsPerSecond: number;
  errors: number;
  non2xx: number;
  /**
   * CPU µs the process used per request during the phase, and its CPU time over the phase's real time: a
   * closed model on a core of its own keeps that share near 1, so a lower one says the core was shared.
   */
  cpuMicrosPerRequest: number;
  cpuShare: number;
  /**
   * Share of the phase's real time spent in garbage collection pauses (node:perf_hooks 'gc' entries). A
   * retention problem shows here first: young-generation collections that copy what should have died.
   */
  gcShare: number;
  /** Outcomes the passive checks recorded (concurrency only; saturate's exchanges are not judged). */
  checks?: { passed: number; failed: number; skipped: number };
}

export interface PacingResult {
  planned: number;
  sent: number;
  dropped: number;
  /** Actual send − intended send, real ms, over every request. */
  lagMs: { p50: number; p99: number; max: number };
  /** Requests that left within the phase's duration, per run-clock second of it (comparable to the target rate). */
  achievedPerSecond: number;
  /** What petload's metrics report, real ms: latency from the intended send time, service time from the actual one. */
  latencyMs: { p50: number; p99: number };
  serviceTimeMs: { p50: number; p99: number };
}

/** A load section as a scenario would give it: listPets only, the scenario defaults otherwise (maxInFlight 64). */
function loadSection(phase: Record<string, unknown>): LoadSection {
  return ScenarioSchema.parse({
    name: 'bench',
    description: 'a bench phase',
    load: { mix: { listPets: 1 }, phases: [phase] },
  }).load!;
}

type ThroughputJob = Extract<LoadJob, { kind: 'saturate' | 'concurrency' }>;
type LiveSlicesJob = Extract<LoadJob, { kind: 'live-slices' }>;

export interface LiveSlice {
  /** Whether the run's events went to the live sinks during the slice. */
  on: boolean;
  /** Epoch ms (the server's CPU share over the slice is read by the parent). */
  from: number;
  to: number;
  /** Real ms, requests completed and CPU µs of the process, over the slice. */
  ms: number;
  requests: number;
  cpuMicros: number;
}

export interface LiveSlicesResult {
  slices: LiveSlice[];
}

/** What a concurrency or saturate job runs, as a load section of `seconds` real seconds. */
function phaseOf(job: ThroughputJob | LiveSlicesJob, seconds: number): LoadSection {
  const duration = `${seconds * 1000}ms`;
  return loadSection(
    job.kind === 'saturate'
      ? { executor: 'saturate', connections: job.connections, duration }
      : { executor: 'concurrency', workers: job.workers, duration },
  );
}

async function throughput(job: ThroughputJob): Promise<ThroughputResult> {
  const engine = createEngineContext({ baseUrl: job.url, keys: [keyFromEnv()], clock: createClock(1) });
  try {
    if (job.warmupS > 0) {
      await runLoad(engine.ctx, phaseOf(job, job.warmupS));
      engine.restartMetrics();
    }
    return await measured(engine, phaseOf(job, job.seconds), job.kind);
  } finally {
    await engine.close();
  }
}

/**
 * One checked-throughput phase with the live page and the metrics endpoint listening (on free loopback ports,
 * nobody reading them) to a stream of their own, and the run's event stream relayed to it (relayEvents) in every
 * other slice of `sliceMs`, as `petload run --live --metrics-port` relays each run's events to its sinks: a slice
 * without the relay is a run without sinks. The run's journal listens throughout, as in every run. Each slice's
 * requests, real time and CPU time are noted at its end, so that the parent compares slices a fraction of a second
 * apart.
 */
async function liveSlices(job: LiveSlicesJob): Promise<LiveSlicesResult> {
  const key = keyFromEnv();
  const run = createRunEvents();
  const sinks = createRunEvents();
  let requests = 0;
  const engine = createEngineContext({
    baseUrl: job.url,
    keys: [key],
    clock: createClock(1),
    events: run,
    onExchange: () => requests++,
  });
  // As every run: its journal listens to the run's events (so a run makes exchange events with or without sinks).
  const dir = await mkdtemp(join(tmpdir(), 'petload-live-cost-'));
  const journal = startJournal(run, dir, {
    tool: { name: 'petload', version: 'bench' },
    scenario: { name: 'bench', description: 'live cost' },
    target: { url: job.url, embedded: false, timeScale: 1, faults: [] },
    plans: [key.plan],
    keys: [{ label: key.label, plan: key.plan, sacrificial: false }],
    startedAt: new Date().toISOString(),
    thresholds: [],
  });
  const page = await startLivePage(sinks, { port: 0 });
  const metrics = await startMetrics(sinks, { port: 0 });
  const slices: LiveSlicesResult['slices'] = [];
  // A phase in slices that toggle the relay, each noted at its end (when `note`).
  const sliced = async (seconds: number, note: boolean) => {
    let stopRelay: (() => void) | null = null;
    let from = { at: Date.now(), t: performance.now(), requests, cpu: process.cpuUsage() };
    const toggle = () => {
      const on = stopRelay !== null;
      const to = { at: Date.now(), t: performance.now(), requests, cpu: process.cpuUsage() };
      if (note)
        slices.push({
          on,
          from: from.at,
          to: to.at,
          ms: to.t - from.t,
          requests: to.requests - from.requests,
          cpuMicros: to.cpu.user - from.cpu.user + (to.cpu.system - from.cpu.system),
        });
      if (stopRelay) {
        stopRelay();
        stopRelay = null;
      } else stopRelay = relayEvents(run, sinks);
      from = to;
    };
    const timer = setInterval(toggle, job.sliceMs);
    try {
      await runLoad(engine.ctx, phaseOf(job, seconds));
    } finally {
      clearInterval(timer);
      (stopRelay as (() => void) | null)?.();
    }
  };
  try {
    if (job.warmupS > 0) await sliced(job.warmupS, false);
    await sliced(job.seconds, true);
    return { slices };
  } finally {
    await Promise.all([page.close(), metrics.close(), engine.close()]);
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** One measured phase on the context: requests, CPU and GC over it (the metrics restarted just before). */
async function measured(
  engine: EngineContext,
  phase: LoadSection,
  kind: 'saturate' | 'concurrency',
): Promise<ThroughputResult> {
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  });
  try {
    gc.observe({ entryTypes: ['gc'] });
    const from = Date.now();
    const cpuFrom = process.cpuUsage();
    const outcome = await runLoad(engine.ctx, phase);
    const cpu = process.cpuUsage(cpuFrom);
    const window = { from, to: Date.now() };
    // Entries are delivered asynchronously: one more turn of the event loop takes in the last ones.
    await new Promise((resolve) => setImmediate(resolve));
    const ph = outcome.phases[0]!;
    const cpuOf = (requests: number) => ({
      window,
      cpuMicrosPerRequest: (cpu.user + cpu.system) / requests,
      cpuShare: (cpu.user + cpu.system) / 1000 / ph.durationMs,
      gcShare: gcMs / ph.durationMs,
    });
    if (kind === 'saturate') {
      const s = ph.saturate?.[0];
      if (s === undefined) throw new Error('saturate measured nothing');
      return {
        requests: s.requests,
        seconds: s.durationS,
        requestsPerSecond: s.requestsPerSecond,
        errors: s.errors,
        non2xx: s.non2xx,
        ...cpuOf(s.requests),
      };
    }
    const totals = engine.metrics.snapshot().totals;
    const seconds = ph.durationMs / 1000;
    const checks = { passed: 0, failed: 0, skipped: 0 };
    for (const o of engine.ledger.all()) {
      checks.passed += o.passed;
      checks.failed += o.failed;
      checks.skipped += o.skipped;
    }
    const non2xx = Object.entries(totals.statusCounts).reduce(
      (n, [status, count]) => (status.startsWith('2') ? n : n + count),
      0,
    );
    return {
      requests: totals.requests,
      seconds,
      requestsPerSecond: totals.requests / seconds,
      errors: totals.transportErrors,
      non2xx,
      ...cpuOf(totals.requests),
      checks,
    };
  } finally {
    gc.disconnect();
  }
}

/** What the client alone cost: requests, CPU µs per request, and its CPU share over the measured window. */
export interface ClientResult {
  requests: number;
  requestsPerSecond: number;
  cpuMicrosPerRequest: number;
  cpuShare: number;
  /** Answers that were not 200 (none expected: the peer answers every list). */
  non200: number;
}

/** The client alone: `workers` loops of listPets (a limit of 1..100, as the load draws it) for `seconds`. */
async function clientAlone(job: Extract<LoadJob, { kind: 'client' }>): Promise<ClientResult> {
  const key = keyFromEnv();
  const client = createHttpClient({
    baseUrl: job.url,
    clock: createClock(1),
    connections: 64,
    transport: job.transport,
  });
  const paths = Array.from({ length: 100 }, (_, i) => `/pets?limit=${i + 1}`);
  let requests = 0;
  let non200 = 0;
  const loops = async (seconds: number) => {
    const until = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < until) {
        const path = paths[Math.floor(Math.random() * paths.length)]!;
        const ex = await client.send({
          operation: 'listPets',
          method: 'GET',
          path,
          auth: { kind: 'key', key },
          tag: 'bench',
        });
        requests++;
        if (ex.status !== 200) non200++;
      }
    };
    await Promise.all(Array.from({ length: job.workers }, worker));
  };
  try {
    if (job.warmupS > 0) await loops(job.warmupS);
    requests = 0;
    non200 = 0;
    const t0 = performance.now();
    const cpuFrom = process.cpuUsage();
    await loops(job.seconds);
    const cpu = process.cpuUsage(cpuFrom);
    const ms = performance.now() - t0;
    return {
      requests,
      requestsPerSecond: (requests * 1000) / ms,
      cpuMicrosPerRequest: (cpu.user + cpu.system) / requests,
      cpuShare: (cpu.user + cpu.system) / 1000 / ms,
      non200,
    };
  } finally {
    await client.close();
  }
}

/** Real requests per second of the warm-up. */
const WARMUP_RATE = 1000;

async function pacing(job: Extract<LoadJob, { kind: 'constant-rate' }>): Promise<PacingResult> {
  const clock = createClock(job.scale);
  const durationMs = job.seconds * 1000;
  const lags = new Float64Array(Math.ceil(job.perSecond * job.seconds));
  let measuring = false;
  let n = 0;
  let inTime = 0;
  let start = 0;
  const onExchange = (ex: Exchange) => {
    if (!measuring) return;
    const { intended, sent } = ex.timing;
    if (n < lags.length) lags[n++] = (sent - intended) / clock.scale;
    if (sent - start <= durationMs) inTime++;
  };
  const engine = createEngineContext({ baseUrl: job.url, keys: [keyFromEnv()], clock, onExchange });
  try {
    if (job.warmupS > 0) {
      await runLoad(
        engine.ctx,
        loadSection({
          executor: 'constant-rate',
          rate: `${WARMUP_RATE / job.scale}/s`,
          duration: `${job.warmupS * 1000 * job.scale}ms`,
        }),
      );
      engine.restartMetrics();
    }
    measuring = true;
    start = clock.monotonic();
    const outcome = await runLoad(
      engine.ctx,
      loadSection({ executor: 'constant-rate', rate: `${job.perSecond}/s`, duration: `${durationMs}ms` }),
    );
    const counts = outcome.phases[0]!.plans[0]!;
    const op = engine.metrics.snapshot().operations.find((o) => o.operation === 'listPets');
    return {
      planned: counts.planned,
      sent: counts.sent,
      dropped: counts.dropped,
      lagMs: spread(lags.subarray(0, n)),
      achievedPerSecond: inTime / job.seconds,
      latencyMs: { p50: op?.latency.p50 ?? Number.NaN, p99: op?.latency.p99 ?? Number.NaN },
      serviceTimeMs: { p50: op?.serviceTime.p50 ?? Number.NaN, p99: op?.serviceTime.p99 ?? Number.NaN },
    };
  } finally {
    await engine.close();
  }
}

const job = JSON.parse(process.argv[2] ?? '') as LoadJob;
emitResult(
  job.kind === 'constant-rate'
    ? await pacing(job)
    : job.kind === 'live-slices'
      ? await liveSlices(job)
      : job.kind === 'client'
        ? await clientAlone(job)
        : await throughput(job),
);
