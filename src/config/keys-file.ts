/**
 * The keys file, one format for the reference server and the suite:
 * `{"keys":[{"key":"…","plan":"free"},{"key":"…","plan":"enterprise","perMinute":5000,"perDay":2000000},
 *   {"key":"…","plan":"pro","sacrificial":true}]}`
 * Keys are secrets: they are shown only as a label and their last four characters.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PLAN_NAMES, limitsFor, type PlanLimits, type PlanName } from '../api/plans.js';
import { PetloadError } from '../errors.js';
import { formatIssues } from './zod-issues.js';

const KeyEntry = z
  .strictObject({
    key: z.string().min(8, 'a key has at least 8 characters').regex(/^[\x21-\x7e]+$/, 'a key is printable ASCII without spaces'),
    plan: z.enum(PLAN_NAMES),
    label: z.string().min(1).max(40).optional(),
    perMinute: z.number().int().positive().optional(),
    perDay: z.number().int().positive().optional(),
    sacrificial: z.boolean().optional(),
  })
  .superRefine((e, ctx) => {
    if (e.plan === 'enterprise') {
      if (e.perMinute === undefined) ctx.addIssue({ code: 'custom', path: ['perMinute'], message: 'an enterprise key needs perMinute' });
      if (e.perDay === undefined) ctx.addIssue({ code: 'custom', path: ['perDay'], message: 'an enterprise key needs perDay' });
    } else if (e.perMinute !== undefined || e.perDay !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['plan'], message: `perMinute/perDay are only for enterprise keys; ${e.plan} has published figures` });
    }
  });

export const KeysFile = z
  .strictObject({ keys: z.array(KeyEntry).min(1, 'at least one key') })
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    f.keys.forEach((k, i) => {
      if (seen.has(k.key)) ctx.addIssue({ code: 'custom', path: ['keys', i, 'key'], message: 'the same key appears twice' });
      seen.add(k.key);
    });
  });
export type KeysFile = z.infer<typeof KeysFile>;

/** A key as the rest of the code sees it. `secret` must never be printed: use `label`. */
export interface ApiKey {
  readonly secret: string;
  readonly plan: PlanName;
  readonly limits: PlanLimits;
  readonly label: string;
  readonly sacrificial: boolean;
}

export function keyLabel(secret: string, name: string): string {
  return `${name} (…${secret.slice(-4)})`;
}

function toApiKeys(file: KeysFile): ApiKey[] {
  const counts = new Map<PlanName, number>();
  return file.keys.map((e) => {
    const n = (counts.get(e.plan) ?? 0) + 1;
    counts.set(e.plan, n);
    return Object.freeze({
      secret: e.key,
      plan: e.plan,
      limits: limitsFor(e.plan, e),
      label: keyLabel(e.key, e.label ?? `${e.plan}#${n}`),
      sacrificial: e.sacrificial ?? false,
    });
  });
}

/** Parse a keys document (already JSON-decoded). `source` names the file or variable in messages. */
export function parseKeys(doc: unknown, source: string): ApiKey[] {
  const res = KeysFile.safeParse(doc);
  if (!res.success) {
    const lines = formatIssues(res.error, doc, (path) => path[path.length - 1] === 'key');
    throw new PetloadError('E_KEYS_FILE', `${source}: invalid keys file\n  ${lines.join('\n  ')}`);
  }
  return toApiKeys(res.data);
}

export function parseKeysText(text: string, source: string): ApiKey[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new PetloadError('E_KEYS_FILE', `${source}: not valid JSON (${(e as Error).message})`);
  }
  return parseKeys(doc, source);
}

export function loadKeysFile(path: string): ApiKey[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new PetloadError('E_KEYS_FILE', `${path}: cannot read keys file (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseKeysText(text, path);
}

/** Serialise keys to the file format (used when the suite makes keys for the embedded server). */
export function toKeysDocument(keys: readonly ApiKey[]): KeysFile {
  return {
    keys: keys.map((k) => ({
      key: k.secret,
      plan: k.plan,
      ...(k.plan === 'enterprise' ? { perMinute: k.limits.perMinute, perDay: k.limits.perDay } : {}),
      ...(k.sacrificial ? { sacrificial: true } : {}),
    })),
  };
}

/** Replace every known secret in a text by its label. Used as the last line of defence on every output. */
export function createRedactor(keys: readonly ApiKey[]): (text: string) => string {
  const secrets = keys.filter((k) => k.secret.length > 0).map((k) => [k.secret, `[key ${k.label}]`] as const);
  if (secrets.length === 0) return (t) => t;
  return (text) => {
    let out = text;
    for (const [s, l] of secrets) if (out.includes(s)) out = out.split(s).join(l);
    return out;
  };
}
