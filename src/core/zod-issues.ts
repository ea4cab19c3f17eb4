/**
 * Turns zod issues into messages that name where (file, path), what was expected and what was found,
 * with a did-you-mean for misspelt keys and names.
 *
 * Custom messages given to a schema (`z.string({ error: 'expected a duration such as 30s' })`,
 * `.min(1, 'at least one key')`, refinements) are used as the "expected" part; zod's own default
 * messages are replaced by plainer words. A custom message that already says what was found (it
 * contains "found") is used whole.
 */
import * as z from 'zod';

/**
 * Edit distance counting a swap of two adjacent letters as one edit (optimal string alignment), since
 * `plna` for `plan` is one slip of the fingers, not two. Small inputs only.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate within a small edit distance, or undefined. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const w = word.toLowerCase();
  const limit = Math.max(1, Math.floor(word.length / 3));
  for (const c of candidates) {
    // The distance is at least the difference in length: a long word (a key, a pasted blob) is never compared.
    if (Math.abs(w.length - c.length) > limit) continue;
    const d = editDistance(w, c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
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

/** One issue, located by its path in the parsed document. */
export interface DescribedIssue {
  readonly path: readonly PropertyKey[];
  /** `key` when the issue is the key at `path` itself (an unknown key), `value` when it is about its value. */
  readonly at: 'key' | 'value';
  /** What was expected and what was found, e.g. `expected a number >= 1, found number 0`. */
  readonly text: string;
}

export interface DescribeOptions {
  /**
   * Paths whose values are secret (a keys document): their values are described by their shape only (`a string
   * of 32 characters`), and the names of unknown properties at or under them are never shown either.
   */
  readonly mask?: (path: readonly PropertyKey[]) => boolean;
  /** The schema that was parsed: unknown keys then list the accepted keys, with a did-you-mean. */
  readonly schema?: z.ZodType;
}

type Issue = z.core.$ZodIssue;

const TYPE_NAMES: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  null: 'null',
};

function describeFound(input: unknown): string {
  if (input === undefined) return 'nothing (the key is missing)';
  if (input === null) return 'null';
  if (typeof input === 'string') return JSON.stringify(input.length > 60 ? `${input.slice(0, 60)}…` : input);
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  return `${typeof input} ${String(input)}`;
}

/** What a secret value is, without any of its text: its type, and a string's length. */
function describeShape(input: unknown): string {
  if (input === undefined) return 'nothing (the key is missing)';
  if (input === null) return 'null';
  if (typeof input === 'string')
    return `a string of ${input.length} character${input.length === 1 ? '' : 's'} (not shown)`;
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  if (typeof input === 'boolean') return 'a boolean (true or false)';
  return `a ${typeof input} (not shown)`;
}

function isRecord(v: unknown): v is Record<PropertyKey, unknown> {
  return v !== null && typeof v === 'object';
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (!isRecord(cur)) return undefined;
    cur = cur[seg];
  }
  return cur;
}

/** zod's own English messages start like this; anything else was written for the schema. */
function isDefaultMessage(message: string): boolean {
  return /^(Invalid|Too small|Too big|Unrecognized)\b/.test(message);
}

function hintFor(found: unknown, candidates: readonly string[]): string {
  const hint = typeof found === 'string' ? didYouMean(found, candidates) : undefined;
  return hint === undefined ? '' : ` (did you mean "${hint}"?)`;
}

function bound(issue: { origin: string; inclusive?: boolean }, n: unknown, small: boolean): string {
  const count = Number(n);
  switch (issue.origin) {
    case 'array':
    case 'set':
      return `${small ? 'at least' : 'at most'} ${count} item${count === 1 ? '' : 's'}`;
    case 'string':
      if (small && count === 1) return 'a non-empty string';
      return `a string of ${small ? 'at least' : 'at most'} ${count} character${count === 1 ? '' : 's'}`;
    default:
      return `a number ${small ? '>' : '<'}${issue.inclusive ? '=' : ''} ${String(n)}`;
  }
}

// --- Walking a schema along a path, to learn which keys an object there accepts ---------------------

/** The parts of zod 4's schema definitions (`schema._zod.def`) that the walk reads. */
interface Def {
  readonly type: string;
  readonly shape?: Record<string, Walkable>;
  readonly innerType?: Walkable;
  readonly in?: Walkable;
  readonly out?: Walkable;
  readonly element?: Walkable;
  readonly options?: readonly Walkable[];
  readonly discriminator?: string;
  readonly valueType?: Walkable;
  readonly items?: readonly Walkable[];
  readonly getter?: () => Walkable;
}
interface Walkable {
  readonly _zod: { readonly def: Def };
}

/** The object/array/record/tuple schemas that `s` may validate `value` with, wrappers removed. */
function containers(s: Walkable, value: unknown): Walkable[] {
  const d = s._zod.def;
  switch (d.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return containers(d.innerType!, value);
    case 'lazy':
      return containers(d.getter!(), value);
    case 'pipe': {
      const first = containers(d.in!, value);
      return first.length > 0 ? first : containers(d.out!, value);
    }
    case 'union': {
      const disc = d.discriminator;
      const all = d.options!.flatMap((o) => containers(o, value));
      if (disc === undefined || !isRecord(value)) return all;
      const matching = all.filter((o) => {
        const field = o._zod.def.shape?.[disc];
        return field !== undefined && z.safeParse(field as unknown as z.ZodType, value[disc]).success;
      });
      return matching.length > 0 ? matching : all;
    }
    case 'object':
    case 'array':
    case 'record':
    case 'tuple':
      return [s];
    default:
      return [];
  }
}

function containersAt(schema: Walkable, path: readonly PropertyKey[], input: unknown): Walkable[] {
  let value = input;
  let cur = containers(schema, value);
  for (const seg of path) {
    value = isRecord(value) ? value[seg] : undefined;
    cur = cur
      .flatMap((s): Walkable[] => {
        const d = s._zod.def;
        if (d.type === 'object') return d.shape?.[String(seg)] ? [d.shape[String(seg)]!] : [];
        if (d.type === 'array') return typeof seg === 'number' ? [d.element!] : [];
        if (d.type === 'record') return [d.valueType!];
        if (d.type === 'tuple') return typeof seg === 'number' && d.items?.[seg] ? [d.items[seg]!] : [];
        return [];
      })
      .flatMap((s) => containers(s, value));
  }
  return cur;
}

function knownKeysAt(schema: z.ZodType | undefined, path: readonly PropertyKey[], input: unknown): string[] {
  if (schema === undefined) return [];
  const keys = containersAt(schema as unknown as Walkable, path, input).flatMap((s) =>
    Object.keys(s._zod.def.shape ?? {}),
  );
  return [...new Set(keys)];
}

// --- Unions: report the branch the input was meant for ------------------------------------------------

/**
 * The branch the author meant: one that got past the value itself (it complains about something inside),
 * else one with a specific complaint about the value (a bound, a failed parse), fewest complaints first.
 * Undefined when every branch merely rejects the value's type or literal: the union then speaks for itself.
 */
function meantBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const deep = (b: readonly Issue[]) => b.some((i) => i.path.length > 0);
  const specific = (b: readonly Issue[]) => b.some((i) => i.code !== 'invalid_type' && i.code !== 'invalid_value');
  const fewest = (bs: readonly (readonly Issue[])[]) => [...bs].sort((a, b) => a.length - b.length)[0];
  return fewest(branches.filter(deep)) ?? fewest(branches.filter(specific));
}

/** What a union accepts, from its branches' complaints about the value itself. */
function unionExpected(branches: readonly (readonly Issue[])[]): { expected: string; names: string[] } {
  const parts: string[] = [];
  const names: string[] = [];
  for (const b of branches) {
    for (const i of b) {
      if (i.path.length > 0) continue;
      if (i.code === 'invalid_type') parts.push(TYPE_NAMES[i.expected] ?? i.expected);
      else if (i.code === 'invalid_value') {
        const vs = i.values.map(String);
        names.push(...vs);
        parts.push(vs.join(', '));
      }
    }
  }
  return { expected: [...new Set(parts)].join(' or '), names };
}

/** Describe every issue: one entry per problem (an unknown key each), with full paths. */
export function describeIssues(error: z.ZodError, input: unknown, options: DescribeOptions = {}): DescribedIssue[] {
  const mask = options.mask ?? (() => false);
  const out: DescribedIssue[] = [];

  const visit = (issue: Issue, base: readonly PropertyKey[]): void => {
    const path = [...base, ...issue.path];
    const value = valueAt(input, path);
    const secret = mask(path);
    const found = secret ? describeShape(value) : describeFound(value);
    // A hint names one of the schema's own words, never the document's: it is shown for secrets too.
    const candidatesHint = (names: readonly string[]) => hintFor(value, names);
    const push = (text: string) => out.push({ path, at: 'value', text });
    const custom = isDefaultMessage(issue.message) ? undefined : issue.message;

    switch (issue.code) {
      case 'unrecognized_keys': {
        const known = knownKeysAt(options.schema, path, input);
        const present = isRecord(value) ? Object.keys(value) : [];
        const absent = known.filter((k) => !present.includes(k));
        for (const key of issue.keys) {
          const hint = didYouMean(key, absent);
          const expected = known.length > 0 ? `expected one of the keys ${known.join(', ')}, found ` : '';
          const hidden = secret || mask([...path, key]);
          out.push({
            // A secret document's property names may be secrets themselves (a key put where a name goes).
            path: hidden ? path : [...path, key],
            at: hidden ? 'value' : 'key',
            text: `${expected}${hidden ? 'an unknown key (its name is not shown)' : `unknown key "${key}"`}${hint ? ` (did you mean "${hint}"?)` : ''}`,
          });
        }
        return;
      }
      case 'invalid_union': {
        const u = issue as Issue & { note?: string; options?: readonly unknown[] };
        if (u.note === 'No matching discriminator' && u.options) {
          const names = u.options.map(String);
          push(`expected one of ${names.join(', ')}, found ${found}${candidatesHint(names)}`);
          return;
        }
        const branch = meantBranch(issue.errors);
        if (branch) {
          for (const i of branch) visit(i, path);
          return;
        }
        const { expected, names } = unionExpected(issue.errors);
        push(`${custom ?? `expected ${expected}`}, found ${found}${candidatesHint(names)}`);
        return;
      }
      case 'invalid_value': {
        const names = issue.values.map(String);
        const expected =
          custom ?? (names.length === 1 ? `expected ${names[0]}` : `expected one of ${names.join(', ')}`);
        push(`${expected}, found ${found}${candidatesHint(names)}`);
        return;
      }
      case 'invalid_type':
        push(`${custom ?? `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}`}, found ${found}`);
        return;
      case 'too_small':
        push(`${custom ?? `expected ${bound(issue, issue.minimum, true)}`}, found ${found}`);
        return;
      case 'too_big':
        push(`${custom ?? `expected ${bound(issue, issue.maximum, false)}`}, found ${found}`);
        return;
      default:
        if (custom !== undefined && /\bfound\b/.test(custom)) push(custom);
        else push(`${issue.message}${value !== undefined ? `, found ${found}` : ''}`);
    }
  };

  for (const issue of error.issues) visit(issue, []);
  return out;
}

/**
 * One line per issue: `<path>: expected <what>, found <what> (did you mean "x"?)`.
 * `input` is the parsed document, so that the found value can be shown. Secrets must be masked by the
 * caller (pass `mask` for paths whose values are secret). Pass the parsed `schema` to get the accepted
 * keys and a did-you-mean for unknown keys.
 */
export function formatIssues(
  error: z.ZodError,
  input: unknown,
  mask: (path: readonly PropertyKey[]) => boolean = () => false,
  schema?: z.ZodType,
): string[] {
  return describeIssues(error, input, { mask, ...(schema ? { schema } : {}) }).map(
    (i) => `${formatPath(i.path)}: ${i.text}`,
  );
}
