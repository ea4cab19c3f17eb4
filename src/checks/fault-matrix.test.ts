import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../reference-server/faults.js';
import { CHECK_IDS } from './catalogue.js';
import { FAULT_MATRIX } from './fault-matrix.js';

describe('fault matrix table', () => {
  it('names every fault of the reference server, and only catalogue checks', () => {
    expect(Object.keys(FAULT_MATRIX).sort()).toEqual([...FAULT_NAMES].sort());
    for (const ids of Object.values(FAULT_MATRIX)) for (const id of ids) expect(CHECK_IDS).toContain(id);
  });

  it('is covered by the fault-matrix tests: every fault but slow is run by one of the three parts', async () => {
    const { readFileSync } = await import('node:fs');
    const parts = [1, 2, 3]
      .map((i) => readFileSync(new URL(`../engine/fault-matrix-${i}.int.test.ts`, import.meta.url), 'utf8'))
      .join('\n');
    const run = FAULT_NAMES.filter((f) => parts.includes(`'${f}'`));
    expect(run.sort()).toEqual(FAULT_NAMES.filter((f) => f !== 'slow').sort());
  });
});
