/**
 * The progress reporter of `petload run`. On a terminal, one live line rewritten in place; otherwise (CI
 * logs) a plain line every few seconds, so that a log shows progress without a flood of lines. The engine
 * feeds it numbers (from its metrics) through `update`; it touches nothing but the stream it is given.
 */
import type { ProgressStats } from '../core/progress.js';
import { formatDuration, formatMs } from '../outputs/format.js';

export type { ProgressStats };

/** The part of a writable stream the reporter uses; `isTTY` chooses the live line. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface ProgressReporter {
  update(stats: ProgressStats): void;
  /** Ends the live line (or prints the last numbers not yet printed), so that what follows starts on a new line. */
  done(): void;
}

export interface ProgressOptions {
  /** Real ms between plain lines (default 5000). */
  plainEveryMs?: number;
  /** A monotonic real-time clock in ms (default performance.now). */
  now?: () => number;
}

const PLAIN_EVERY_MS = 5000;

/** One line of progress, without a line ending. */
export function progressLine(s: ProgressStats): string {
  const scale = s.timeScale ?? 1;
  const clock = scale === 1 ? '' : ` (x${scale} clock)`;
  const elapsed =
    s.totalMs > 0 ? `${formatDuration(s.elapsedMs)} of ${formatDuration(s.totalMs)}` : formatDuration(s.elapsedMs);
  const p99 = s.p99Ms === null ? '-' : `${formatMs(s.p99Ms)} ms`;
  // The rate per real second; on a scaled clock, the run clock's beside it (what the scenario's rates are in).
  const rate = `${s.rate.toFixed(1)}/s${scale === 1 ? '' : ` real, ${(s.rate / scale).toFixed(1)}/s run clock`}`;
  const waiting = s.waiting === undefined ? '' : `; waiting for ${s.waiting}`;
  return `${s.phase}: ${elapsed}${clock}, sent ${s.sent}, ${rate}, 2xx ${s.s2xx} / 4xx ${s.s4xx} / 429 ${s.s429}, p99 ${p99}${waiting}`;
}

/**
 * The same numbers in fewer words, for a terminal too narrow for the whole line: the phase by its number, the rates
 * and counts without their words (`phase 1: 1 min 5 s of 3 min 0 s, 1234 sent, 1270.1/s (21.2 run clock), 2xx 1200
 * 4xx 30 429 4, p99 12.3 ms`). The live line is rewritten in place, so it cannot wrap: it sheds words, not figures.
 */
export function compactProgressLine(s: ProgressStats): string {
  const scale = s.timeScale ?? 1;
  const phase = s.phase.replace(/ \(.*\)$/, '');
  const elapsed =
    s.totalMs > 0 ? `${formatDuration(s.elapsedMs)} of ${formatDuration(s.totalMs)}` : formatDuration(s.elapsedMs);
  const rate = `${s.rate.toFixed(1)}/s${scale === 1 ? '' : ` (${(s.rate / scale).toFixed(1)} run clock)`}`;
  const p99 = s.p99Ms === null ? '-' : `${formatMs(s.p99Ms)} ms`;
  const waiting = s.waiting === undefined ? '' : `; waiting for ${s.waiting}`;
  return `${phase}: ${elapsed}, ${s.sent} sent, ${rate}, 2xx ${s.s2xx} 4xx ${s.s4xx} 429 ${s.s429}, p99 ${p99}${waiting}`;
}

export function createProgressReporter(stream: ProgressStream, options: ProgressOptions = {}): ProgressReporter {
  const every = options.plainEveryMs ?? PLAIN_EVERY_MS;
  const now = options.now ?? (() => performance.now());
  if (stream.isTTY === true) {
    let drawn = false;
    return {
      update(stats) {
        // Never wider than the terminal: a wrapped line cannot be rewritten with a carriage return.
        const width = Math.max(20, (stream.columns || 80) - 1);
        const full = progressLine(stats);
        const line = full.length > width ? compactProgressLine(stats) : full;
        stream.write(`\r${line.length > width ? `${line.slice(0, width - 1)}…` : line}\x1b[K`);
        drawn = true;
      },
      done() {
        if (drawn) stream.write('\n');
        drawn = false;
      },
    };
  }
  let lastPrinted = Number.NEGATIVE_INFINITY;
  let unprinted: ProgressStats | null = null;
  return {
    update(stats) {
      const t = now();
      if (t - lastPrinted >= every) {
        stream.write(`${progressLine(stats)}\n`);
        lastPrinted = t;
        unprinted = null;
      } else {
        unprinted = stats;
      }
    },
    done() {
      if (unprinted !== null) stream.write(`${progressLine(unprinted)}\n`);
      unprinted = null;
    },
  };
}
