/**
 * A run's wiring, in one place: the ledger, the passive checks' observer, the metrics, the key states and the
 * send path through which every exchange reaches them. runScenario (run.ts), the load tests
 * (src/testing/load-context.ts) and the bench (bench/lib/engine-context.ts) all build their run here, so that
 * what a test or the bench measures is wired the way a run is.
 */
import { setMaxListeners } from 'node:events';
import type { PlanLimits, PlanName } from '../api/plans.js';
import { KeyStates } from '../backoff/key-state.js';
import { resolveAtEnd } from '../checks/echoes.js';
import { Ledger } from '../checks/ledger.js';
import { createObserver, type Observer } from '../checks/observer.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import type { RunEvents } from '../core/run-events.js';
import { PetloadError } from '../core/errors.js';
import type { LoadContext } from '../executors/context.js';
import type { ProbeContext } from '../probes/context.js';
import { Refusals } from '../probes/window.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import type { NetworkOptions } from '../http/network.js';
import { createMetrics, type Metrics } from '../metrics/recorder.js';
import { createSendPath, exchangeEvent, type SendPath } from './send-path.js';

export interface RunContextOptions {
  readonly baseUrl: string;
  readonly clock: Clock;
  /** The keys the run sends on and judges; their figures are what the checks hold the target to. */
  readonly keys: readonly ApiKey[];
  /** The plans judged (default: the plans of the keys, in key order). */
  readonly plans?: readonly PlanName[];
  /** Free text of the ledger's evidence goes through it (default: none). */
  readonly redact?: (text: string) => string;
  /** Pool size: as many connections as requests may be in flight. */
  readonly connections: number;
  /** Real ms, whole exchange. */
  readonly timeoutMs: number;
  /** The run's signal: once it aborts, a send throws `stopped()` instead of sending. */
  readonly signal: AbortSignal;
  /** The error a send throws once the run's signal has aborted. */
  readonly stopped: () => Error;
  /** When it aborts, every request still in flight or queued is abandoned (the drain deadline after an interrupt). */
  readonly requestSignal?: AbortSignal;
  /** The run's event stream: check outcomes (from the ledger) and exchanges (from the send path) go to it. */
  readonly events?: RunEvents;
  /** Called with every exchange the send path records, as it is (tests and the bench). */
  readonly onExchange?: (ex: Exchange) => void;
  /** How the target is reached (proxy, CA, client certificate, HTTP/2, headers). */
  readonly network?: NetworkOptions;
  /** What every request of the run's probes and load goes through before the send path (a remote run's quota guard). */
  readonly gate?: SendGate;
}

/** A step between the run's sends and the send path: it may hold a request back before passing it on (`next`). */
export interface SendGate {
  send(spec: RequestSpec, next: (spec: RequestSpec) => Promise<Exchange>): Promise<Exchange>;
  sendSimultaneous(
    specs: readonly RequestSpec[],
    next: (specs: readonly RequestSpec[]) => Promise<Exchange[]>,
  ): Promise<Exchange[]>;
}

/** What the probes' context adds to the run's: where its notes and log lines go. */
export type ProbeHooks = Pick<ProbeContext, 'note' | 'log'>;

/** What the executors' context adds to the run's: how the caller counts drops, shows progress and logs. */
export type LoadHooks = Pick<LoadContext, 'progress' | 'log'> & { dropped?(n: number): void };

export interface RunContext {
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly keys: readonly ApiKey[];
  readonly plans: readonly PlanName[];
  readonly ledger: Ledger;
  readonly observer: Observer;
  readonly keyStates: KeyStates;
  /** The metrics since the run began, or since the last restartMetrics(). */
  readonly metrics: Metrics;
  readonly path: SendPath;
  /** Start the metrics afresh from now (the bench measures a phase apart from its warm-up). */
  restartMetrics(): void;
  /**
   * Send one request through the path: judged, measured and noted in the key states before it returns. A send
   * on a key suspected banned is a bug of petload (E_INTERNAL): probes and executors check before they send.
   */
  send(spec: RequestSpec): Promise<Exchange>;
  sendSimultaneous(specs: readonly RequestSpec[]): Promise<Exchange[]>;
  /** The context the load executors run in. */
  loadContext(hooks: LoadHooks): LoadContext;
  /** Finishes the observer: the checks that judge the run as a whole judge it now (once; later calls do nothing). */
  finish(): void;
  /** Finishes the observer, if not yet, and closes the client. */
  close(): Promise<void>;
}

/** Each plan's figures (those of its first key), and the keys whose own figures differ from their plan's. */
function figuresOf(keys: readonly ApiKey[]): { plans: Map<PlanName, PlanLimits>; keyLimits: Map<string, PlanLimits> } {
  const plans = new Map<PlanName, PlanLimits>();
  for (const k of keys) if (!plans.has(k.plan)) plans.set(k.plan, k.limits);
  const differs = (k: ApiKey, p: PlanLimits | undefined) =>
    p === undefined || k.limits.perMinute !== p.perMinute || k.limits.perDay !== p.perDay;
  const keyLimits = new Map(keys.filter((k) => differs(k, plans.get(k.plan))).map((k) => [k.label, k.limits]));
  return { plans, keyLimits };
}

/** The context the probe schedule (run-schedule.ts) gives each step its share of, over a run's parts. */
export function probeContextOf(
  run: Pick<RunContext, 'clock' | 'ledger' | 'keyStates' | 'signal' | 'send' | 'sendSimultaneous'>,
  hooks: ProbeHooks,
): ProbeContext {
  const { clock, ledger, keyStates, signal, send, sendSimultaneous } = run;
  return {
    clock,
    ledger,
    keyStates,
    signal,
    send,
    sendSimultaneous,
    again: hooks.log,
    ...hooks,
    refusals: new Refusals(),
  };
}

export function createRunContext(o: RunContextOptions): RunContext {
  const { clock, keys, signal } = o;
  // Many waits may listen to the run's signal at once, which is no leak.
  setMaxListeners(0, signal);
  const ledger = new Ledger(o.redact, o.events ? (e) => o.events!.emit(e) : null);
  const figures = figuresOf(keys);
  const observer = createObserver({
    ledger,
    plans: figures.plans,
    keyLimits: figures.keyLimits,
    clockScale: clock.scale,
  });
  const startMono = clock.monotonic();
  let metrics = createMetrics({ clock, startMono });
  const keyStates = new KeyStates(keys);
  const path = createSendPath({
    baseUrl: o.baseUrl,
    clock,
    keyStates,
    observer,
    metrics: () => metrics,
    connections: o.connections,
    timeoutMs: o.timeoutMs,
    stopped: () => (signal.aborted ? o.stopped() : null),
    ...(o.requestSignal ? { requestSignal: o.requestSignal } : {}),
    ...(o.onExchange ? { onExchange: o.onExchange } : {}),
    ...(o.events ? { events: o.events } : {}),
    ...(o.network ? { network: o.network } : {}),
  });
  const send = (spec: RequestSpec): Promise<Exchange> => {
    if (spec.auth.kind === 'key' && keyStates.get(spec.auth.key).suspectedBan) {
      return Promise.reject(
        new PetloadError('E_INTERNAL', `a probe tried to send on ${spec.auth.key.label}, which is suspected banned`),
      );
    }
    return o.gate ? o.gate.send(spec, path.send) : path.send(spec);
  };
  const sendSimultaneous = (specs: readonly RequestSpec[]) =>
    o.gate ? o.gate.sendSimultaneous(specs, path.sendSimultaneous) : path.sendSimultaneous(specs);
  const plans = o.plans ?? [...figures.plans.keys()];
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    observer.finish();
    resolveAtEnd(ledger, observer);
  };

  return {
    clock,
    signal,
    keys,
    plans,
    ledger,
    observer,
    keyStates,
    get metrics() {
      return metrics;
    },
    path,
    restartMetrics() {
      metrics = createMetrics({ clock, startMono: clock.monotonic() });
    },
    send,
    sendSimultaneous,
    loadContext: (hooks) => ({
      clock,
      signal,
      ledger,
      keyStates,
      plans,
      keys,
      baseUrl: o.baseUrl,
      ...(o.network ? { network: o.network } : {}),
      send,
      sendSimultaneous,
      inFlight: () => path.inFlight(),
      // Saturate's exchanges come from autocannon, not the send path: measured here, and told to the run's sinks.
      measure: (ex) => {
        metrics.record(ex);
        if (o.events?.wants('exchange')) o.events.emit(exchangeEvent(ex, clock, startMono));
      },
      dropped(n = 1) {
        metrics.dropped(n);
        hooks.dropped?.(n);
      },
      progress: hooks.progress,
      log: hooks.log,
    }),
    finish,
    async close() {
      finish();
      await path.close();
    },
  };
}
