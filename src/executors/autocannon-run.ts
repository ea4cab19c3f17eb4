/**
 * One autocannon run, with its memory bounded and its failures turned into tool errors.
 *
 * autocannon 9 keeps the whole body of every answer as a string (its pipelined-requests queue appends each chunk,
 * whatever the options), so an endless or huge body grows until V8 refuses the string (`RangeError: Invalid string
 * length`, thrown from a socket's data handler: an uncaught exception). saturate judges no body, so each client's
 * queue is given a body keeper that keeps nothing: it counts an answer's body bytes, and the first answer past the
 * cap (the read cap of petload's own client) stops the run, with the reason, instead of reading on.
 *
 * Whatever else goes wrong inside autocannon (its options refused, an exception in one of its handlers while it
 * runs) rejects with E_INTERNAL, which the engine reports like any internal error: the run ends with its report
 * written and exit 4, never a crash.
 */
import type autocannon from 'autocannon';
import { PetloadError } from '../core/errors.js';

/** Body bytes one answer may have before saturate stops reading: the engine client's read cap (1 MiB). */
export const BODY_CAP_BYTES = 1024 * 1024;

export interface Listeners {
  /** An answer, with autocannon's time for it (real ms). */
  response(responseTimeMs: number): void;
  /** A request given up on: a timeout or a connection error. */
  error(err: unknown): void;
}

export interface AutocannonRun {
  readonly result: autocannon.Result;
  /** Why the run stopped before its duration (an answer's body over the cap), or null. */
  readonly stopped: string | null;
}

/** The part of autocannon's pipelined-requests queue the body keeper replaces (lib/pipelinedRequestsQueue.js). */
interface BodyQueue {
  peek(): { bodyBytes?: number } | undefined;
  addBody(data: Buffer | string): void;
}

interface GuardedClient {
  pipelinedRequests?: BodyQueue;
  destroy(): void;
}

const toolError = (what: string, err: unknown) =>
  new PetloadError('E_INTERNAL', `autocannon failed${what}: ${err instanceof Error ? err.message : String(err)}`, {
    cause: err,
  });

/**
 * Replace the client's body accumulation by a byte count; `over` is called once an answer's body passes the cap.
 * Throws (inside autocannon's constructor call, so the run rejects) when the queue is not where autocannon 9 keeps
 * it: a later autocannon must not silently keep bodies again.
 */
function keepNoBody(client: GuardedClient, capBytes: number, over: (bytes: number) => void): void {
  const queue = client.pipelinedRequests;
  if (typeof queue?.addBody !== 'function' || typeof queue.peek !== 'function')
    throw new Error('its client keeps bodies where petload cannot bound them (pipelinedRequests.addBody)');
  queue.addBody = (data) => {
    const entry = queue.peek();
    if (entry === undefined) return;
    entry.bodyBytes = (entry.bodyBytes ?? 0) + data.length;
    if (entry.bodyBytes > capBytes) over(entry.bodyBytes);
  };
}

/** Run autocannon with `options` until its duration, the signal, or an answer over the body cap. */
export async function runAutocannon(
  options: autocannon.Options,
  signal: AbortSignal,
  on: Listeners,
  capBytes = BODY_CAP_BYTES,
): Promise<AutocannonRun> {
  const { default: autocannon } = await import('autocannon');
  return new Promise((resolve, reject) => {
    let instance: autocannon.Instance | undefined;
    let stopped: string | null = null;
    let settled = false;
    const clients: GuardedClient[] = [];
    const stop = () => instance?.stop();
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', stop);
      process.removeListener('uncaughtException', crashed);
      fn();
    };
    // An exception thrown in one of autocannon's socket or timer handlers reaches no caller: while it runs, it is
    // this run's failure (a tool error with the report written), not the process's end.
    const crashed = (err: unknown) => {
      stop();
      // Its connections end now, not at its next sample tick: nothing of it outlives the phase.
      for (const c of clients) {
        try {
          c.destroy();
        } catch {
          // Already broken: nothing more to end.
        }
      }
      finish(() => reject(toolError(' while it ran', err)));
    };
    const setupClient = (client: unknown) => {
      clients.push(client as GuardedClient);
      keepNoBody(client as GuardedClient, capBytes, (bytes) => {
        stopped ??= `an answer's body passed ${bytes} bytes, over the ${capBytes}-byte read cap (an endless or huge body): saturate stopped reading it and ended the phase`;
        (client as GuardedClient).destroy();
        stop();
      });
    };
    signal.addEventListener('abort', stop, { once: true });
    process.on('uncaughtException', crashed);
    try {
      // autocannon calls back synchronously when it rejects its options.
      instance = autocannon({ ...options, setupClient }, (err: unknown, result: autocannon.Result) =>
        finish(() => (err ? reject(toolError('', err)) : resolve({ result, stopped }))),
      );
    } catch (e) {
      finish(() => reject(toolError('', e)));
      return;
    }
    instance?.on('response', (_client, _status, _bytes, responseTime) => {
      if (!settled) on.response(responseTime);
    });
    instance?.on('reqError', (err) => {
      if (!settled) on.error(err);
    });
  });
}
