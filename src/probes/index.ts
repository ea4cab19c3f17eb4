/**
 * The probes by public name (names.ts), in the order a compliance run takes them. A plain object typed by the
 * names: a probe name without a probe does not compile (and the test of this file checks each probe's name).
 */
import { banProbe } from './ban.js';
import { authProbe, createGetProbe, deprecatedProbe, inputProbe, listProbe, unknownIdProbe } from './contract.js';
import type { ProbeName } from './names.js';
import type { Probe } from './probe.js';
import {
  burstProbe,
  enforceProbe,
  keyIsolationProbe,
  quotaDrainProbe,
  restoreProbe,
  retryAfterHonestProbe,
  whatCountsProbe,
} from './ratelimit.js';

export const PROBE_REGISTRY = {
  auth: authProbe,
  input: inputProbe,
  list: listProbe,
  'create-get': createGetProbe,
  'unknown-id': unknownIdProbe,
  deprecated: deprecatedProbe,
  enforce: enforceProbe,
  'retry-after-honest': retryAfterHonestProbe,
  'key-isolation': keyIsolationProbe,
  restore: restoreProbe,
  burst: burstProbe,
  'quota-drain': quotaDrainProbe,
  'what-counts': whatCountsProbe,
  ban: banProbe,
} as const satisfies { readonly [N in ProbeName]: Probe };

const ordered: readonly Probe[] = Object.values(PROBE_REGISTRY);

/** The probes named, in registry order. */
export function probesInOrder(names: readonly ProbeName[]): Probe[] {
  return ordered.filter((p) => names.includes(p.name));
}
