import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fullJitter } from './jitter.js';

describe('fullJitter', () => {
  it('stays within [0, min(cap, base * 2^attempt)) for any attempt and any draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, base, capExtra, draw) => {
          const cap = base + capExtra;
          const j = fullJitter(attempt, base, cap, () => draw);
          expect(j).toBeGreaterThanOrEqual(0);
          expect(j).toBeLessThan(Math.min(cap, base * 2 ** attempt));
        },
      ),
    );
  });

  it('spans the whole interval: 0 at the lowest draw, the ceiling at the highest', () => {
    expect(fullJitter(3, 500, 30_000, () => 0)).toBe(0);
    expect(fullJitter(0, 500, 30_000, () => 0.999_999)).toBeCloseTo(500, 2);
    expect(fullJitter(3, 500, 30_000, () => 0.999_999)).toBeCloseTo(4000, 1);
    // 500 * 2^6 = 32 s is over the cap.
    expect(fullJitter(6, 500, 30_000, () => 0.999_999)).toBeCloseTo(30_000, 0);
    expect(fullJitter(10_000, 500, 30_000, () => 0.5)).toBe(15_000);
  });
});
