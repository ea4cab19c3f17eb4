import { describe, expect, it } from 'vitest';
import { BanGuard } from './ban.js';

const T0 = 1_900_000_000_000;

describe('BanGuard', () => {
  it('bans on the violation after the threshold, until the ban ends', () => {
    const g = new BanGuard({ threshold: 2, durationMs: 900_000, graceMs: 0 });
    expect(g.check(T0, 0)).toBe(0);
    g.refused(T0 + 30_000, T0, 0);
    expect(g.check(T0 + 1, 1)).toBe(0);
    expect(g.check(T0 + 2, 2)).toBe(0);
    expect(g.check(T0 + 3, 3)).toBe(T0 + 3 + 900_000);
    expect(g.check(T0 + 100_000, 4)).toBe(T0 + 3 + 900_000);
    expect(g.check(T0 + 3 + 900_000, 5)).toBe(0);
  });

  it('does not count requests within the grace period after the refusal began', () => {
    const g = new BanGuard({ threshold: 0, durationMs: 60_000, graceMs: 100 });
    g.refused(T0 + 30_000, T0, 1000);
    expect(g.check(T0 + 1, 1050)).toBe(0);
    expect(g.check(T0 + 2, 1099)).toBe(0);
    expect(g.check(T0 + 3, 1100)).toBe(T0 + 3 + 60_000);
  });

  it('clears violations once the refusal has ended', () => {
    const g = new BanGuard({ threshold: 1, durationMs: 60_000, graceMs: 0 });
    g.refused(T0 + 10_000, T0, 0);
    expect(g.check(T0 + 1, 1)).toBe(0);
    expect(g.check(T0 + 10_000, 2)).toBe(0);
    g.refused(T0 + 20_000, T0 + 10_000, 3);
    expect(g.check(T0 + 10_001, 4)).toBe(0);
    expect(g.check(T0 + 10_002, 5)).toBe(T0 + 10_002 + 60_000);
  });

  it('never bans a key that waits for the end of every refusal', () => {
    const g = new BanGuard({ threshold: 0, durationMs: 60_000, graceMs: 0 });
    for (let i = 0; i < 50; i++) {
      const t = T0 + i * 10_000;
      expect(g.check(t, i)).toBe(0);
      g.refused(t + 10_000, t, i);
    }
  });
});
