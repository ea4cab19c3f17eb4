import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './src/testing/longest-first.js';

/** The packaging test packs and installs the whole package: it runs on its own, after the rest (vitest.package.config.ts). */
export const PACKAGE_TEST = 'src/package.int.test.ts';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [PACKAGE_TEST, '**/node_modules/**'],
    // Installs the Debian programs the tests run (a browser, Redis, nginx) once, before any worker starts.
    globalSetup: ['src/testing/global-setup.ts'],
    pool: 'forks',
    // The files that wait longest start first (src/testing/longest-first.ts); inside them, tests that wait on a
    // clock run side by side (describe.concurrent).
    sequence: { sequencer: LongestFirstSequencer },
    // Most integration tests wait on a clock or a loopback server, not the CPU (a whole run keeps a 2-core machine
    // about 60 % busy): four files at a time, and the timing-sensitive ones are still fed.
    maxWorkers: 4,
    // Tests of a file that run side by side (describe.concurrent): at most three at a time.
    maxConcurrency: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
