import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleReport } from '../testing/sample-report.js';
import { compareAndWrite } from './compare-files.js';

describe('compareAndWrite', () => {
  it('creates the --out folder and its parents, as run, report, merge and trend do', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'petload-compare-out-')), 'new', 'deeper');
    const { files } = await compareAndWrite(sampleReport(), sampleReport(), {}, out, false);
    for (const f of [files.json, files.markdown, files.html]) expect(existsSync(f), f).toBe(true);
  });

  it('names --out, never --report-dir, when the folder cannot be made', async () => {
    const root = mkdtempSync(join(tmpdir(), 'petload-compare-out-'));
    writeFileSync(join(root, 'file'), 'not a folder');
    await expect(compareAndWrite(sampleReport(), sampleReport(), {}, join(root, 'file', 'x'), false)).rejects.toThrow(
      expect.objectContaining({
        code: 'E_USAGE',
        message: expect.stringContaining('cannot create'),
        hint: expect.not.stringContaining('--report-dir'),
      }),
    );
  });
});
