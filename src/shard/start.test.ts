import { describe, expect, it } from 'vitest';
import { waitUntil } from './start.js';

describe('waitUntil (--start-at)', () => {
  it('does not return before the instant', async () => {
    const at = Date.now() + 120;
    const r = await waitUntil(at, undefined);
    expect(Date.now()).toBeGreaterThanOrEqual(at);
    expect(r.lateMs).toBeGreaterThanOrEqual(0);
  });

  it('begins at once when the instant has passed, and says how late', async () => {
    let calls = 0;
    const r = await waitUntil(1_000, undefined, () => {
      calls++;
      return 4_500;
    });
    expect(r.lateMs).toBe(3_500);
    expect(calls).toBe(2);
  });

  it('stops waiting when the run is interrupted', async () => {
    const controller = new AbortController();
    const waiting = waitUntil(Date.now() + 3_600_000, controller.signal);
    controller.abort();
    const r = await waiting;
    expect(r.lateMs).toBe(0);
  });
});
