/**
 * The figures of the bench by id: apart from figure.ts (what a figure gives back) so that the options, which
 * name the figures, and the figures, which get the options, do not import each other.
 */
export const FIGURE_IDS = [
  'saturate',
  'checked-throughput',
  'live-cost',
  'pacing',
  'low-rate-pacing',
  'latency',
  'reference-server',
  'memory',
  'check-cost',
  'drift',
  'cli-start',
  'long-run',
  'far',
] as const;
export type FigureId = (typeof FIGURE_IDS)[number];
/** Opt-in figures (they take real minutes), run only when asked for by their flag. */
export const REAL_CLOCK_FIGURE = 'real-clock-compliance';
