/**
 * vitest's global set-up (vitest.config.ts): runs in the main process, before any test worker starts.
 * - It installs the Debian programs the tests need (src/testing/system-packages.ts), so that no two workers ever run
 *   Debian's package manager at once, and a test only checks that its program is there.
 * - It bundles the CLI from its TypeScript sources (test-cli.ts), as `npm run build` bundles the compiled code, so
 *   that every CLI run of a test (src/testing/cli.ts) starts as a user's does, without a TypeScript loader.
 */
import type { TestProject } from 'vitest/node';
import { installSystemPackages } from './system-packages.js';
import { bundleTestCli } from './test-cli.js';

export default async function setup(project: TestProject): Promise<() => void> {
  try {
    await installSystemPackages((line) => process.stderr.write(`${line}\n`));
    const cli = await bundleTestCli();
    project.provide('petloadCli', cli.entry);
    return cli.remove;
  } catch (e) {
    // One line, and no stack: what is missing and why it could not be installed.
    const err = new Error(`petload test set-up: ${(e as Error).message}`);
    err.stack = err.message;
    throw err;
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The CLI bundled from the sources for this run (test-cli.ts). */
    petloadCli: string;
  }
}
