/**
 * The engine's send path, wired by src/engine/run-context.ts as for a run: the HTTP client, then for every
 * exchange the observer (every passive check), the metrics and the key states. The bench runs the executors
 * on it, so that a figure measures what a real run pays per request. Unlike src/testing/load-context.ts it
 * keeps no exchange: a bench must not grow with the number of requests. `onExchange` lets a figure read the
 * timings of each exchange as it completes, and `restartMetrics` lets it measure a phase apart from a warm-up
 * that ran on the same context.
 */
import type { Ledger } from '../../src/checks/ledger.js';
import { createRedactor } from '../../src/config/keys-file.js';
import type { Clock } from '../../src/core/clock.js';
import type { LoadContext } from '../../src/executors/context.js';
import type { Exchange } from '../../src/http/exchange.js';
import type { Metrics } from '../../src/metrics/recorder.js';
import { createRunContext } from '../../src/engine/run-context.js';
import type { ApiKey } from '../../src/core/api-key.js';
import type { RunEvents } from '../../src/core/run-events.js';

export interface EngineContextOptions {
  baseUrl: string;
  keys: readonly ApiKey[];
  clock: Clock;
  /** The engine's pool: as many connections as requests may be in flight (default 64). */
  connections?: number;
  onExchange?: (ex: Exchange) => void;
  /** The run's event stream (check outcomes and exchanges go to it), as `--live` and `--metrics-port` listen to it. */
  events?: RunEvents;
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
  const run = createRunContext({
    baseUrl: o.baseUrl,
    clock: o.clock,
    keys: o.keys,
    redact: createRedactor(o.keys),
    connections: o.connections ?? 64,
    timeoutMs: TIMEOUT_MS,
    signal: new AbortController().signal,
    stopped: () => new Error('a request was sent after the bench stopped'),
    ...(o.onExchange ? { onExchange: o.onExchange } : {}),
    ...(o.events ? { events: o.events } : {}),
  });
  return {
    ctx: run.loadContext({ progress() {}, log() {} }),
    ledger: run.ledger,
    get metrics() {
      return run.metrics;
    },
    restartMetrics: () => run.restartMetrics(),
    close: () => run.close(),
  };
}
