/**
 * The engine's send path, wired as src/engine/run.ts wires it for a run: the HTTP client, then for every
 * exchange the observer (every passive check), the metrics and the key states. The bench runs the executors
 * on it, so that a figure measures what a real run pays per request. Unlike src/testing/load-context.ts it
 * keeps no exchange: a bench must not grow with the number of requests. `onExchange` lets a figure read the
 * timings of each exchange as it completes, and `restartMetrics` lets it measure a phase apart from a warm-up
 * that ran on the same context.
 */
import { setMaxListeners } from 'node:events';
import type { PlanLimits, PlanName } from '../../src/api/plans.js';
import { Ledger } from '../../src/checks/ledger.js';
import { createObserver, type Observer } from '../../src/checks/observer.js';
import { createRedactor, type ApiKey } from '../../src/config/keys-file.js';
import type { Clock } from '../../src/engine/clock.js';
import { KeyStates } from '../../src/engine/key-state.js';
import type { LoadContext } from '../../src/executors/context.js';
import { createHttpClient } from '../../src/http/client.js';
import type { Exchange, RequestSpec } from '../../src/http/exchange.js';
import { createMetrics, type Metrics } from '../../src/metrics/recorder.js';

export interface EngineContextOptions {
  baseUrl: string;
  keys: readonly ApiKey[];
  clock: Clock;
  /** The engine's pool: as many connections as requests may be in flight (default 64). */
  connections?: number;
  onExchange?: (ex: Exchange) => void;
}

export interface EngineContext {
  readonly ctx: LoadContext;
  readonly ledger: Ledger;
  /** The metrics since the context was made, or since the last restartMetrics(). */
  readonly metrics: Metrics;
  /** Start the metrics afresh from now. */
  restartMetrics(): void;
  /** Finishes the observer and closes the client. */
  close(): Promise<void>;
}

const TIMEOUT_MS = 10_000;

export function createEngineContext(o: EngineContextOptions): EngineContext {
  const { clock, keys } = o;
  const ledger = new Ledger(createRedactor(keys));
  const plans = new Map<PlanName, PlanLimits>();
  for (const k of keys) if (!plans.has(k.plan)) plans.set(k.plan, k.limits);
  const observer: Observer = createObserver({ ledger, plans, clockScale: clock.scale });
  let metrics = createMetrics({ clock, startMono: clock.monotonic() });
  const keyStates = new KeyStates(keys);
  const holdBack = (label: string) => keyStates.blockedNow(label, clock.now());
  const client = createHttpClient({ baseUrl: o.baseUrl, clock, connections: o.connections ?? 64, timeoutMs: TIMEOUT_MS, holdBack });
  const signal = new AbortController().signal;
  setMaxListeners(0, signal);
  const onExchange = o.onExchange ?? null;

  const noteSent = (spec: RequestSpec) => {
    if (spec.auth.kind === 'key') keyStates.noteSent(spec.auth.key, clock.now());
  };
  const record = (spec: RequestSpec, ex: Exchange) => {
    if (ex.error?.kind === 'aborted') return;
    observer.observe(ex);
    metrics.record(ex);
    if (spec.auth.kind === 'key') keyStates.noteResponse(spec.auth.key, ex);
    onExchange?.(ex);
  };

  const ctx: LoadContext = {
    clock,
    signal,
    ledger,
    keyStates,
    plans: [...plans.keys()],
    keys,
    baseUrl: o.baseUrl,
    async send(spec) {
      noteSent(spec);
      const ex = await client.send(spec);
      record(spec, ex);
      return ex;
    },
    async sendSimultaneous(specs) {
      const burst = createHttpClient({ baseUrl: o.baseUrl, clock, connections: specs.length, timeoutMs: TIMEOUT_MS, holdBack });
      try {
        specs.forEach(noteSent);
        const exs = await Promise.all(specs.map((s) => burst.send(s)));
        exs.forEach((ex, i) => record(specs[i]!, ex));
        return exs;
      } finally {
        await burst.close();
      }
    },
    inFlight: () => client.inFlight(),
    dropped: (n) => metrics.dropped(n),
    progress() {},
    log() {},
  };

  return {
    ctx,
    ledger,
    get metrics() {
      return metrics;
    },
    restartMetrics() {
      metrics = createMetrics({ clock, startMono: clock.monotonic() });
    },
    async close() {
      observer.finish();
      await client.close();
    },
  };
}
