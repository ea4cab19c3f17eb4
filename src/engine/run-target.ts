/**
 * What a run is pointed at (RunOptions.target): the embedded reference server, started for the run with its own
 * settings, or an external target at a URL with its own. A discriminated union, so that a setting of one kind
 * given to the other does not type-check. The flat form of earlier versions (`target: url`, `faults`,
 * `targetClock`… beside the scenario) is read here too, for one version (deprecated: docs/api.md).
 */
import type { PlanFigures } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import type { FaultName } from '../reference-server/faults.js';
import type { MinuteLimiter, WindowReport } from '../reference-server/limiter.js';
import type { RunNetwork } from './network.js';
import { isLoopback } from '../http/target-url.js';

/** The embedded reference server, started on a loopback port for the run and closed after it. */
export interface EmbeddedTarget {
  readonly kind: 'embedded';
  /** How many times faster than real time its clock runs (default: the scenario's, else 60). */
  readonly timeScale?: number;
  readonly faults?: readonly FaultName[];
  /** Which window its headers describe (default: the tightest). */
  readonly windowReport?: WindowReport;
  /** How it keeps the minute figure (a fixed window, or a sliding log). */
  readonly minuteLimiter?: MinuteLimiter;
  /** Instances answering in turn over its one limiter, clocks a second apart. */
  readonly instances?: number;
  /** Whether 400/404 answers consume quota (default: no). */
  readonly countErrors?: boolean;
  /** Its ban rule (violations tolerated in one Retry-After, ban length in server seconds). */
  readonly ban?: { threshold?: number; seconds?: number };
  /**
   * Changes to whole plans' figures (a plans file), over the scenario's planLimits and the published figures: the
   * keys it makes get them. Keys given in `keys` keep theirs.
   */
  readonly planFigures?: PlanFigures;
  /** Keys to serve instead of the ones it would make (figures final: keys-file.ts resolveKeys). */
  readonly keys?: readonly ApiKey[];
  /** Extra headers of every request (absent: the scenario's, from process.env). */
  readonly headers?: RunNetwork['headers'];
}

/** An API at a base URL (ending in /v1), with keys from a keys file or the environment. */
export interface ExternalTarget {
  readonly kind: 'external';
  readonly url: string;
  /** Its keys (from the keys file or the environment); their figures are final (keys-file.ts resolveKeys). */
  readonly keys?: readonly ApiKey[];
  /**
   * The clock it runs on (default: the real clock). A reference server started on a scaled clock
   * (createReferenceServer({ clock })) is judged on that same clock.
   */
  readonly clock?: Clock;
  /**
   * Treat a loopback target as remote: announce the run and guard the keys' daily quota. A testing aid (the CLI
   * sets it from PETLOAD_TREAT_AS_REMOTE=1), since tests may not send traffic off the machine.
   */
  readonly treatAsRemote?: boolean;
  /** Run even when the estimate exceeds a key's remaining daily quota. */
  readonly allowQuotaExhaustion?: boolean;
  /** How it is reached (src/engine/network.ts): proxy, CA, client certificate, HTTP/2, extra headers. */
  readonly network?: RunNetwork;
}

export type RunTarget = EmbeddedTarget | ExternalTarget;

/**
 * A target treated as remote (the run announced before anything is sent, each key's daily quota guarded): an
 * external one off this machine, or marked so (`treatAsRemote`). The one place the rule is written.
 */
export const isRemote = (
  t: Pick<EmbeddedTarget, 'kind'> | Pick<ExternalTarget, 'kind' | 'url' | 'treatAsRemote'>,
): boolean => t.kind === 'external' && (t.treatAsRemote === true || !isLoopback(t.url));

/** The embedded server's settings in the flat form (deprecated). */
type FlatEmbedded = Omit<EmbeddedTarget, 'kind' | 'headers'> & {
  target?: undefined;
  network?: Pick<RunNetwork, 'headers'>;
};

/** An external target's settings in the flat form (deprecated). */
interface FlatExternal {
  target: string;
  keys?: readonly ApiKey[];
  targetClock?: Clock;
  treatAsRemote?: boolean;
  allowQuotaExhaustion?: boolean;
  network?: RunNetwork;
}

type FlatKey = Exclude<keyof FlatEmbedded | keyof FlatExternal, 'target'>;

/** Each kind's flat settings, and none of the other kind's. */
type Only<T> = T & { [K in Exclude<FlatKey, keyof T>]?: never };

/**
 * The target's settings beside the run's, as before RunTarget: `target` a URL (an external target) or absent
 * (the embedded server). Deprecated: give `target: { kind, ... }`; read for one version.
 */
export type FlatTarget = Only<FlatEmbedded> | Only<FlatExternal>;

/** The new form has none of the flat form's settings. */
export type NoFlatTarget = { [K in FlatKey]?: never };

/** The target of run options in either form. */
export function targetOf(
  o: { target?: RunTarget | string } & Partial<Omit<FlatEmbedded, 'target' | 'network'> & Omit<FlatExternal, 'target'>>,
): RunTarget {
  if (typeof o.target === 'object') return o.target;
  const f = o;
  const keys = f.keys ? { keys: f.keys } : {};
  if (typeof o.target === 'string') {
    return {
      kind: 'external',
      url: o.target,
      ...keys,
      ...(f.targetClock ? { clock: f.targetClock } : {}),
      ...(f.treatAsRemote !== undefined ? { treatAsRemote: f.treatAsRemote } : {}),
      ...(f.allowQuotaExhaustion !== undefined ? { allowQuotaExhaustion: f.allowQuotaExhaustion } : {}),
      ...(f.network ? { network: f.network } : {}),
    };
  }
  return {
    kind: 'embedded',
    ...(f.timeScale !== undefined ? { timeScale: f.timeScale } : {}),
    ...(f.faults ? { faults: f.faults } : {}),
    ...(f.windowReport ? { windowReport: f.windowReport } : {}),
    ...(f.minuteLimiter ? { minuteLimiter: f.minuteLimiter } : {}),
    ...(f.instances !== undefined ? { instances: f.instances } : {}),
    ...(f.countErrors !== undefined ? { countErrors: f.countErrors } : {}),
    ...(f.ban ? { ban: f.ban } : {}),
    ...(f.planFigures ? { planFigures: f.planFigures } : {}),
    ...keys,
    ...(f.network?.headers ? { headers: f.network.headers } : {}),
  };
}
