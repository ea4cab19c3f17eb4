/**
 * What a benchmark figure gives back: rows of the table (each a measured value, the peer it is held
 * against, the ratio or error that the goal judges) and the raw measurements behind them for the JSON
 * report. A goal judges the score when there is one, otherwise the measured value.
 */
import type { FigureId, REAL_CLOCK_FIGURE } from './figure-ids.js';
import type { Pinning } from './lib/processes.js';
import type { BenchOptions } from './options.js';

export { FIGURE_IDS, type FigureId, REAL_CLOCK_FIGURE } from './figure-ids.js';

export interface Quantity {
  value: number;
  unit: string;
  /** What was measured, e.g. "autocannon CLI, 10 connections". */
  what: string;
}

export type Goal =
  /** The judged value must be at least `value`. */
  | { kind: 'at-least'; value: number }
  /** The judged value must be under `value`. */
  | { kind: 'under'; value: number }
  /** The judged value must be at most `value` (e.g. a ratio within 3x: `value` 3, `unit` 'x'). */
  | { kind: 'at-most'; value: number; unit: string }
  /** The judged value's magnitude must be at most `value`. */
  | { kind: 'within'; value: number; unit: string }
  /** Reported, not judged. */
  | { kind: 'report' };

export interface Row {
  figure: string;
  measured: Quantity;
  peer: Quantity | null;
  /** A ratio (measured / peer) or an error (measured − expected), judged by the goal. */
  score: { kind: 'ratio' | 'error'; value: number; unit: string } | null;
  goal: Goal;
  /** Null for a goal that only reports. */
  pass: boolean | null;
}

export interface FigureResult {
  id: FigureId | typeof REAL_CLOCK_FIGURE;
  rows: Row[];
  /** Every measurement behind the rows (each round's samples included). */
  details: Record<string, unknown>;
}

/** What every figure runs with. */
export interface BenchEnv {
  readonly options: BenchOptions;
  readonly pin: Pinning;
  /** The bench key's secret, for the children (never printed). */
  readonly secret: string;
  log(line: string): void;
}

export function judge(goal: Goal, value: number): boolean | null {
  if (!Number.isFinite(value)) return goal.kind === 'report' ? null : false;
  switch (goal.kind) {
    case 'at-least':
      return value >= goal.value;
    case 'under':
      return value < goal.value;
    case 'at-most':
      return value <= goal.value;
    case 'within':
      return Math.abs(value) <= goal.value;
    case 'report':
      return null;
  }
}

/** A row with its verdict worked out from the goal. */
export function row(r: Omit<Row, 'pass'>): Row {
  return { ...r, pass: judge(r.goal, r.score?.value ?? r.measured.value) };
}
