/**
 * The keys file, one format for the reference server and the suite:
 * `{"keys":[{"key":"…","plan":"free"},{"key":"…","plan":"enterprise","perMinute":5000,"perDay":2000000},
 *   {"key":"…","plan":"pro","sacrificial":true},{"key":"…","plan":"pro","perMinute":600}]}`
 * A key's figures are its own (perMinute, perDay, on any plan), else its plan's: the published ones unless a
 * plans file or the scenario changed them (plan-figures.ts). Enterprise has no published figures.
 * Keys are secrets: they are shown only as a label and their last four characters.
 */
import { readFileSync, statSync } from 'node:fs';
import * as z from 'zod';
import {
  PLAN_NAMES,
  PUBLISHED_FIGURES,
  limitsFor,
  type PlanFigures,
  type PlanLimits,
  type PlanName,
} from '../api/plans.js';
import { keyLabel, type ApiKey } from '../core/api-key.js';
import { PetloadError } from '../core/errors.js';
import { findJsonSyntaxError } from './json-syntax.js';
import { PerDay, PerMinute, Tolerance } from './plan-figures.js';
import { formatIssues } from '../core/zod-issues.js';

/**
 * Bounds on a keys document, far above any real account's keys: beyond them a file is refused before it is
 * validated, so that a huge or hostile file costs neither minutes nor gigabytes.
 */
export const MAX_KEYS = 10_000;
export const MAX_KEYS_FILE_BYTES = 4 * 1024 * 1024;

/** The expected shape, said when a document's part has the wrong type (its own value is never quoted). */
const shape = (expected: string) => ({
  error: (issue: { code: string }) => (issue.code === 'invalid_type' ? expected : undefined),
});

const KeyEntry = z.strictObject(
  {
    key: z
      .string()
      .min(8, 'expected a key of at least 8 characters')
      .regex(/^[\x21-\x7e]+$/, 'expected a key of printable ASCII characters without spaces')
      // Reports hide every key wherever it stands: a key that is a plan's name would hide the plan names too.
      .refine(
        (k) => !(PLAN_NAMES as readonly string[]).includes(k.toLowerCase()),
        'expected a secret key, not the name of a plan',
      ),
    plan: z.enum(PLAN_NAMES),
    label: z.string().min(1).max(40).optional(),
    /** The key's own figures, for any plan: they win over its plan's (published, scenario or plans file). */
    perMinute: PerMinute.optional(),
    perDay: PerDay.optional(),
    /** Over-admission accepted of this key's limiter (documented as approximate): `"5%"`. */
    tolerance: Tolerance.optional(),
    sacrificial: z.boolean().optional(),
    /** For the plan audit (the plan-audit scenario), which spends the key's whole day. */
    audit: z.boolean().optional(),
  },
  shape('expected a mapping such as {"key": "…", "plan": "free"}'),
);

export const KeysFile = z
  .strictObject(
    { keys: z.array(KeyEntry, shape('expected a list of keys such as [{"key": "…", "plan": "free"}]')) },
    shape('expected a mapping such as {"keys": [{"key": "…", "plan": "free"}]}'),
  )
  .superRefine((f, ctx) => {
    if (f.keys.length === 0)
      ctx.addIssue({ code: 'custom', path: ['keys'], message: 'expected at least one key, found an empty list' });
    const seen = new Map<string, number>();
    f.keys.forEach((k, i) => {
      const first = seen.get(k.key);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['keys', i, 'key'],
          message: `expected each key once, found the same key as keys[${first}].key`,
        });
      else seen.set(k.key, i);
    });
  });
export type KeysFile = z.infer<typeof KeysFile>;

/** A keys file entry, validated, its figures not yet resolved. `secret` must never be printed: use `label`. */
export interface KeyEntry {
  readonly secret: string;
  readonly plan: PlanName;
  readonly label: string;
  readonly sacrificial: boolean;
  readonly audit: boolean;
  /** The entry's own figures, if any. */
  readonly own: Readonly<Partial<PlanLimits>>;
}

function toEntries(file: KeysFile): KeyEntry[] {
  const counts = new Map<PlanName, number>();
  return file.keys.map((e) => {
    const n = (counts.get(e.plan) ?? 0) + 1;
    counts.set(e.plan, n);
    return Object.freeze({
      secret: e.key,
      plan: e.plan,
      label: keyLabel(e.key, e.label ?? `${e.plan}#${n}`),
      sacrificial: e.sacrificial ?? false,
      audit: e.audit ?? false,
      own: Object.freeze({
        ...(e.perMinute !== undefined ? { perMinute: e.perMinute } : {}),
        ...(e.perDay !== undefined ? { perDay: e.perDay } : {}),
        ...(e.tolerance !== undefined ? { tolerance: e.tolerance } : {}),
      }),
    });
  });
}

/** Validate a keys document (already JSON-decoded) without resolving figures. `source` names it in messages. */
export function parseKeyEntries(doc: unknown, source: string): KeyEntry[] {
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (Array.isArray(keys) && keys.length > MAX_KEYS)
    throw new PetloadError(
      'E_KEYS_FILE',
      `${source}: invalid keys file\n  keys: expected at most ${MAX_KEYS} keys, found ${keys.length}`,
    );
  const res = KeysFile.safeParse(doc);
  if (!res.success) {
    // Any value or property name of a keys document may be a key put in the wrong place: none is ever quoted.
    const lines = formatIssues(res.error, doc, () => true, KeysFile);
    throw new PetloadError('E_KEYS_FILE', `${source}: invalid keys file\n  ${lines.join('\n  ')}`);
  }
  return toEntries(res.data);
}

/**
 * The entries' figures: each key's own, else its plan's in `table` (default: the published figures). A figure
 * given by neither is an error naming the entry (`keys[2].perMinute`) and where it may be given.
 */
export function resolveKeys(
  entries: readonly KeyEntry[],
  source: string,
  table: PlanFigures = PUBLISHED_FIGURES,
): ApiKey[] {
  const problems: string[] = [];
  const keys = entries.map((e, i) => {
    for (const field of ['perMinute', 'perDay'] as const) {
      if (e.own[field] === undefined && table[e.plan]?.[field] === undefined) {
        const what = field === 'perMinute' ? 'requests per minute' : 'requests per day';
        const why = e.plan === 'enterprise' ? 'enterprise has no published figures' : `no figure for ${e.plan}`;
        problems.push(
          `keys[${i}].${field}: expected ${field} (the key's ${what}) on this ${e.plan} key, or ${e.plan}'s ${field} in a plans file (--plans-file) or the scenario's planLimits (${why}), found nothing`,
        );
      }
    }
    if (problems.length > 0) return null;
    const limits = limitsFor(e.plan, e.own, table);
    return Object.freeze({
      secret: e.secret,
      plan: e.plan,
      limits: Object.freeze(limits),
      label: e.label,
      sacrificial: e.sacrificial,
      ...(e.audit ? { audit: true } : {}),
    });
  });
  if (problems.length > 0)
    throw new PetloadError('E_KEYS_FILE', `${source}: invalid keys file\n  ${problems.join('\n  ')}`);
  return keys as ApiKey[];
}

/** Parse a keys document (already JSON-decoded) and resolve its figures against `table` (default: published). */
export function parseKeys(doc: unknown, source: string, table?: PlanFigures): ApiKey[] {
  return resolveKeys(parseKeyEntries(doc, source), source, table);
}

function tooBig(source: string, size: number): PetloadError {
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return new PetloadError(
    'E_KEYS_FILE',
    `${source}: not read as a keys file: expected at most ${mib(MAX_KEYS_FILE_BYTES)} (${MAX_KEYS} keys at most), found ${mib(size)}`,
  );
}

/** Validate the text of a keys file without resolving figures. */
export function parseKeyEntriesText(text: string, source: string): KeyEntry[] {
  if (text.length > MAX_KEYS_FILE_BYTES) throw tooBig(source, text.length);
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
  return parseKeyEntries(doc, source);
}

export function parseKeysText(text: string, source: string, table?: PlanFigures): ApiKey[] {
  return resolveKeys(parseKeyEntriesText(text, source), source, table);
}

/** Read and validate a keys file without resolving figures. */
export function loadKeyEntries(path: string): KeyEntry[] {
  let text: string;
  try {
    // A file beyond the bound is not even read.
    const size = statSync(path).size;
    if (size > MAX_KEYS_FILE_BYTES) throw tooBig(path, size);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof PetloadError) throw e;
    throw new PetloadError(
      'E_KEYS_FILE',
      `${path}: cannot read keys file (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  return parseKeyEntriesText(text, path);
}

export function loadKeysFile(path: string, table?: PlanFigures): ApiKey[] {
  return resolveKeys(loadKeyEntries(path), path, table);
}

/** The redactor lives in its own module (redactor.ts); re-exported here for the code that imports it from the keys. */
export { createRedactor, type Redactor } from './redactor.js';
