/**
 * Test-only: recognisable keys, and a scan for them in what petload printed and wrote. A key must not appear
 * whole, nor any piece of it as long as the redactor hides at the end of a cut excerpt (at least 8 characters
 * and half the key, src/config/redactor.ts): a shorter piece may end an excerpt, and the label shows the last
 * four characters, by design. Never imported by src.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cutMinFor } from '../config/redactor.js';

/** `SECRET-<plan>-<random hex>`: easy to spot, unique per test run. */
export function recognisableKey(plan: string): string {
  return `SECRET-${plan}-${randomBytes(12).toString('hex')}`;
}

/** Where a piece of a secret of cutMinFor(its length) characters appears in `text`: `[secret index, offset]`, or null. */
export function findSecret(
  text: string,
  secrets: readonly string[],
): { secret: number; at: number; context: string } | null {
  for (const [i, s] of secrets.entries()) {
    const window = Math.min(s.length, cutMinFor(s.length));
    for (let k = 0; k + window <= s.length; k++) {
      const at = text.indexOf(s.slice(k, k + window));
      if (at !== -1) return { secret: i, at, context: text.slice(Math.max(0, at - 60), at + 60) };
    }
  }
  return null;
}

/** Every file under `dir`, with its text. */
export function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, text: readFileSync(path, 'utf8') }];
  });
}
