import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './src/testing/longest-first.js';
import { WAITING_FILES } from './src/testing/waiting-files.js';

/** The packaging test packs and installs the whole package: it runs on its own (vitest.package.config.ts). */
export const PACKAGE_TEST = 'src/package.int.test.ts';

/** Tests that start servers, processes or a browser: each file in a process of its own. */
const INTEGRATION = ['**/*.int.test.ts', '**/*.browser.test.ts', 'bench/bench.smoke.test.ts', 'test/**/*.test.ts'];

/** What the projects share. */
const shared = {
  // Installs the Debian programs the tests run (a browser, Redis, nginx) once, before any worker starts.
  globalSetup: ['src/testing/global-setup.ts'],
  pool: 'forks' as const,
  // Tests of a file that run side by side (describe.concurrent): at most three at a time.
  maxConcurrency: 3,
  testTimeout: 30_000,
  hookTimeout: 30_000,
};

/**
 * Three projects. `waits`: the files that wait real minutes and use the CPU for seconds
 * (src/testing/waiting-files.ts), six at a time, so that their start-up (stores, CLI runs) does not take both cores
 * at once. `work`: the other integration tests, and `units`: the unit tests, four files at a time between them (the
 * same pool: same `maxWorkers` and `groupOrder`); the unit tests share their workers' modules (`isolate: false`:
 * half the CPU of a fresh process per file; they keep no state between files). `npm test` (scripts/test.js) runs
 * `waits` and the other two in two vitest processes side by side; `npx vitest run` runs `waits`, then the others.
 */
export default defineConfig({
  test: {
    // The files that wait longest start first (src/testing/longest-first.ts); inside them, tests that wait on a
    // clock run side by side (describe.concurrent).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: { ...shared, name: 'waits', include: [...WAITING_FILES], maxWorkers: 6, sequence: { groupOrder: 0 } },
      },
      {
        test: {
          ...shared,
          name: 'work',
          include: INTEGRATION,
          exclude: [PACKAGE_TEST, ...WAITING_FILES, '**/node_modules/**'],
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: 'units',
          include: ['src/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: [...INTEGRATION, '**/node_modules/**'],
          isolate: false,
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
