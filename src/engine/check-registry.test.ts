/**
 * The catalogue says who judges each check (`judgedBy`); this holds the code to it: every probe's `checks` and
 * every check id a judge's source records are judged by that judge in the catalogue, and every check the
 * catalogue gives to probes is some probe's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, CHECK_IDS, type CheckId, checksJudgedBy, type Judge } from '../checks/catalogue.js';
import { PROBE_REGISTRY } from '../probes/index.js';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The source files of a judge (tests left out). */
const JUDGE_FILES: Record<Judge, string[]> = {
  observer: [
    'checks/observer.ts',
    ...readdirSync(join(SRC, 'checks/passive'))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => `checks/passive/${f}`),
  ],
  probe: readdirSync(join(SRC, 'probes'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => `probes/${f}`),
  backoff: ['backoff/no-ban.ts'],
  saturate: ['executors/saturate.ts'],
};

/** The source without the arguments of `see(…)`: a skip reason's typed reference names a check it does not record. */
function withoutReferences(text: string): string {
  let out = '';
  let at = 0;
  const call = /(?<![\w.])see\(/g;
  for (let m = call.exec(text); m !== null; m = call.exec(text)) {
    const i = m.index;
    out += text.slice(at, i);
    let depth = 0;
    let j = i + 3;
    do {
      if (text[j] === '(') depth++;
      else if (text[j] === ')') depth--;
      j++;
    } while (depth > 0 && j < text.length);
    at = j;
    call.lastIndex = j;
  }
  return out + text.slice(at);
}

/** Check ids written as a whole string literal in a file (what a judge records), but for comparisons (reads). */
function idsIn(file: string): CheckId[] {
  const text = withoutReferences(readFileSync(join(SRC, file), 'utf8')).replace(/===\s*'[^']*'/g, '');
  return CHECK_IDS.filter((id) => text.includes(`'${id}'`));
}

const judged = (id: CheckId, judge: Judge) => (CATALOGUE[id].judgedBy as readonly Judge[]).includes(judge);

describe('the check registry', () => {
  it('gives every check at least one judge and a reason for when none judged it', () => {
    for (const id of CHECK_IDS) {
      expect(CATALOGUE[id].judgedBy.length, id).toBeGreaterThan(0);
      expect(CATALOGUE[id].unexercised.length, id).toBeGreaterThan(0);
    }
  });

  it("holds every probe's checks to the probe judge, and every probe-judged check to a probe", () => {
    const named = new Set(Object.values(PROBE_REGISTRY).flatMap((p) => [...p.checks]));
    for (const id of named) expect(judged(id, 'probe'), `${id} is named by a probe`).toBe(true);
    expect(checksJudgedBy('probe').filter((id) => !named.has(id))).toEqual([]);
  });

  it.each(Object.keys(JUDGE_FILES) as Judge[])('holds the ids the %s code records to the catalogue', (judge) => {
    const stray = JUDGE_FILES[judge].flatMap((f) =>
      idsIn(f)
        .filter((id) => !judged(id, judge))
        .map((id) => `${f}: ${id}`),
    );
    expect(stray).toEqual([]);
  });

  it('finds ids in the judges it reads (the scan is not empty)', () => {
    for (const judge of Object.keys(JUDGE_FILES) as Judge[])
      expect(JUDGE_FILES[judge].flatMap(idsIn).length, judge).toBeGreaterThan(0);
  });
});
