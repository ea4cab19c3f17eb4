/**
 * What the target did to a probe's requests, as the check that owns it (docs/attribution.md, "A probe ended
 * early"): a probe's bounds (probe-bounds.ts) end it on refusals, server errors or silences, and a skip caused by the
 * target points at a failure. Each failing answer is read here once:
 *
 * - no answer (a timeout, a reset): `contract.transport`;
 * - a 5xx: `contract.no-server-errors`;
 * - a 429 to a request sent once the wait the key's previous 429 promised had passed, with fewer other answers on the
 *   key since that 429 than its Limit (petload's own requests cannot have spent the new window), and by a window of the
 *   same Limit: a broken promise, `retry-after.honest` when the request came after Retry-After, else
 *   `ratelimit.quota-restored` when it came after the refused window had ended (Reset); the probe's own check of the
 *   two first, when it has one. Any other 429 ("refused") owns nothing by itself: the wait was not promised (no
 *   usable Retry-After: the checks of `NO_PROMISE` own that), or petload's own requests explain it.
 */
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import { type Refusal, retryAfterMs, TOLERANCE_MS } from '../backoff/key-state.js';
import type { CheckId } from '../checks/catalogue.js';
import type { ApiKey } from '../core/api-key.js';
import type { Exchange } from '../http/exchange.js';
import { rateLimitOf } from '../http/parsed.js';
import { refusedBy, refusedWindowEnd } from '../probes/refusal.js';
import { afterWait } from '../probes/waited-out.js';

/** The checks that own what ends a probe early. */
export type FaultOwner =
  | 'contract.transport'
  | 'contract.no-server-errors'
  | 'retry-after.honest'
  | 'ratelimit.quota-restored';

/** A behaviour of the target that a check owns, seen in the answer to one of a probe's requests. */
export interface Fault {
  readonly owner: FaultOwner;
  /** The plan of the request's key (null without a valid key). */
  readonly plan: PlanName | null;
  /** The evidence's message: what the target did, and that it ended the probe. */
  readonly message: string;
  readonly ex: Exchange;
}

/** A failing answer: a fault a check owns, or a refusal that broke no promise petload can show. */
export type Seen = Fault | 'refused';

/** The checks whose failure says a 429 gave no wait to keep: a refusal that broke no kept wait may be theirs. */
export const NO_PROMISE: readonly CheckId[] = ['retry-after.present', 'retry-after.syntax', 'retry-after.plausible'];

/** The key a 429 was sent on, and what its key state holds of it (null: another 429 of the key came after it). */
export type RefusalLookup = (ex: Exchange) => { key: ApiKey; refusal: Refusal } | null;

const PROMISE_OWNERS: readonly FaultOwner[] = ['retry-after.honest', 'ratelimit.quota-restored'];

/** The owner of a refusal after the wait `promised` gave, or null when no promise was broken (see the module). */
function brokenPromise(
  key: ApiKey,
  r: Refusal & { before: Exchange },
  probeChecks: readonly CheckId[],
): { owner: FaultOwner; lead: string } | null {
  const { ex: again, before: promised, answeredBetween } = r;
  if (again.timing.sent < promised.timing.done) return null;
  const announced = rateLimitOf(promised).limit;
  const limit = announced.ok ? Math.min(announced.value, key.limits.perMinute) : key.limits.perMinute;
  if (answeredBetween >= limit || refusedBy(promised, again) === 'other') return null;
  const ra = retryAfterMs(promised);
  const raKept = ra !== null && ra <= MINUTE_MS + TOLERANCE_MS && again.timing.sent - promised.timing.done >= ra;
  const sentAt = again.localTime - (again.timing.done - again.timing.sent);
  const windowEnded = sentAt >= refusedWindowEnd(key, promised);
  const kept = PROMISE_OWNERS.filter((o) => (o === 'retry-after.honest' ? raKept : windowEnded));
  const owner = kept.find((o) => probeChecks.includes(o)) ?? kept[0];
  if (owner === undefined) return null;
  const waited = owner === 'retry-after.honest' ? 'Retry-After' : 'Retry-After and Reset';
  const others = answeredBetween === 1 ? '1 other answer' : `${answeredBetween} other answers`;
  return {
    owner,
    lead: `refused again (429) after ${waited} had passed, ${others} on the key since (its Limit: ${limit})`,
  };
}

/** What a failing answer to a probe's request is (a 429 only for probes whose purpose is not to be refused). */
export function seenOf(ex: Exchange, probe: string, refusalOf: RefusalLookup, probeChecks: readonly CheckId[]): Seen {
  const ended = `; met by the ${probe} probe, which ended early`;
  if (ex.status === null)
    return {
      owner: 'contract.transport',
      plan: ex.plan,
      ex,
      message: `no whole HTTP response (${ex.error?.kind ?? 'none'})${ended}`,
    };
  if (ex.status >= 500)
    return { owner: 'contract.no-server-errors', plan: ex.plan, ex, message: `server error ${ex.status}${ended}` };
  const found = refusalOf(ex);
  const before = found?.refusal.before ?? null;
  if (found === null || found.refusal.ex !== ex || before === null) return 'refused';
  const broken = brokenPromise(found.key, { ...found.refusal, before }, probeChecks);
  if (broken === null) return 'refused';
  return { owner: broken.owner, plan: ex.plan, ex, message: afterWait(`${broken.lead}${ended}`, before, ex) };
}
