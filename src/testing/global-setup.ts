/**
 * vitest's global set-up (vitest.config.ts): runs once, in the main process, before any test worker starts. It
 * installs the Debian programs the tests need (src/testing/system-packages.ts), so that no two workers ever run
 * Debian's package manager at once, and a test only checks that its program is there.
 */
import { installSystemPackages } from './system-packages.js';

export default async function setup(): Promise<void> {
  try {
    await installSystemPackages((line) => process.stderr.write(`${line}\n`));
  } catch (e) {
    // One line, and no stack: what is missing and why it could not be installed.
    const err = new Error(`petload test set-up: ${(e as Error).message}`);
    err.stack = err.message;
    throw err;
  }
}
