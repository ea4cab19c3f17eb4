/**
 * Where a run sends its traffic: an external base URL with keys from a keys file or the environment, or the
 * embedded reference server on a loopback port, started for the run with keys made for it and a scaled clock.
 */
import { randomBytes } from 'node:crypto';
import { layerFigures, limitsFor, PUBLISHED_FIGURES, type PlanFigures, type PlanName } from '../api/plans.js';
import { keyLabel, type ApiKey } from '../core/api-key.js';
import { parseTargetUrl } from '../http/target-url.js';
import type { FaultName } from '../reference-server/faults.js';
import { createReferenceServer } from '../reference-server/index.js';
import type { MinuteLimiter, WindowReport } from '../reference-server/limiter.js';
import { createClock, realClock, type Clock } from '../core/clock.js';

export interface EmbeddedOptions {
  timeScale: number;
  faults: readonly FaultName[];
  windowReport: WindowReport;
  /** How the server keeps the minute figure (default: a fixed window from a key's first request). */
  minuteLimiter?: MinuteLimiter;
  /** Instances answering in turn over the server's one limiter, their clocks a second apart (default 1). */
  instances?: number;
  countErrors: boolean;
  plans: readonly PlanName[];
  keysPerPlan: number;
  sacrificial: boolean;
  /** Mark the made keys for the plan audit. */
  audit?: boolean;
  /** The run's changes to the plans' figures (scenario planLimits, plans file), over the published ones. */
  figures?: PlanFigures;
  /** Keys to serve (from a keys file, figures resolved) instead of keys made for the run. */
  keys?: readonly ApiKey[];
  /** The server's ban rule (src/reference-server/ban.ts); absent fields keep its defaults (10 knocks, 900 s). */
  ban?: { threshold?: number; seconds?: number };
}

export interface Target {
  url: string;
  embedded: boolean;
  clock: Clock;
  keys: readonly ApiKey[];
  faults: readonly FaultName[];
  variant?: Record<string, string>;
  close(): Promise<void>;
}

/** Figures for the embedded server's enterprise keys (custom by definition), unless the run gives others. */
export const EMBEDDED_ENTERPRISE = { perMinute: 2000, perDay: 200_000 };

/** The figures the embedded server's made keys get: published, enterprise's default, then the run's. */
export function embeddedFigures(run?: PlanFigures): PlanFigures {
  return layerFigures(PUBLISHED_FIGURES, { enterprise: EMBEDDED_ENTERPRISE }, run);
}

export function makeKeys(
  plans: readonly PlanName[],
  perPlan: number,
  sacrificial: boolean,
  figures: PlanFigures,
  audit = false,
): ApiKey[] {
  const keys: ApiKey[] = [];
  for (const plan of plans) {
    const limits = Object.freeze(limitsFor(plan, undefined, figures));
    for (let i = 1; i <= perPlan; i++) {
      const secret = `pl_${plan}_${randomBytes(12).toString('hex')}`;
      keys.push(
        Object.freeze({
          secret,
          plan,
          limits,
          label: keyLabel(secret, `${plan}#${i}`),
          sacrificial,
          ...(audit ? { audit } : {}),
        }),
      );
    }
  }
  return keys;
}

export async function startEmbeddedTarget(o: EmbeddedOptions): Promise<Target> {
  const clock = createClock(o.timeScale);
  const keys = o.keys
    ? [...o.keys]
    : makeKeys(o.plans, o.keysPerPlan, o.sacrificial, embeddedFigures(o.figures), o.audit);
  const server = await createReferenceServer({
    host: '127.0.0.1',
    port: 0,
    keys,
    clock,
    faults: [...o.faults],
    windowReport: o.windowReport,
    countErrors: o.countErrors,
    ...(o.minuteLimiter ? { minuteLimiter: o.minuteLimiter } : {}),
    ...(o.instances ? { instances: o.instances } : {}),
    ...(o.ban?.threshold !== undefined ? { banThreshold: o.ban.threshold } : {}),
    ...(o.ban?.seconds !== undefined ? { banSeconds: o.ban.seconds } : {}),
  });
  const variant: Record<string, string> = { windowReport: o.windowReport, countErrors: o.countErrors ? 'yes' : 'no' };
  if (o.minuteLimiter !== undefined) variant.minuteLimiter = o.minuteLimiter;
  if (o.instances !== undefined) variant.instances = String(o.instances);
  if (o.ban?.threshold !== undefined) variant.banThreshold = String(o.ban.threshold);
  if (o.ban?.seconds !== undefined) variant.banSeconds = String(o.ban.seconds);
  return {
    url: server.url,
    embedded: true,
    clock,
    keys,
    faults: o.faults,
    variant,
    close: () => server.close(),
  };
}

/** An external target at `url`, judged on `clock` (the real clock, unless it is a reference server on a scaled one). */
export function externalTarget(url: string, keys: readonly ApiKey[], clock: Clock = realClock): Target {
  const parsed = parseTargetUrl(url);
  return { url: parsed.href.replace(/\/$/, ''), embedded: false, clock, keys, faults: [], close: async () => {} };
}

export { isLoopback, parseTargetUrl } from '../http/target-url.js';
