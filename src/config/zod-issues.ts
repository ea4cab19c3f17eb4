/**
 * Turns zod issues into messages that name where (file, path), what was expected and what was found,
 * with a did-you-mean for misspelt keys and names.
 */
import type { z } from 'zod';

/** Levenshtein distance, small inputs only. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The closest candidate within a small edit distance, or undefined. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  const limit = Math.max(1, Math.floor(word.length / 3));
  return best !== undefined && bestD <= limit ? best : undefined;
}

/** `keys[2].plan`-style rendering of a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out === '' ? '(top level)' : out;
}

function describeFound(input: unknown): string {
  if (input === undefined) return 'nothing';
  if (input === null) return 'null';
  if (typeof input === 'string') return JSON.stringify(input.length > 60 ? `${input.slice(0, 60)}…` : input);
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  return `${typeof input} ${String(input)}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

/**
 * One line per issue: `<path>: expected <what>, found <what> (did you mean "x"?)`.
 * `input` is the parsed document, so that the found value can be shown. Secrets must be masked by the
 * caller (pass `mask` for paths whose values are secret).
 */
export function formatIssues(
  error: z.ZodError,
  input: unknown,
  mask: (path: readonly PropertyKey[]) => boolean = () => false,
): string[] {
  return error.issues.map((issue) => {
    const path = issue.path;
    const where = formatPath(path);
    const found = mask(path) ? '(a secret value, not shown)' : describeFound(valueAt(input, path));
    switch (issue.code) {
      case 'unrecognized_keys': {
        const parent = valueAt(input, path);
        const known = Object.keys((issue as { shape?: object }).shape ?? {});
        return issue.keys
          .map((k) => {
            const at = formatPath([...path, k]);
            const hint = known.length > 0 ? didYouMean(k, known) : undefined;
            void parent;
            return `${at}: unknown key${hint ? ` (did you mean "${hint}"?)` : ''}`;
          })
          .join('\n');
      }
      case 'invalid_value': {
        const values = (issue.values as unknown[]).map((v) => String(v));
        const got = valueAt(input, path);
        const hint = typeof got === 'string' ? didYouMean(got, values) : undefined;
        return `${where}: expected one of ${values.join(', ')}, found ${found}${hint ? ` (did you mean "${hint}"?)` : ''}`;
      }
      case 'invalid_type':
        return `${where}: expected ${issue.expected}, found ${found}`;
      default:
        return `${where}: ${issue.message}${found !== 'nothing' ? `, found ${found}` : ''}`;
    }
  });
}
