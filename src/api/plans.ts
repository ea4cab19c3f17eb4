/** Plans and their rate limits (docs/interface.md, "Page size and rate limits"). */
export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  perMinute: number;
  perDay: number;
  /**
   * Over-admission accepted of a limiter documented as approximate, as a fraction of the figure (0.05 for
   * `tolerance: 5%`); absent: none.
   */
  tolerance?: number;
}

/** The most requests a window of `figure` may accept under the declared tolerance (the figure without one). */
export function allowedWithTolerance(figure: number, limits: Pick<PlanLimits, 'tolerance'>): number {
  return Math.floor(figure * (1 + (limits.tolerance ?? 0)) + 1e-9);
}

/** The published figures. Enterprise is "custom": its figures come from the keys file or a plans file. */
export const PLANS: Record<Exclude<PlanName, 'enterprise'>, PlanLimits> = {
  free: { perMinute: 60, perDay: 1000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1000, perDay: 100_000 },
};

/**
 * Figures given for a run, plan by plan, either figure or both: a plans file (--plans-file), a scenario's
 * `planLimits`, a keys file entry's own. A figure not given keeps the one beneath it.
 */
export type PlanFigures = Readonly<Partial<Record<PlanName, Readonly<Partial<PlanLimits>>>>>;

/** The published figures as PlanFigures (enterprise has none). */
export const PUBLISHED_FIGURES: PlanFigures = PLANS;

/** Layers of figures, later ones winning figure by figure (published first, then scenario, then plans file). */
export function layerFigures(...layers: readonly (PlanFigures | undefined)[]): PlanFigures {
  const out: Partial<Record<PlanName, Partial<PlanLimits>>> = {};
  for (const layer of layers) {
    for (const plan of PLAN_NAMES) {
      const f = layer?.[plan];
      if (f === undefined) continue;
      out[plan] = {
        ...out[plan],
        ...(f.perMinute !== undefined ? { perMinute: f.perMinute } : {}),
        ...(f.perDay !== undefined ? { perDay: f.perDay } : {}),
        ...(f.tolerance !== undefined ? { tolerance: f.tolerance } : {}),
      };
    }
  }
  return out;
}

/** A plan's figures as `60/min, 1000/day`. */
export function describeLimits(l: PlanLimits): string {
  return `${l.perMinute}/min, ${l.perDay}/day`;
}

/**
 * The plans' two windows, a minute and a day: the one place their lengths are written, in seconds (as Reset and
 * Retry-After count them) and in ms (as the run clock does). Everything else imports them from here.
 */
export const MINUTE_S = 60;
export const DAY_S = 86_400;
export const MINUTE_MS = MINUTE_S * 1000;
export const DAY_MS = DAY_S * 1000;

/** The window lengths (seconds) a Limit header may describe. */
export type WindowName = 'minute' | 'day';
export const WINDOW_SECONDS: Record<WindowName, number> = { minute: MINUTE_S, day: DAY_S };

/**
 * A key's figures: its own (`custom`, e.g. a keys file entry's), else its plan's in `table` (the published
 * figures unless a run changed them). Throws when a figure is given by neither (enterprise has no published one).
 */
export function limitsFor(
  plan: PlanName,
  custom?: Partial<PlanLimits>,
  table: PlanFigures = PUBLISHED_FIGURES,
): PlanLimits {
  const perMinute = custom?.perMinute ?? table[plan]?.perMinute;
  const perDay = custom?.perDay ?? table[plan]?.perDay;
  if (perMinute === undefined || perDay === undefined) {
    const missing = [perMinute === undefined ? 'perMinute' : null, perDay === undefined ? 'perDay' : null]
      .filter((x) => x !== null)
      .join(' and ');
    throw new Error(
      `the ${plan} plan needs ${missing}: ${plan === 'enterprise' ? 'enterprise has no published figures' : 'not given'}`,
    );
  }
  const tolerance = custom?.tolerance ?? table[plan]?.tolerance;
  return tolerance === undefined ? { perMinute, perDay } : { perMinute, perDay, tolerance };
}

/** Which window a Limit header describes, given the plan's figures; null if it matches neither. */
export function windowOfLimit(limit: number, limits: PlanLimits): WindowName | null {
  if (limit === limits.perMinute) return 'minute';
  if (limit === limits.perDay) return 'day';
  return null;
}
