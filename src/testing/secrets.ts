/**
 * Test-only: recognisable keys, and a scan for them in what petload printed and wrote. A key must not appear
 * whole, nor any 10 characters of it: a cut excerpt must not leak half a key either (the label shows the last
 * four characters, by design). Never imported by src.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** `SECRET-<plan>-<random hex>`: easy to spot, unique per test run. */
export function recognisableKey(plan: string): string {
  return `SECRET-${plan}-${randomBytes(12).toString('hex')}`;
}

const WINDOW = 10;

/** Where any 10 characters of a secret appear in `text`: `[secret index, offset]`, or null. */
export function findSecret(text: string, secrets: readonly string[]): { secret: number; at: number; context: string } | null {
  for (const [i, s] of secrets.entries()) {
    for (let k = 0; k + WINDOW <= s.length; k++) {
      const at = text.indexOf(s.slice(k, k + WINDOW));
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
