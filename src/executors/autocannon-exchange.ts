/**
 * An autocannon answer (or failure) as an Exchange, so that saturate's traffic reaches the run's metrics like
 * every other executor's: the operation and headers come from the request's onResponse hook, the time from
 * autocannon's own measurement (write to last byte, real ms), placed on the run clock ending now. Bodies are
 * not kept: these exchanges are measured, not judged by the passive checks.
 */
import type { OperationId } from '../api/operations.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import type { Exchange, HeaderMap, TransportError } from '../http/exchange.js';

export interface Answered {
  readonly operation: OperationId;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: HeaderMap;
}

/**
 * Lower-cased header names by name as sent, for one saturate run: a target sends the same few names on every
 * answer, and lower-casing each of them on each answer was half of what noting an answer cost. Bounded: past
 * MAX_NAMES distinct names, further ones are lower-cased every time.
 */
export class HeaderNames {
  private readonly lower = new Map<string, string>();

  of(name: string): string {
    let l = this.lower.get(name);
    if (l === undefined) {
      l = name.toLowerCase();
      if (this.lower.size < MAX_NAMES) this.lower.set(name, l);
    }
    return l;
  }
}

const MAX_NAMES = 256;

/** autocannon hands response headers over with their names as sent: the Exchange wants them lower-cased. */
export function lowerCaseHeaders(
  raw: Record<string, unknown> | undefined,
  names: HeaderNames = new HeaderNames(),
): HeaderMap {
  const out: HeaderMap = {};
  if (raw === undefined) return out;
  for (const name in raw) {
    const value = raw[name];
    const lower = names.of(name);
    const prev = out[lower];
    if (prev === undefined && !Array.isArray(value)) {
      out[lower] = String(value);
      continue;
    }
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    const all = prev === undefined ? values : [...(Array.isArray(prev) ? prev : [prev]), ...values];
    out[lower] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

interface Common {
  readonly clock: Clock;
  readonly key: ApiKey;
  /** Real milliseconds from the request's write to its end (answer or failure). */
  readonly realMs: number;
}

/**
 * Built as one literal, field by field, in the same order for every exchange (one hidden class, no spread): this
 * runs once per answer at saturating rates.
 */
function exchange(c: Common, a: Answered | null, error: TransportError | null): Exchange {
  const done = c.clock.monotonic();
  const sent = done - Math.max(0, c.realMs) * c.clock.scale;
  return {
    // Outside the engine's client: no place in its send order.
    seq: -1,
    operation: a === null ? null : a.operation,
    method: a === null ? 'GET' : a.method,
    path: a === null ? '' : a.path,
    auth: 'valid',
    keyLabel: c.key.label,
    plan: c.key.plan,
    requestBody: null,
    status: a === null ? null : a.status,
    headers: a === null ? {} : a.headers,
    body: NO_BODY,
    error,
    // Every connection of a saturate phase uses the same key at once.
    overlapped: true,
    tag: 'saturate',
    timing: { intended: sent, sent, headers: a === null ? null : done, done },
    localTime: c.clock.now(),
  };
}

const NO_BODY: Exchange['body'] = Object.freeze({ kind: 'none' });

export function answeredExchange(c: Common, a: Answered): Exchange {
  return exchange(c, a, null);
}

/** A request autocannon gave up on: timed out, or its connection failed (which request it was is not known). */
export function failedExchange(c: Common, error: TransportError): Exchange {
  return exchange(c, null, error);
}
