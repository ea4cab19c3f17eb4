/**
 * `petload run --live [PORT]` and `--metrics-port PORT [--metrics-host HOST]`: the live page and the OpenMetrics
 * endpoint, sinks of each run's event stream (src/live/). They start before the first run sends, so that a port in
 * use fails the command before any traffic, follow every scenario of the command in turn, and stop after the last
 * (the metrics endpoint after `--metrics-linger` seconds, so that Prometheus scrapes the final figures).
 */
import type { RunEvents } from '../core/run-events.js';
import { PetloadError } from '../core/errors.js';

/** The sinks' flags, parsed (./run-flags.ts): ports (0: a free one), the metrics' address, the linger in seconds. */
export interface SinkFlags {
  readonly live: number | undefined;
  readonly metricsPort: number | undefined;
  readonly metricsHost: string | undefined;
  readonly lingerS: number;
}

export interface RunSinks {
  /** Subscribes a run's events to the sinks (undefined: no sink). */
  readonly subscribe: ((events: RunEvents) => void) | undefined;
  close(): Promise<void>;
}

const DEFAULT_LINGER_S = 10;

/** A port flag: an integer 0..65535 (0 or nothing: a free port). */
export function parsePortFlag(flag: string, value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65_535)
    throw new PetloadError('E_USAGE', `${flag}: expected a port number 0..65535, found ${JSON.stringify(value)}`);
  return n;
}

/** --metrics-linger: seconds, 0..600. */
export function parseLingerFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LINGER_S;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n > 600)
    throw new PetloadError('E_USAGE', `--metrics-linger: expected seconds 0..600, found ${JSON.stringify(value)}`);
  return n;
}

/** Starts what the flags ask for; `say` prints where each listens. */
export async function startRunSinks(flags: SinkFlags, say: (line: string) => void): Promise<RunSinks> {
  const { live: livePort, metricsPort, metricsHost } = flags;
  if (livePort === undefined && metricsPort === undefined) return { subscribe: undefined, close: async () => {} };
  const [{ createRunEvents }, live] = await Promise.all([import('../core/run-events.js'), import('../live/index.js')]);
  const relay = createRunEvents();
  const page = livePort !== undefined ? await live.startLivePage(relay, { port: livePort }) : null;
  const metrics =
    metricsPort !== undefined
      ? await live.startMetrics(relay, {
          port: metricsPort,
          ...(metricsHost !== undefined ? { host: metricsHost } : {}),
        })
      : null;
  if (page) say(`petload: live page ${page.url}`);
  if (metrics) say(`petload: metrics ${metrics.url}`);
  const linger = flags.lingerS;
  return {
    subscribe: (events) => {
      live.relayEvents(events, relay);
    },
    close: async () => {
      if (metrics && linger > 0) {
        say(`petload: the metrics endpoint stays up ${linger} s for a last scrape (--metrics-linger)`);
        await new Promise((resolve) => setTimeout(resolve, linger * 1000));
      }
      await Promise.all([page?.close(), metrics?.close()]);
    },
  };
}
