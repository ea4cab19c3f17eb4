/** Bearer authentication of the reference server (spec: "Authentication"). */
import * as crypto from 'node:crypto';
import type { ApiKey } from '../core/api-key.js';

export type Credential = { kind: 'none' } | { kind: 'bearer'; token: string } | { kind: 'other' };

const BEARER = /^bearer(?:[ \t]+(.*))?$/i;

/** Reads an Authorization header: no header, a Bearer credential (possibly with an empty token), or another scheme. */
export function parseAuthorization(header: string | undefined): Credential {
  if (header === undefined) return { kind: 'none' };
  const m = BEARER.exec(header.trim());
  if (m === null) return { kind: 'other' };
  return { kind: 'bearer', token: (m[1] ?? '').trim() };
}

/**
 * SHA-256 of a token. crypto.hash (Node 20.12+) does it in one shot at about half the cost of a Hash object,
 * and this runs on every request; older Node 20 releases get the Hash object.
 */
const digest: (secret: string) => Buffer =
  typeof crypto.hash === 'function'
    ? (secret) => crypto.hash('sha256', secret, 'buffer')
    : (secret) => crypto.createHash('sha256').update(secret).digest();

/**
 * The valid keys. Lookup compares SHA-256 digests with `timingSafeEqual` against every key, without an
 * early exit, so the time taken tells nothing about how much of a key was guessed.
 */
export class KeyRing {
  private readonly entries: { key: ApiKey; digest: Buffer }[];

  constructor(keys: readonly ApiKey[]) {
    this.entries = keys.filter((k) => k.secret.length > 0).map((key) => ({ key, digest: digest(key.secret) }));
  }

  find(token: string): ApiKey | undefined {
    if (token.length === 0) return undefined;
    const d = digest(token);
    let found: ApiKey | undefined;
    for (const e of this.entries) {
      if (crypto.timingSafeEqual(d, e.digest) && found === undefined) found = e.key;
    }
    return found;
  }
}
