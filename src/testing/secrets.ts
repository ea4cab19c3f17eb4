/**
 * Test-only: recognisable keys, and a scan for them in what petload printed and wrote, in every form a target may
 * echo them in (JSON-escaped, percent-encoded, HTML character references, base64). A key must not appear
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

const jsonDecoded = (s: string) =>
  s
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/\\(["\\/bfnrt])/g, (_, c: string) => c);
const percentDecoded = (s: string) =>
  s.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
const NAMED: Record<string, string> = { quot: '"', lt: '<', gt: '>', amp: '&', apos: "'", sol: '/', plus: '+' };
const codePoint = (e: string, n: number) => (n <= 0x10ffff ? String.fromCodePoint(n) : e);
const entitiesDecoded = (s: string) =>
  s
    .replace(/&#x([0-9a-f]{1,6});/gi, (e, h: string) => codePoint(e, Number.parseInt(h, 16)))
    .replace(/&#(\d{1,7});/g, (e, d: string) => codePoint(e, Number(d)))
    .replace(/&([a-z]+);/gi, (e, n: string) => (Object.hasOwn(NAMED, n) ? NAMED[n]! : e));
/** Every run of base64 characters decoded from each of its first four characters (a token inside a longer run). */
const base64Decoded = (s: string) =>
  [...s.matchAll(/[A-Za-z0-9+/_-]{12,}/g)]
    .flatMap((m) => [0, 1, 2, 3].map((k) => Buffer.from(m[0].slice(k), 'base64').toString('latin1')))
    .join('\n');

/**
 * `text` and its decodings: JSON escapes, percent-encodings and HTML character references, each decoded up to three
 * times in any order; then the base64 runs of all of these decoded.
 */
export function decodings(text: string): string {
  const forms = new Set([text]);
  let level = [text];
  for (let depth = 0; depth < 3; depth++) {
    const next = level.flatMap((t) => [jsonDecoded(t), percentDecoded(t), entitiesDecoded(t)]);
    level = [...new Set(next)].filter((t) => !forms.has(t));
    for (const t of level) forms.add(t);
  }
  return [...forms, ...[...forms].map(base64Decoded)].join('\n');
}

/**
 * Where a piece of a secret of cutMinFor(its length) characters appears in `text` or in any of its decodings (a key
 * echoed JSON-escaped, percent-encoded, as HTML character references, in base64): `[secret index, offset in the
 * decodings]`, or null.
 */
export function findSecret(
  text: string,
  secrets: readonly string[],
): { secret: number; at: number; context: string } | null {
  return findIn(decodings(text), secrets);
}

function findIn(text: string, secrets: readonly string[]): { secret: number; at: number; context: string } | null {
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
