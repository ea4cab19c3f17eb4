/**
 * The embedded reference Animal Store server: `createReferenceServer(options)` listens (port 0 by default)
 * and resolves with its base URL, keys and clock. Bare node:http with a hand-written router: the server is
 * benchmarked against a bare node:http server serving the same bytes, so no framework sits in the hot path.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import * as z from 'zod';
import { PLANS, layerFigures, limitsFor, type PlanFigures } from '../api/plans.js';
import { keyLabel, type ApiKey } from '../core/api-key.js';
import { formatIssues } from '../core/zod-issues.js';
import { createClock, type Clock } from '../core/clock.js';
import { PetloadError } from '../core/errors.js';
import { ReferenceApp } from './app.js';
import { FAULT_NAMES, type FaultName } from './faults.js';
import { MINUTE_LIMITERS, WINDOW_REPORTS } from './limiter.js';

export { FAULTS, FAULT_NAMES, type FaultName } from './faults.js';
export { MINUTE_LIMITERS, type MinuteLimiter, WINDOW_REPORTS, type WindowReport } from './limiter.js';

const ReferenceServerOptions = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(0),
  /** Default: one generated key per plan free, pro and business. */
  keys: z
    .array(
      z.custom<ApiKey>(
        (k) => typeof (k as ApiKey | null)?.secret === 'string' && (k as ApiKey).secret.length > 0,
        'an ApiKey',
      ),
    )
    .optional(),
  /** The server clock; default createClock(timeScale). */
  clock: z.custom<Clock>((c) => typeof (c as Clock | null)?.now === 'function', 'a Clock').optional(),
  timeScale: z.number().positive().finite().default(1),
  faults: z.array(z.enum(FAULT_NAMES as [FaultName, ...FaultName[]])).default([]),
  /** Which window the rate-limit headers describe. */
  windowReport: z.enum(WINDOW_REPORTS).default('tightest'),
  /** How the minute figure is kept: a fixed window from the subject's first request, or a sliding log. */
  minuteLimiter: z.enum(MINUTE_LIMITERS).default('fixed-window'),
  /**
   * Instances answering in turn over the one limiter (a fleet over a shared, atomic counter): their clocks a second
   * apart for Date and Reset, their answers completing in a shuffled order. Compliant.
   */
  instances: z.number().int().min(1).max(8).default(1),
  /** Whether 400/404/405/413 answers to a valid key consume its quota. */
  countErrors: z.boolean().default(false),
  /** Requests tolerated during a running Retry-After before a ban (see ban.ts). */
  banThreshold: z.number().int().min(0).default(10),
  /** Ban length in seconds of server time. */
  banSeconds: z.number().positive().finite().default(900),
  /** Real ms after a refusal during which requests count as already in flight (see ban.ts). */
  banGraceMs: z.number().min(0).finite().default(250),
  /** Delay added by the `slow` fault, real ms. */
  slowMs: z.number().int().min(0).default(200),
  /** Seeds the animals and the `flaky` fault's choices. */
  seed: z.number().int().default(1),
});
export type ReferenceServerOptions = z.input<typeof ReferenceServerOptions>;

export interface ReferenceServer {
  /** Base address, e.g. `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  readonly port: number;
  readonly keys: readonly ApiKey[];
  readonly clock: Clock;
  /** What the server holds now: animals, and client addresses with rate-limit state. */
  stats(): { pets: number; addresses: number };
  /** Stops listening and destroys every connection, keep-alive ones included. */
  close(): Promise<void>;
}

/**
 * One fresh key per published plan; they are valid only on the server they were made for. Their figures are
 * the published ones, or those of `figures` (a plans file) where it gives them.
 */
export function generateKeys(figures?: PlanFigures): ApiKey[] {
  return (['free', 'pro', 'business'] as const).map((plan) => {
    const secret = `pl_test_${randomBytes(18).toString('base64url')}`;
    const limits = figures === undefined ? PLANS[plan] : limitsFor(plan, undefined, layerFigures(PLANS, figures));
    return Object.freeze({ secret, plan, limits, label: keyLabel(secret, `${plan}#1`), sacrificial: false });
  });
}

export async function createReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const parsed = ReferenceServerOptions.safeParse(options);
  if (!parsed.success) {
    const lines = formatIssues(parsed.error, options, (path) => path.includes('keys'), ReferenceServerOptions);
    throw new PetloadError('E_USAGE', `invalid reference server options\n  ${lines.join('\n  ')}`);
  }
  const o = parsed.data;
  const keys = Object.freeze(o.keys ?? generateKeys());
  const clock = o.clock ?? createClock(o.timeScale);
  const app = new ReferenceApp({
    keys,
    clock,
    faults: new Set(o.faults),
    windowReport: o.windowReport,
    minuteLimiter: o.minuteLimiter,
    instances: o.instances,
    countErrors: o.countErrors,
    ban: { threshold: o.banThreshold, durationMs: o.banSeconds * 1000, graceMs: o.banGraceMs },
    slowMs: o.slowMs,
    seed: o.seed,
  });

  const server = createServer(app.handle);
  server.on('clientError', app.clientError);
  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      reject(new PetloadError('E_USAGE', `cannot listen on ${o.host}:${o.port} (${e.code ?? e.message})`));
    };
    server.once('error', onError);
    // A deep accept queue: a burst of Limit+K simultaneous connections must not wait for SYN retries.
    server.listen({ port: o.port, host: o.host, backlog: 4096 }, () => {
      server.removeListener('error', onError);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : o.port;

  // Idle per-address state expires on the server clock; sweep about once a server minute, at most once a second.
  const sweepEvery = Math.min(60_000, Math.max(1_000, 60_000 / clock.scale));
  const sweeper = setInterval(() => app.sweep(), sweepEvery);
  sweeper.unref();

  let closing: Promise<void> | undefined;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}/v1`,
    port,
    keys,
    clock,
    stats: () => app.stats(),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(sweeper);
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
