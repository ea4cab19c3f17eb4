/**
 * The engine's send path, in one place: the HTTP client, then for every exchange the observer (every passive
 * check), the metrics and the key states. Runs, the load tests and the bench all send through it.
 * A request petload cancelled itself (held back unsent because its key waits out a Retry-After, or abandoned at
 * the drain deadline after an interrupt) is not the target's doing: nothing to judge or measure.
 */
import type { Observer } from '../checks/observer.js';
import { createHttpClient } from '../http/client.js';
import type { Exchange, HttpClient, RequestSpec } from '../http/exchange.js';
import type { Metrics } from '../metrics/recorder.js';
import type { Clock } from '../core/clock.js';
import type { KeyStates } from '../backoff/key-state.js';
import type { RunEvents } from '../core/run-events.js';
import { rateLimitOf } from '../http/parsed.js';
import type { NetworkOptions } from '../http/network.js';

export interface SendPathOptions {
  baseUrl: string;
  clock: Clock;
  keyStates: KeyStates;
  observer: Observer;
  /** Read at each exchange, so that a caller may swap the metrics (the bench restarts them after a warm-up). */
  metrics: () => Metrics;
  /** Pool size: as many connections as requests may be in flight. */
  connections: number;
  /** Real ms, whole exchange. */
  timeoutMs: number;
  /** The error to throw instead of sending, once the run has stopped; null while it runs. */
  stopped?: () => Error | null;
  /** When it aborts, every request still in flight or queued is abandoned (the drain deadline after an interrupt). */
  requestSignal?: AbortSignal;
  /** The run's events: an `exchange` event per recorded exchange, when anyone listens. */
  events?: RunEvents;
  /** Called with every recorded exchange, as it is (tests and the bench read them; a sink listens to `events`). */
  onExchange?: (ex: Exchange) => void;
  /** How the target is reached (proxy, CA, client certificate, HTTP/2, headers). */
  network?: NetworkOptions;
}

/** The exchange event of an exchange: labels and numbers only (src/core/run-events.ts). */
export function exchangeEvent(ex: Exchange, clock: Clock, startMono: number) {
  const remaining = ex.status === null ? null : rateLimitOf(ex).remaining;
  return {
    type: 'exchange' as const,
    key: ex.keyLabel,
    plan: ex.plan,
    operation: ex.operation,
    status: ex.status,
    latencyMs: (ex.timing.done - ex.timing.intended) / clock.scale,
    serviceMs: (ex.timing.done - ex.timing.sent) / clock.scale,
    remaining: remaining?.ok ? remaining.value : null,
    at: ex.timing.sent - startMono,
  };
}

export interface SendPath {
  send(spec: RequestSpec): Promise<Exchange>;
  /** Many requests at once over as many connections (a dedicated pool). */
  sendSimultaneous(specs: readonly RequestSpec[]): Promise<Exchange[]>;
  inFlight(): number;
  readonly client: HttpClient;
  close(): Promise<void>;
}

export function createSendPath(o: SendPathOptions): SendPath {
  const { clock, keyStates, observer } = o;
  const holdBack = (label: string) => keyStates.blockedOn(label, clock);
  const onExchange = o.onExchange ?? null;
  const events = o.events ?? null;
  const startMono = clock.monotonic();
  const record = (spec: RequestSpec, ex: Exchange) => {
    if (ex.error?.kind === 'aborted') return;
    observer.observe(ex);
    o.metrics().record(ex);
    if (spec.auth.kind === 'key') keyStates.noteResponse(spec.auth.key, ex);
    if (events?.wants('exchange')) events.emit(exchangeEvent(ex, clock, startMono));
    onExchange?.(ex);
  };
  // The client records each exchange as it settles, in completion order, before its send resolves.
  const client = createHttpClient({
    baseUrl: o.baseUrl,
    clock,
    connections: o.connections,
    timeoutMs: o.timeoutMs,
    holdBack,
    onSettled: record,
    ...(o.network ? { network: o.network } : {}),
  });
  const extra = o.requestSignal;
  // One listener for the run, not one per request: the client abandons what it has in flight when it fires.
  extra?.addEventListener('abort', () => client.abortAll(), { once: true });
  /** After the deadline, a request goes out with the aborted signal: the client settles it unsent. */
  const late = (spec: RequestSpec): RequestSpec => (extra?.aborted === true ? { ...spec, signal: extra } : spec);

  const stoppedError = () => o.stopped?.() ?? null;
  const noteSent = (spec: RequestSpec) => {
    if (spec.auth.kind === 'key') keyStates.noteSent(spec.auth.key, clock.now());
  };

  return {
    client,
    send(spec) {
      const stopped = stoppedError();
      if (stopped !== null) return Promise.reject(stopped);
      noteSent(spec);
      return client.send(late(spec));
    },
    async sendSimultaneous(specs) {
      const stopped = stoppedError();
      if (stopped !== null) throw stopped;
      // Each exchange recorded as it settles, as on the main client: a 429 that comes back while later requests of
      // the burst are still being written holds them back (unsent), so that no request goes out inside its
      // Retry-After (on a limiter that refuses early in a burst, a bucket not quite full, that takes a while).
      const burst = createHttpClient({
        baseUrl: o.baseUrl,
        clock,
        connections: specs.length,
        timeoutMs: o.timeoutMs,
        holdBack,
        onSettled: record,
        ...(o.network ? { network: o.network } : {}),
      });
      const abandon = () => burst.abortAll();
      extra?.addEventListener('abort', abandon, { once: true });
      try {
        specs.forEach(noteSent);
        return await Promise.all(specs.map((s) => burst.send(late(s))));
      } finally {
        extra?.removeEventListener('abort', abandon);
        await burst.close();
      }
    },
    inFlight: () => client.inFlight(),
    close: () => client.close(),
  };
}
