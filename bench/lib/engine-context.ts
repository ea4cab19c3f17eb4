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
import { createRedactor } from '../../src/config/keys-file.js';
import type { ApiKey } from '../../src/core/api-key.js';
import type { Clock } from '../../src/core/clock.js';
import { KeyStates } from '../../src/backoff/key-state.js';
import type { LoadContext } from '../../src/executors/context.js';
import { createSendPath } from '../../src/engine/send-path.js';
import type { Exchange } from '../../src/http/exchange.js';
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
  const path = createSendPath({
    baseUrl: o.baseUrl,
    clock,
    keyStates,
    observer,
    metrics: () => metrics,
    connections: o.connections ?? 64,
    timeoutMs: TIMEOUT_MS,
    ...(o.onExchange ? { onExchange: o.onExchange } : {}),
  });
  const signal = new AbortController().signal;
  setMaxListeners(0, signal);
  const ctx: LoadContext = {
    clock,
    signal,
    ledger,
    keyStates,
    plans: [...plans.keys()],
    keys,
    baseUrl: o.baseUrl,
    send: (spec) => path.send(spec),
    sendSimultaneous: (specs) => path.sendSimultaneous(specs),
    inFlight: () => path.inFlight(),
    measure: (ex) => metrics.record(ex),
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
      await path.close();
    },
  };
}
