import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from './catalogue.js';
import { Ledger } from './ledger.js';
import { lineOf, prefixed, see } from './skip-reason.js';

describe('skip reasons that point at other checks', () => {
  it('are written "<text> (see <id>, …)", and keep their references when prefixed', () => {
    const r = see('no whole response', 'contract.transport');
    expect(lineOf(r)).toBe('no whole response (see contract.transport)');
    const two = prefixed(
      'key A: ',
      see('requests counted elsewhere', 'ratelimit.key-isolation', 'auth.no-quota-drain'),
    );
    expect(two).toMatchObject({ text: 'key A: requests counted elsewhere' });
    expect(lineOf(two)).toBe('key A: requests counted elsewhere (see ratelimit.key-isolation, auth.no-quota-drain)');
    expect(prefixed('key A: ', 'plain')).toBe('key A: plain');
    const ledger = new Ledger();
    ledger.skip('ratelimit.remaining-decrements', 'free', r);
    ledger.skip('ratelimit.remaining-decrements', 'free', see('no whole response', 'contract.transport'));
    expect(ledger.all()[0]).toMatchObject({ skipped: 2, skipReasons: ['no whole response (see contract.transport)'] });
  });
});

/**
 * Texts of the judges that name a check in prose and are no skip reason: evidence, measured facts and the probes'
 * descriptions may explain with a check's name. Each entry: the file and the start of the text.
 */
const NOT_SKIPS: readonly (readonly [string, string])[] = [
  // The cause ratelimit.enforced reports (an info fact).
  ['src/checks/echoes.ts', '${n} independent counters answer each key'],
  // The probes' descriptions (petload list probes).
  ['src/probes/names.ts', ''],
  // The Limit a probe judged against (an info fact).
  ['src/probes/burst.ts', 'judged against the Limit the target announces'],
  ['src/probes/enforce.ts', 'counted against the Limit the target announces'],
  // Failure messages (evidence).
  ['src/probes/enforce.ts', '${expected + 1} requests accepted within'],
  ['src/probes/plan-audit.ts', 'its X-RateLimit-* headers are missing or unusable'],
  ['src/probes/plan-audit.ts', 'it has no usable Retry-After'],
  // What a status does to the quota (an info fact of ratelimit.what-counts).
  ['src/probes/what-counts.ts', 'never charged to a key'],
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

/** The string and template literals of a source, comments left out, that name a check id among other words. */
function prose(file: string): string[] {
  const code = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1');
  const ids = new RegExp(`(?:${CHECK_IDS.map((id) => id.replace(/[.-]/g, '\\$&')).join('|')})(?![a-z-])`);
  const literals = code.match(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g) ?? [];
  return literals.map((l) => l.slice(1, -1)).filter((t) => /\s/.test(t) && ids.test(t));
}

describe('the judges name other checks in skip reasons by typed reference only', () => {
  it('no text of src/checks or src/probes names a check in prose, but the declarations and the listed non-skips', () => {
    const files = [...sources('src/checks'), ...sources('src/probes')].filter((f) => f !== 'src/checks/catalogue.ts');
    expect(files.length).toBeGreaterThan(40);
    const found = files.flatMap((f) =>
      prose(f)
        .filter((t) => !NOT_SKIPS.some(([file, start]) => file === f && t.startsWith(start)))
        .map((t) => `${f}: ${t}`),
    );
    expect(found).toEqual([]);
    // The guard finds what it looks for.
    expect(prose('src/probes/names.ts').length).toBeGreaterThan(5);
  });
});
