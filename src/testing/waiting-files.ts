/**
 * The test files whose length is waiting, not work (vitest.config.ts, project `waits`): each waits real minutes (the
 * conformance corpus's third-party limiters, which keep real time; an unscaled day; a target's clock; interrupts)
 * or long windows of a slow scaled clock, and uses the CPU for a few seconds of it. They run six at a time beside
 * the other files (projects `work` and `units`, four at a time), so that the run lasts about as long as its waits or
 * its work, whichever is longer, not the two in turn (scripts/test.js runs the projects side by side).
 */
export const WAITING_FILES: readonly string[] = [
  'test/conformance/haproxy-late-quota.test.ts',
  'test/conformance/sliding-log.test.ts',
  'test/conformance/algorithms.test.ts',
  'test/conformance/nest-throttler.test.ts',
  'test/conformance/express-ietf.test.ts',
  'test/conformance/fastify-rate-limit.test.ts',
  'test/conformance/redis-cluster.test.ts',
  'test/conformance/nginx-limit-req.test.ts',
  'src/probes/plan-audit.int.test.ts',
  'src/robustness/skewed-clock.int.test.ts',
  'src/probes/wait-out.int.test.ts',
  'src/robustness/hostile-time.int.test.ts',
  'src/robustness/interrupt.int.test.ts',
];
