/** Plans and their rate limits (docs/interface.md, "Page size and rate limits"). */
export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  perMinute: number;
  perDay: number;
}

/** The published figures. Enterprise is "custom": its figures come from the keys file. */
export const PLANS: Record<Exclude<PlanName, 'enterprise'>, PlanLimits> = {
  free: { perMinute: 60, perDay: 1000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1000, perDay: 100_000 },
};

export const MINUTE_S = 60;
export const DAY_S = 86_400;

/** The window lengths (seconds) a Limit header may describe. */
export type WindowName = 'minute' | 'day';
export const WINDOW_SECONDS: Record<WindowName, number> = { minute: MINUTE_S, day: DAY_S };

/** Figures for a plan, taking enterprise (custom) figures from the key entry. */
export function limitsFor(plan: PlanName, custom?: Partial<PlanLimits>): PlanLimits {
  if (plan === 'enterprise') {
    if (custom?.perMinute === undefined || custom.perDay === undefined) {
      throw new Error('enterprise plan needs perMinute and perDay');
    }
    return { perMinute: custom.perMinute, perDay: custom.perDay };
  }
  return PLANS[plan];
}

/** Which window a Limit header describes, given the plan's figures; null if it matches neither. */
export function windowOfLimit(limit: number, limits: PlanLimits): WindowName | null {
  if (limit === limits.perMinute) return 'minute';
  if (limit === limits.perDay) return 'day';
  return null;
}
