/**
 * backoff.no-ban, judged per plan at the end of each load phase that ran through the backoff policy:
 * 1. no key of the plan was suspected banned;
 * 2. no key had more requests accepted in one minute window than the plan's per-minute figure;
 * 3. throughput stayed near the limit when the offered traffic exceeded it. Chosen bound: at least 80 % of
 *    what the limit lets through of the offered traffic (the integral of min(offered rate, limit) over the
 *    phase), less one window's worth, because the first window may have been partly spent before the phase
 *    began and the last one is cut short. Not judged when the offered traffic never exceeded the limit, or
 *    when a key's day quota ran out (then the day figure, not the minute one, caps the throughput).
 */
import { MINUTE_MS, type PlanName } from '../api/plans.js';
import type { Ledger } from '../checks/ledger.js';
import type { ApiKey } from '../core/api-key.js';
import type { Exchange } from '../http/exchange.js';
import type { SuspectedBan } from './policy.js';
import type { AcceptedWindows } from './windows.js';

const THROUGHPUT_SHARE = 0.8;
const ID = 'backoff.no-ban';

/** What the offered traffic asked of the limit: the requests it would have had accepted under a perfect policy. */
export type Offered =
  | {
      readonly exceededLimit: true /** Integral of min(offered rate, limit) over the phase, in requests. */;
      readonly withinLimit: number;
    }
  | { readonly exceededLimit: false };

export interface PlanPhaseRecord {
  readonly plan: PlanName;
  readonly keys: readonly ApiKey[];
  readonly windows: AcceptedWindows;
  readonly bans: readonly SuspectedBan[];
  accepted: number;
  refused: number;
  heldBack: number;
  /** A refusal showed a key's day quota spent. */
  dayQuotaSpent: boolean;
}

/** Requests per ms the plan's keys accept together under their minute figures. */
export function planLimitPerMs(keys: readonly ApiKey[]): number {
  return keys.reduce((sum, k) => sum + k.limits.perMinute, 0) / MINUTE_MS;
}

/** The least accepted count that shows throughput near the limit (see the file comment). */
export function throughputFloor(withinLimit: number, keys: readonly ApiKey[]): number {
  return Math.max(0, THROUGHPUT_SHARE * (withinLimit - planLimitPerMs(keys) * MINUTE_MS));
}

/** Judge one plan for one phase; `phase` names the phase in evidence and info (e.g. "phase 2 constant-rate"). */
export function judgeNoBan(ledger: Ledger, rec: PlanPhaseRecord, offered: Offered, phase: string): void {
  let failed = false;
  const fail = (message: string, ex?: Exchange) => {
    failed = true;
    ledger.fail(ID, rec.plan, `${phase}: ${message}`, ex);
  };
  for (const ban of rec.bans) {
    fail(
      `key ${ban.key.label} suspected banned: still refused (${ban.refusal.status}) after the Retry-After and Reset of its first refusal had passed`,
      ban.refusal,
    );
  }
  const w = rec.windows;
  for (const e of w.excesses) {
    fail(`key ${e.key} had ${e.accepted} requests accepted in ${e.window}, above the limit of ${e.limit}`, e.ex);
  }
  // Windows beyond the evidence kept still count as failures.
  for (let i = w.excesses.length; i < w.excessCount; i++) fail('another window accepted more than the limit');

  let throughput: string;
  if (!offered.exceededLimit) {
    throughput = 'not judged: the offered traffic never exceeded the limit';
  } else if (rec.dayQuotaSpent) {
    throughput = "not judged: a key's day quota ran out, so the day figure capped the throughput";
  } else {
    const floor = throughputFloor(offered.withinLimit, rec.keys);
    throughput = `${rec.accepted} accepted, at least ${Math.ceil(floor)} expected (80% of the ${Math.round(offered.withinLimit)} the limit lets through, less one window)`;
    if (rec.accepted < floor) fail(`throughput fell below the limit: ${throughput}`);
  }
  if (!failed) ledger.pass(ID, rec.plan);
  ledger.info(ID, rec.plan, phase, {
    accepted: rec.accepted,
    refused: rec.refused,
    heldBack: rec.heldBack,
    maxAcceptedInAMinuteWindow: w.windowsKnown
      ? w.maxAccepted
      : 'not measurable: Reset moved with the requests (not a fixed window), so windows cannot be told apart',
    suspectedBans: rec.bans.map((b) => b.key.label),
    throughput,
  });
}
