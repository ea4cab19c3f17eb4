import { describe, expect, it } from 'vitest';
import { parseLatencyThresholds } from './compare.js';

describe('--latency-threshold', () => {
  it('reads a rise for every operation, for one, and off', () => {
    expect(parseLatencyThresholds(['p99=20%,5ms', 'getPet:p50=30%,2ms', 'p90=off', 'getPet:max=+100%,+50ms'])).toEqual({
      thresholds: { p99: { relative: 0.2, absoluteMs: 5 }, p90: null },
      operations: { getPet: { p50: { relative: 0.3, absoluteMs: 2 }, max: { relative: 1, absoluteMs: 50 } } },
    });
  });

  it.each(['p95=20%,5ms', 'p99=20%', 'p99>20%,5ms', 'p99=20,5ms', ''])('refuses %j, saying what it expects', (flag) => {
    expect(() => parseLatencyThresholds([flag])).toThrow(
      expect.objectContaining({ code: 'E_USAGE', message: expect.stringMatching(/^--latency-threshold: expected /) }),
    );
  });
});
