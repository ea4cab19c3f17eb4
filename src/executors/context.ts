/**
 * What the load executors get from the engine. `send` is the engine's: every exchange it returns has already
 * been judged by the passive checks, recorded by the metrics and noted in the key states.
 */
import type { PlanName } from '../api/plans.js';
import type { Ledger } from '../checks/ledger.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import type { KeyStates } from '../backoff/key-state.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import type { NetworkOptions } from '../http/network.js';

export interface LoadContext {
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly ledger: Ledger;
  readonly keyStates: KeyStates;
  /** The plans judged in this run and their keys (a plan's keys share its traffic). */
  readonly plans: readonly PlanName[];
  readonly keys: readonly ApiKey[];
  /** Target base URL (for executors that bring their own client, such as saturate). */
  readonly baseUrl: string;
  /** How the target is reached (headers, client certificate, proxy), for executors that bring their own client. */
  readonly network?: NetworkOptions;
  send(spec: RequestSpec): Promise<Exchange>;
  /**
   * Send every spec at once over at least `specs.length` connections (a dedicated pool, closed afterwards), for
   * the burst executor; each exchange is judged, measured and noted like those of `send`.
   */
  sendSimultaneous(specs: readonly RequestSpec[]): Promise<Exchange[]>;
  /** Requests in flight on the engine's client now. */
  inFlight(): number;
  /**
   * Measure an exchange that did not go through `send` (saturate brings its own client): the run's metrics
   * take it like any other, so thresholds judge it; it is not judged by the passive checks.
   */
  measure(ex: Exchange): void;
  /** Count sends that could not start on time (in-flight cap reached), like k6's dropped iterations. */
  dropped(n?: number): void;
  /** Progress for the console: called by executors about once a second of real time. */
  /** `waiting`: what the phase waits for once its time is up (its last answers and retries). */
  progress(p: { phase: string; elapsedMs: number; totalMs: number; waiting?: string }): void;
  log(line: string): void;
}
