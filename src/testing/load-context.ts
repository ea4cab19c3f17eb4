/**
 * Test-only: a LoadContext over real parts: the HTTP client, a Ledger, the observer (every passive check),
 * the metrics and the key states, wired by src/engine/run-context.ts as for a run (a send after the run's
 * signal throws, as the engine's does).
 * It also keeps every exchange in order, for assertions. Never imported by src.
 */
import type { PlanName } from '../api/plans.js';
import type { Ledger } from '../checks/ledger.js';
import type { ApiKey } from '../core/api-key.js';
import { ScenarioSchema, type LoadSection } from '../config/scenario.js';
import { createClock, type Clock } from '../core/clock.js';
import type { KeyStates } from '../backoff/key-state.js';
import type { LoadContext } from '../executors/context.js';
import { createRunContext } from '../engine/run-context.js';
import type { Exchange } from '../http/exchange.js';
import type { Metrics } from '../metrics/recorder.js';
import { createReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../reference-server/index.js';
import { REQUEST_TIMEOUT_MS } from '../core/defaults.js';

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
  /** Each log line with how many exchanges had completed when it was written (what it followed). */
  readonly logged: { readonly line: string; readonly afterExchanges: number }[];
  /** Sends counted as dropped. */
  dropped(): number;
  /** Finishes the observer and closes the client. */
  close(): Promise<void>;
}

export function createTestLoadContext(o: TestLoadContextOptions): TestLoadContext {
  const exchanges: Exchange[] = [];
  const logs: string[] = [];
  const logged: { line: string; afterExchanges: number }[] = [];
  let dropped = 0;
  const run = createRunContext({
    baseUrl: o.baseUrl,
    clock: o.clock,
    keys: o.keys,
    ...(o.plans ? { plans: o.plans } : {}),
    connections: o.connections ?? 64,
    timeoutMs: o.timeoutMs ?? REQUEST_TIMEOUT_MS,
    signal: o.signal ?? new AbortController().signal,
    stopped: () => new Error('a request was sent after the run was stopped'),
    onExchange: (ex) => exchanges.push(ex),
  });
  const ctx = run.loadContext({
    dropped: (n) => {
      dropped += n;
    },
    progress() {},
    log: (line) => {
      logs.push(line);
      logged.push({ line, afterExchanges: exchanges.length });
    },
  });
  return {
    ctx,
    ledger: run.ledger,
    keyStates: run.keyStates,
    metrics: run.metrics,
    exchanges,
    logs,
    logged,
    dropped: () => dropped,
    close: () => run.close(),
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
