/**
 * One key's answers for the limiter readers' tests (shape, counters), each sent after the one before completed:
 * steps of [seconds after t0, Remaining, Reset (s), accepted].
 */
import type { RateLimitSample } from '../checks/passive/counters.js';

export type SampleStep = readonly [number, number, number, boolean?];

export function sequentialSamples(steps: readonly SampleStep[], limit: number, t0: number): RateLimitSample[] {
  return steps.map(([at, remaining, reset, accepted = true], i) => ({
    limit,
    remaining,
    reset,
    serverMs: t0 + at * 1000,
    sent: i * 10,
    done: i * 10 + 5,
    accepted,
    overlapped: false,
  }));
}
