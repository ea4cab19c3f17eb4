/**
 * `${VAR}` and `${VAR:-default}` in a scenario file's values (docs/scenarios.md, "Environment variables"),
 * substituted in the parsed document before it is validated, so that `rate: "${RATE}"` is checked like `rate:
 * 10/s`. Only values are substituted, never keys. As in a shell: `${VAR:-default}` takes the default when VAR is
 * unset or empty, `${VAR}` of an empty variable is empty, `$$` is a literal `$`. A value that is exactly one
 * reference and whose text is a number or true/false becomes that number or boolean (`keysPerPlan:
 * ${KEYS}`). A reference to an unset variable without a default is an error naming its path.
 */

export type Env = Readonly<Record<string, string | undefined>>;

/** A reference to an unset variable without a default, at `path` in the document. */
export interface UnsetVariable {
  readonly path: readonly (string | number)[];
  readonly variable: string;
}

const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/;

function substituteString(text: string, env: Env, unset: (variable: string) => void): string | number | boolean {
  if (!text.includes('$')) return text;
  const out = text.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$$') return '$';
    const value = env[name!];
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value === undefined) {
      unset(name!);
      return match;
    }
    return value;
  });
  if (!WHOLE.test(text)) return out;
  if (/^-?\d+(\.\d+)?$/.test(out)) return Number(out);
  return out === 'true' ? true : out === 'false' ? false : out;
}

/** The document with every reference substituted, and the unset variables it refers to. */
export function substituteEnv(input: unknown, env: Env): { value: unknown; unset: UnsetVariable[] } {
  const unset: UnsetVariable[] = [];
  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') return substituteString(node, env, (variable) => unset.push({ path, variable }));
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (node !== null && typeof node === 'object') {
      // fromEntries defines each key as its own property (a key "__proto__" stays a key).
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...path, k])]));
    }
    return node;
  };
  return { value: walk(input, []), unset };
}
