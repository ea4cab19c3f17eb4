import { describe, expect, it } from 'vitest';
import { waitingFirst, waits } from './sequencer.js';

describe('the test files that wait start first', () => {
  it('tells the files that wait from the unit tests', () => {
    for (const f of [
      '/repo/src/probes/plan-audit.int.test.ts',
      '/repo/src/outputs/html.browser.test.ts',
      '/repo/test/conformance/nginx-limit-req.test.ts',
      '/repo/bench/bench.smoke.test.ts',
      'C:\\repo\\test\\conformance\\redis-cluster.test.ts',
    ])
      expect(waits(f), f).toBe(true);
    for (const f of [
      '/repo/src/outputs/json.test.ts',
      '/repo/src/checks/observer.property.test.ts',
      '/repo/src/int.ts',
    ])
      expect(waits(f), f).toBe(false);
  });

  it("keeps vitest's order within each group", () => {
    const order = ['/r/src/a.test.ts', '/r/src/b.int.test.ts', '/r/src/c.test.ts', '/r/test/conformance/d.test.ts'];
    expect(waitingFirst(order, (f) => f)).toEqual([
      '/r/src/b.int.test.ts',
      '/r/test/conformance/d.test.ts',
      '/r/src/a.test.ts',
      '/r/src/c.test.ts',
    ]);
  });
});
