/** The probe registry, keyed by public name, in the order a compliance run takes them. */
import { banProbe } from './ban.js';
import { contractProbes } from './contract.js';
import type { ProbeName } from './names.js';
import type { Probe } from './probe.js';
import { rateLimitProbes } from './ratelimit.js';

const ordered: Probe[] = [...contractProbes, ...rateLimitProbes, banProbe];

export const PROBE_REGISTRY: Readonly<Record<ProbeName, Probe>> = Object.freeze(
  Object.fromEntries(ordered.map((p) => [p.name, p])) as Record<ProbeName, Probe>,
);

/** The probes named, in registry order. */
export function probesInOrder(names: readonly ProbeName[]): Probe[] {
  return ordered.filter((p) => names.includes(p.name));
}
