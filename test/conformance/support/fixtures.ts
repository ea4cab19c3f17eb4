/**
 * Test-only: what every corpus file's describe block sets up. A temporary folder, removed once the block is done;
 * a folder of its own in it for each keys file pair; and the processes a test starts, stopped (last started
 * first) after that test. Call it in the describe block: it registers the block's afterEach and afterAll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { writeKeysFiles, type KeysFiles, type Started } from './processes.js';

export interface CorpusFixtures {
  /** Keys files for `plans`, `perPlan` keys each, in a folder of their own (see writeKeysFiles). */
  keysFiles(plans: readonly string[], perPlan: number): KeysFiles;
  /** Waits for a process being started and stops it after the test. */
  started<T extends Started>(starting: Promise<T>): Promise<T>;
}

export function corpusFixtures(name: string): CorpusFixtures {
  const dir = mkdtempSync(join(tmpdir(), `corpus-${name}-`));
  const running: Started[] = [];
  afterEach(async () => {
    for (const p of running.splice(0).reverse()) await p.stop();
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    keysFiles: (plans, perPlan) => writeKeysFiles(mkdtempSync(join(dir, 'keys-')), plans, perPlan),
    async started(starting) {
      const p = await starting;
      running.push(p);
      return p;
    },
  };
}
