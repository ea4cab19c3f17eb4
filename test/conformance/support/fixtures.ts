/**
 * Test-only: what every corpus file's describe block sets up. A temporary folder, removed once the block is done;
 * a folder of its own in it for each keys file pair; and the processes its tests start, stopped (last started
 * first) once the block is done: the tests of a block may run side by side (`describe.concurrent`), each waiting on
 * real minutes while the others do, so none stops what another still uses. Call it in the describe block: it
 * registers the block's afterAll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { writeKeysFiles, type KeysFiles, type Started } from './processes.js';

export interface CorpusFixtures {
  /** Keys files for `plans`, `perPlan` keys each, in a folder of their own (see writeKeysFiles). */
  keysFiles(plans: readonly string[], perPlan: number): KeysFiles;
  /** Waits for a process being started and stops it once the block is done. */
  started<T extends Started>(starting: Promise<T>): Promise<T>;
}

export function corpusFixtures(name: string): CorpusFixtures {
  const dir = mkdtempSync(join(tmpdir(), `corpus-${name}-`));
  const running: Started[] = [];
  afterAll(async () => {
    for (const p of running.splice(0).reverse()) await p.stop();
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
