/**
 * The probes by public name (names.ts), in the order a compliance run takes them. A plain object typed by the
 * names: a probe name without a probe does not compile (and the test of this file checks each probe's name).
 *
 * One file per probe. The contract probes (auth, input, list, create-get, unknown-id, deprecated) leave most of their
 * verdicts to the passive checks, which judge every exchange by its request; they judge what needs knowledge of the
 * sequence (what was created, what was counted). The rate-limit probes (enforce, retry-after-honest, restore, burst,
 * key-isolation, quota-drain, what-counts) each start on a fresh window (an unused key, or after the key's window has
 * ended), wait only as long as the target says (Reset, Retry-After), bounded by the window length, and never send on
 * a key while a Retry-After it received is running.
 */
import { authProbe } from './auth.js';
import { banProbe } from './ban.js';
import { burstProbe } from './burst.js';
import { createGetProbe } from './create-get.js';
import { deprecatedProbe } from './deprecated.js';
import { enforceProbe } from './enforce.js';
import { inputProbe } from './input.js';
import { keyIsolationProbe } from './key-isolation.js';
import { listProbe } from './list.js';
import type { ProbeName } from './names.js';
import { planAuditProbe } from './plan-audit.js';
import type { Probe } from './probe.js';
import { quotaDrainProbe } from './quota-drain.js';
import { restoreProbe } from './restore.js';
import { retryAfterHonestProbe } from './retry-after-honest.js';
import { unknownIdProbe } from './unknown-id.js';
import { whatCountsProbe } from './what-counts.js';

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
  'plan-audit': planAuditProbe,
} as const satisfies { readonly [N in ProbeName]: Probe };

const ordered: readonly Probe[] = Object.values(PROBE_REGISTRY);

/** The probes named, in registry order. */
export function probesInOrder(names: readonly ProbeName[]): Probe[] {
  return ordered.filter((p) => names.includes(p.name));
}
