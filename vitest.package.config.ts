import { defineConfig } from 'vitest/config';
import { PACKAGE_TEST } from './vitest.config.js';

/**
 * `npm test`'s last step: the packaging test alone (npm pack, npm install of the tarball, runs of
 * the installed CLI and library). It takes both cores for a while, so it never runs beside the timing-sensitive tests.
 */
export default defineConfig({
  test: {
    include: [PACKAGE_TEST],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 420_000,
  },
});
