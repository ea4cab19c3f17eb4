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
import { findJsonSyntaxError } from './json-syntax.js';
import { formatIssues } from './zod-issues.js';

const KeyEntry = z
  .strictObject({
    key: z
      .string()
      .min(8, 'expected a key of at least 8 characters')
      .regex(/^[\x21-\x7e]+$/, 'expected a key of printable ASCII characters without spaces'),
    plan: z.enum(PLAN_NAMES),
    label: z.string().min(1).max(40).optional(),
    perMinute: z.number().int().positive().optional(),
    perDay: z.number().int().positive().optional(),
    sacrificial: z.boolean().optional(),
  })
  .superRefine((e, ctx) => {
    // Messages that say what was found are used whole (zod-issues.ts).
    for (const field of ['perMinute', 'perDay'] as const) {
      const what = field === 'perMinute' ? 'requests per minute' : 'requests per day';
      if (e.plan === 'enterprise' && e[field] === undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `expected ${field} (the key's ${what}) on an enterprise key, found nothing` });
      } else if (e.plan !== 'enterprise' && e[field] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `expected no ${field} on a ${e.plan} key (only enterprise keys have custom figures; ${e.plan}'s are published), found ${e[field]}`,
        });
      }
    }
  });

export const KeysFile = z
  .strictObject({ keys: z.array(KeyEntry) })
  .superRefine((f, ctx) => {
    if (f.keys.length === 0) ctx.addIssue({ code: 'custom', path: ['keys'], message: 'expected at least one key, found an empty list' });
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
    const lines = formatIssues(res.error, doc, (path) => path[path.length - 1] === 'key', KeysFile);
    throw new PetloadError('E_KEYS_FILE', `${source}: invalid keys file\n  ${lines.join('\n  ')}`);
  }
  return toApiKeys(res.data);
}

export function parseKeysText(text: string, source: string): ApiKey[] {
  // Editors on Windows may start the file with a byte-order mark, which JSON does not allow.
  const json = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    // JSON.parse's own message quotes the text around the error, which may be a key: locate it ourselves.
    const at = findJsonSyntaxError(json);
    const where = at === null ? '' : `:${at.line}:${at.col}`;
    throw new PetloadError('E_KEYS_FILE', `${source}${where}: not valid JSON: ${at?.text ?? 'it does not parse'}`);
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

/** The redactor lives in its own module (redactor.ts); re-exported here for the code that imports it from the keys. */
export { createRedactor, type Redactor } from './redactor.js';
