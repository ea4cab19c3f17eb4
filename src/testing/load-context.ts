/**
 * Test-only: an engine-like LoadContext over real parts: the HTTP client, a Ledger, the observer (every
 * passive check), the metrics and the key states, wired as src/engine/run.ts wires them for a run (a send
 * after the run's signal throws, as the engine's does).
 * It also keeps every exchange in order, for assertions. Never imported by src.
 */
import { setMaxListeners } from 'node:events';
import type { PlanLimits, PlanName } from '../api/plans.js';
import { Ledger } from '../checks/ledger.js';
import { createObserver } from '../checks/observer.js';
import type { ApiKey } from '../core/api-key.js';
import { ScenarioSchema, type LoadSection } from '../config/scenario.js';
import { createClock, type Clock } from '../core/clock.js';
import { KeyStates } from '../backoff/key-state.js';
import type { LoadContext } from '../executors/context.js';
import { createSendPath } from '../engine/send-path.js';
import type { Exchange } from '../http/exchange.js';
import { createMetrics, type Metrics } from '../metrics/recorder.js';
import { createReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../server/index.js';

export interface TestLoadContextOptions {
  baseUrl: string;
  keys: readonly ApiKey[];
  clock: Clock;
  /** Default: the plans of the keys. */
  plans?: readonly PlanName[];
  /** Pool size of the client (default 64, the engine's). */
  connections?: number;
  signal?: AbortSignal;
  /** Real ms (default 10 000). */
  timeoutMs?: number;
}

export interface TestLoadContext {
  readonly ctx: LoadContext;
  readonly ledger: Ledger;
  readonly keyStates: KeyStates;
  readonly metrics: Metrics;
  /** Every exchange, in completion order. */
  readonly exchanges: Exchange[];
  readonly logs: string[];
  /** Sends counted as dropped. */
  dropped(): number;
  /** Finishes the observer and closes the client. */
  close(): Promise<void>;
}

export function createTestLoadContext(o: TestLoadContextOptions): TestLoadContext {
  const { clock, keys } = o;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const ledger = new Ledger();
  const limits = new Map<PlanName, PlanLimits>();
  for (const k of keys) if (!limits.has(k.plan)) limits.set(k.plan, k.limits);
  const observer = createObserver({ ledger, plans: limits, clockScale: clock.scale });
  const metrics = createMetrics({ clock, startMono: clock.monotonic() });
  const keyStates = new KeyStates(keys);
  const signal = o.signal ?? new AbortController().signal;
  // As in the engine: many waits may listen to the run's signal at once, which is no leak.
  setMaxListeners(0, signal);
  const exchanges: Exchange[] = [];
  const logs: string[] = [];
  let dropped = 0;

  const path = createSendPath({
    baseUrl: o.baseUrl,
    clock,
    keyStates,
    observer,
    metrics: () => metrics,
    connections: o.connections ?? 64,
    timeoutMs,
    stopped: () => (signal.aborted ? new Error('a request was sent after the run was stopped') : null),
    onExchange: (ex) => exchanges.push(ex),
  });

  const ctx: LoadContext = {
    clock,
    signal,
    ledger,
    keyStates,
    plans: o.plans ?? [...limits.keys()],
    keys,
    baseUrl: o.baseUrl,
    send: (spec) => path.send(spec),
    sendSimultaneous: (specs) => path.sendSimultaneous(specs),
    inFlight: () => path.inFlight(),
    measure: (ex) => metrics.record(ex),
    dropped(n = 1) {
      dropped += n;
      metrics.dropped(n);
    },
    progress() {},
    log: (line) => logs.push(line),
  };

  return {
    ctx,
    ledger,
    keyStates,
    metrics,
    exchanges,
    logs,
    dropped: () => dropped,
    async close() {
      observer.finish();
      await path.close();
    },
  };
}

/** A load section as a scenario file would give it (YAML-like input), validated by the scenario schema. */
export function parseLoad(load: unknown): LoadSection {
  const scenario = ScenarioSchema.parse({ name: 'test', description: 'a test load', load });
  if (scenario.load === undefined) throw new Error('no load section');
  return scenario.load;
}

export interface LoadTarget extends TestLoadContext {
  readonly server: ReferenceServer;
  /** Closes the context, then the server. */
  stop(): Promise<void>;
}

/** The embedded reference server on a clock `scale` times faster than real time, and a load context on it. */
export async function startLoadTarget(
  keys: readonly ApiKey[],
  scale: number,
  server: Omit<ReferenceServerOptions, 'keys' | 'clock' | 'timeScale'> = {},
  context: Pick<TestLoadContextOptions, 'plans' | 'connections' | 'signal'> = {},
): Promise<LoadTarget> {
  const clock = createClock(scale);
  const s = await createReferenceServer({ ...server, keys: [...keys], clock });
  const t = createTestLoadContext({ ...context, baseUrl: s.url, keys, clock });
  return {
    ...t,
    server: s,
    async stop() {
      await t.close();
      await s.close();
    },
  };
}
