import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './src/testing/longest-first.js';

/** The packaging test packs and installs the whole package: it runs on its own, after the rest (vitest.package.config.ts). */
export const PACKAGE_TEST = 'src/package.int.test.ts';

/** Tests that start servers, processes or a browser, or wait on a clock: each file in a process of its own. */
const INTEGRATION = ['**/*.int.test.ts', '**/*.browser.test.ts', 'bench/bench.smoke.test.ts', 'test/**/*.test.ts'];

/** What the two projects share: they run side by side, in one pool (one `maxWorkers`, one `groupOrder`). */
const shared = {
  // Installs the Debian programs the tests run (a browser, Redis, nginx) once, before any worker starts.
  globalSetup: ['src/testing/global-setup.ts'],
  pool: 'forks' as const,
  // Most files wait on a clock or a loopback server, not the CPU (the files of real minutes use it for seconds of
  // each minute): six files at a time keep a 2-core machine busy without starving the ones that judge timing.
  maxWorkers: 6,
  // Tests of a file that run side by side (describe.concurrent): at most three at a time.
  maxConcurrency: 3,
  testTimeout: 30_000,
  hookTimeout: 30_000,
  sequence: { groupOrder: 0 },
};

/**
 * Two projects. `integration`: each file in a fresh process. `units`: the unit tests, which keep no state between
 * files, share their workers' modules (`isolate: false`: half the CPU and time of a fresh process per file).
 */
export default defineConfig({
  test: {
    // The files that wait longest start first (src/testing/longest-first.ts); inside them, tests that wait on a
    // clock run side by side (describe.concurrent).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          ...shared,
          name: 'integration',
          include: INTEGRATION,
          exclude: [PACKAGE_TEST, '**/node_modules/**'],
        },
      },
      {
        test: {
          ...shared,
          name: 'units',
          include: ['src/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: [...INTEGRATION, '**/node_modules/**'],
          isolate: false,
        },
      },
    ],
  },
});
