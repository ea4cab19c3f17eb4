/**
 * The Exchange: one request and what came back, as the checks see it. Produced by the HTTP client
 * (src/http/client.ts), consumed by checks and metrics. It never holds an API key: only the key's label.
 */
import type { OperationId } from '../api/operations.js';
import type { PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { DeepReadonly } from '../core/readonly.js';
import type { HeaderMap } from './header-map.js';
import type { ResponseMemo } from './parsed.js';

export { type HeaderMap, headerValue, headerValues, onlyValue } from './header-map.js';

export type ParsedBody =
  | { kind: 'none' }
  /**
   * `value` comes from a lossless parse: integers beyond 2^53 are bigints. The client hands one decoded value
   * to every exchange whose body repeats byte for byte (client.ts): nothing may change it (tests freeze it).
   */
  | { kind: 'json'; value: DeepReadonly<unknown>; excerpt: string }
  | { kind: 'text'; excerpt: string }
  | { kind: 'unparseable'; error: string; excerpt: string }
  /** Reading stopped at the body cap. */
  | { kind: 'too-large'; bytesRead: number; excerpt: string };

export type TransportErrorKind = 'timeout' | 'reset' | 'refused' | 'truncated' | 'protocol' | 'aborted' | 'other';

export interface TransportError {
  kind: TransportErrorKind;
  message: string;
  /**
   * Set when petload cancelled the request before writing any of it (kind `aborted`): `held-back` when its key
   * was waiting out a Retry-After, `cancelled` when the run stopped. Absent for a request abandoned on its way.
   */
  unsent?: 'held-back' | 'cancelled';
}

/**
 * Why a request is sent, where that changes how petload treats it. `knock`: a probe's deliberate request on a key
 * whose Retry-After (or ban) is running, sent to see what the target does about it (the opt-in ban probe). The
 * client's hold-back lets a knock out, and backoff.respects-retry-after does not count it as a violation.
 * Absent: an ordinary request, held back and judged like any other.
 */
export const REQUEST_INTENTS = ['knock'] as const;
export type RequestIntent = (typeof REQUEST_INTENTS)[number];

/**
 * The traffic an exchange belongs to: a load phase's (named by its label, `phase 1 (constant-rate)`) or a probe's
 * (named by the probe, `burst`). The metrics keep the two apart: the load's latency is the service's, the probes'
 * is what their deliberate bursts and refusals cost (docs/reports.md, "Traffic classes").
 */
export const TRAFFIC_CLASSES = ['load', 'probes'] as const;
export type TrafficClass = (typeof TRAFFIC_CLASSES)[number];
export interface TrafficSource {
  readonly class: TrafficClass;
  readonly name: string;
}

/** How a request authenticated: with a key of the keys file, with nothing, or with a deliberately bad credential. */
export type AuthKind = 'valid' | 'none' | 'invalid';

export interface Exchange {
  /** Run-wide sequence number, in send order. */
  readonly seq: number;
  readonly operation: OperationId | null;
  readonly method: string;
  /** Path and query relative to the base URL, e.g. `/pets?limit=5`. */
  readonly path: string;
  readonly auth: AuthKind;
  /** The key's label and plan when auth is 'valid'; a description of the credential otherwise. */
  readonly keyLabel: string | null;
  readonly plan: PlanName | null;
  /** Excerpt of the request body sent, if any (never contains a key). */
  readonly requestBody: string | null;
  /** Null when no response arrived (see `error`). */
  readonly status: number | null;
  readonly headers: HeaderMap;
  readonly body: ParsedBody;
  readonly error: TransportError | null;
  /** Monotonic times on the run clock (ms): intended send, actual send, headers received, body done. */
  readonly timing: { intended: number; sent: number; headers: number | null; done: number };
  /** Wall time on the run clock (epoch ms) when the response was complete. */
  readonly localTime: number;
  /** True when another request on the same key was in flight at any time during this one. */
  overlapped: boolean;
  /** Who sent it: a probe name or an executor name. A label for people; nothing decides by it. */
  readonly tag: string;
  /** The request's intent, copied from its RequestSpec (undefined: an ordinary request). */
  readonly intent?: RequestIntent | undefined;
  /** Whose traffic it is, copied from its RequestSpec (undefined: the load's, as an unnamed sender's). */
  readonly traffic?: TrafficSource | undefined;
  /**
   * What has been parsed from the response, filled on first read (src/http/parsed.ts: rateLimitOf, dateOf).
   * Absent on an exchange built by hand: each read then parses afresh.
   */
  readonly parsed?: ResponseMemo;
}

export interface RequestSpec {
  operation: OperationId | null;
  method: string;
  /** Path and query relative to the base URL. */
  path: string;
  /** A key of the keys file, or a deliberate credential for auth probes. */
  auth: { kind: 'key'; key: ApiKey } | { kind: 'none' } | { kind: 'raw'; header: string; label: string };
  /** Raw request body text (sent with content-type application/json unless contentType says otherwise). */
  body?: string;
  contentType?: string;
  /** Intended send time (monotonic ms on the run clock); defaults to now. */
  intended?: number;
  tag: string;
  /** `knock`: deliberately sent inside a running Retry-After (see RequestIntent); absent for ordinary requests. */
  intent?: RequestIntent;
  /** Whose traffic it is: a load phase or a probe, by name (the engine sets it; absent counts as load). */
  traffic?: TrafficSource;
  signal?: AbortSignal;
}

export interface HttpClient {
  /** Never throws for anything the target does: transport failures become `exchange.error`. */
  send(spec: RequestSpec): Promise<Exchange>;
  /** Number of requests in flight now. */
  inFlight(): number;
  /** Resolves once no request is in flight. */
  idle(): Promise<void>;
  /** Abandon every request in flight or queued, as if each one's signal had aborted. */
  abortAll(): void;
  /** The protocols its connections spoke so far, in the order first seen ('HTTP/1.1', 'HTTP/2'). */
  protocols(): readonly ('HTTP/1.1' | 'HTTP/2')[];
  close(): Promise<void>;
}
