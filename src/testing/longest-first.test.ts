import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONGEST_FIRST, longestFirst } from './longest-first.js';

describe('the test files start longest wait first', () => {
  it('ranks by the first prefix that names a file, keeping the given order among equals and after them', () => {
    const files = [
      'src/a.test.ts',
      'test/conformance/sliding-log.test.ts',
      'test/conformance/nginx-limit-req.test.ts',
      'src/b.test.ts',
      'src/probes/plan-audit.int.test.ts',
      'test/conformance/fleets.test.ts',
    ];
    expect(longestFirst(files, (f) => f, {})).toEqual([
      'src/probes/plan-audit.int.test.ts',
      'test/conformance/nginx-limit-req.test.ts',
      'test/conformance/sliding-log.test.ts',
      'test/conformance/fleets.test.ts',
      'src/a.test.ts',
      'src/b.test.ts',
    ]);
  });

  it('starts the files no prefix names by their recorded seconds, longest first, unrecorded ones last', () => {
    const files = ['src/a.test.ts', 'src/b.test.ts', 'src/c.test.ts', 'src/probes/plan-audit.int.test.ts'];
    const took = { 'src/b.test.ts': 3, 'src/c.test.ts': 12 };
    expect(longestFirst(files, (f) => f, took)).toEqual([
      'src/probes/plan-audit.int.test.ts',
      'src/c.test.ts',
      'src/b.test.ts',
      'src/a.test.ts',
    ]);
  });

  it('names only files that exist', () => {
    for (const p of LONGEST_FIRST) {
      const dir = p.endsWith('/') ? p : dirname(p);
      const names = readdirSync(dir);
      expect(p.endsWith('/') ? names.length : names.filter((n) => n.startsWith(basename(p))).length, p).toBeGreaterThan(
        0,
      );
    }
  });
});
