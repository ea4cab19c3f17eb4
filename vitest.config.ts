import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    // Most integration tests wait on a scaled clock or a loopback server, not the CPU: three files at a time
    // keep a 2-core machine busy without starving the timing-sensitive ones.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
