/**
 * How a probe gets the key it runs on for a plan, its checks skipped when the plan has none: a key that may be sent
 * on now (withKey), a key on a fresh window (withFreshKey), or the key the schedule gave it, as it is (withRoomyKey).
 */
import type { PlanName } from '../api/plans.js';
import type { CheckId } from '../checks/catalogue.js';
import type { ApiKey } from '../core/api-key.js';
import { freshKey, roomyKey, skipAll, type FreshKey, type ProbeContext, usableKey } from './context.js';
import type { Probe } from './probe.js';

/** The headroom probes share one key: the third of the plan's (the first two count exactly). */
export const HEADROOM_SLOT = 2;

/** Runs `body` on a key of the plan that may be sent on now (usableKey). */
export async function withKey(
  ctx: ProbeContext,
  probe: Probe,
  plan: PlanName | null,
  body: (key: ApiKey) => Promise<void>,
): Promise<void> {
  const key = plan === null ? null : await usableKey(ctx, plan);
  if (!key) return skipAll(ctx, probe.checks, plan, `no usable ${plan ?? ''} key`);
  await body(key);
}

/** Runs `body` on a key of the plan on a fresh minute window (freshKey), or on the key `pick` gives. */
export async function withFreshKey(
  ctx: ProbeContext,
  checks: readonly CheckId[],
  plan: PlanName | null,
  body: (fk: FreshKey, plan: PlanName) => Promise<void>,
  pick = freshKey,
): Promise<void> {
  if (plan === null) return;
  const fk = await pick(ctx, plan);
  if (!fk) return skipAll(ctx, checks, plan, `no usable ${plan} key`);
  await body(fk, plan);
}

/** For probes that need room in a window, not a fresh one: the key the schedule gave them, as it is. */
export const withRoomyKey = (
  ctx: ProbeContext,
  checks: readonly CheckId[],
  plan: PlanName | null,
  body: (fk: FreshKey, plan: PlanName) => Promise<void>,
): Promise<void> => withFreshKey(ctx, checks, plan, body, roomyKey);
