/**
 * Hiding API keys in free text (evidence excerpts, header values, messages, notes, log lines). Only a key's
 * own text is ever replaced, by `[key <label>]`:
 *  - the whole key, wherever it appears;
 *  - a cut piece of it where an excerpt ends (right before the `…` that marks the cut), if the piece is the
 *    start of the key and long enough to be unmistakable: at least CUT_MIN characters and at least half the key.
 *  - either of them written with JSON escapes (`\/`, `\u002B`, any `\uXXXX`), as a target's JSON encoder may
 *    echo a key: they are looked for in the text with its escapes decoded, and the escaped form is replaced.
 * Nothing shorter is touched, so a plan name, a common word or a number that a key happens to start with is
 * never mistaken for a key. Structured values (plan names, ids, labels, paths, numbers) are not given to the
 * redactor at all (src/report/redact.ts). Matches are found on the original text and replaced in one
 * pass, so that a label put in for one key is never read as (part of) another.
 */
import type { ApiKey } from '../core/api-key.js';

/** The shortest cut piece of a key that is hidden. */
export const CUT_MIN = 8;
/** The mark an excerpt ends with when it was cut. */
export const CUT_MARK = '…';

export interface Redactor {
  /** Whole keys, and cut pieces of keys before the cut mark. For free text. */
  (text: string): string;
  /** Whole keys only: the last pass over rendered files and console text, which cannot corrupt their structure. */
  whole(text: string): string;
}

interface Secret {
  readonly text: string;
  readonly replacement: string;
  /** The shortest start of the key hidden before a cut mark (above the key's length: never). */
  readonly cutMin: number;
}

/** The shortest cut piece hidden for a key of `length` characters. */
export function cutMinFor(length: number): number {
  return Math.max(CUT_MIN, Math.ceil(length / 2));
}

type Span = readonly [from: number, to: number, replacement: string];

/** Above this many keys, texts are scanned once through an index of the keys' first characters. */
const SCAN_ALL_BELOW = 16;
/** How many leading characters the index uses (the shortest key a keys file allows). */
const PREFIX = 8;

/**
 * Where keys occur in a text, in time linear in the text whatever the number of keys: a few keys are searched
 * one by one (`indexOf`, fastest); many keys through a map from their first PREFIX characters.
 */
interface Finder {
  /** Whether any whole key occurs in `text`. */
  any(text: string): boolean;
  /** Every occurrence `[at, secret]`, in no particular order. */
  all(text: string): [number, Secret][];
  /** The keys whose first PREFIX (or fewer, for short keys) characters stand at `at`. */
  startingAt(text: string, at: number): readonly Secret[];
}

function createFinder(secrets: readonly Secret[]): Finder {
  if (secrets.length < SCAN_ALL_BELOW) {
    return {
      any: (text) => secrets.some((s) => text.includes(s.text)),
      all: (text) => {
        const out: [number, Secret][] = [];
        for (const s of secrets)
          for (let i = text.indexOf(s.text); i !== -1; i = text.indexOf(s.text, i + 1)) out.push([i, s]);
        return out;
      },
      startingAt: () => secrets,
    };
  }
  const short = secrets.filter((s) => s.text.length < PREFIX);
  const index = new Map<string, Secret[]>();
  for (const s of secrets) {
    if (s.text.length < PREFIX) continue;
    const head = s.text.slice(0, PREFIX);
    const bucket = index.get(head);
    if (bucket === undefined) index.set(head, [s]);
    else bucket.push(s);
  }
  const all = (text: string, first: boolean): [number, Secret][] => {
    const out: [number, Secret][] = [];
    for (const s of short)
      for (let i = text.indexOf(s.text); i !== -1; i = text.indexOf(s.text, i + 1)) out.push([i, s]);
    for (let i = 0; i + PREFIX <= text.length; i++) {
      const bucket = index.get(text.slice(i, i + PREFIX));
      if (bucket === undefined) continue;
      for (const s of bucket) {
        if (!text.startsWith(s.text, i)) continue;
        out.push([i, s]);
        if (first) return out;
      }
    }
    return out;
  };
  return {
    any: (text) => all(text, true).length > 0,
    all: (text) => all(text, false),
    startingAt: (text, at) => [...short, ...(index.get(text.slice(at, at + PREFIX)) ?? [])],
  };
}

/** Which characters of a text are already replaced: spans never overlap. */
class Taken {
  private marks: Uint8Array | undefined;
  readonly spans: Span[] = [];
  constructor(private readonly length: number) {}
  add(from: number, to: number, replacement: string): boolean {
    this.marks ??= new Uint8Array(this.length + 1);
    for (let k = from; k < to; k++) if (this.marks[k] === 1) return false;
    this.marks.fill(1, from, to);
    this.spans.push([from, to, replacement]);
    return true;
  }
}

function wholeSpans(text: string, finder: Finder, taken: Taken, map: View['map']): void {
  // Longest first, so that a key that contains another is replaced whole.
  const found = finder.all(text).sort((a, b) => b[1].text.length - a[1].text.length || a[0] - b[0]);
  for (const [at, s] of found) taken.add(map(at), map(at + s.text.length), s.replacement);
}

/** A backslash escape cut short by the end of an excerpt (`\`, `\u`, `\u00`), right before the cut mark. */
const PARTIAL_ESCAPE = /\\(u[0-9a-fA-F]{0,3})?$/;

function cutSpans(text: string, finder: Finder, taken: Taken, map: View['map'], longest: number): void {
  for (let mark = text.indexOf(CUT_MARK); mark !== -1; mark = text.indexOf(CUT_MARK, mark + 1)) {
    // The piece may end with half an escape (`\u00` of `\u002B`): it is hidden with the piece.
    const end = mark - (PARTIAL_ESCAPE.exec(text.slice(Math.max(0, mark - 6), mark))?.[0].length ?? 0);
    let best: { n: number; s: Secret } | undefined;
    for (let n = Math.min(longest, end); n >= CUT_MIN && best === undefined; n--) {
      for (const s of finder.startingAt(text, end - n)) {
        if (n >= s.cutMin && n < s.text.length && text.startsWith(s.text.slice(0, n), end - n)) {
          best = { n, s };
          break;
        }
      }
    }
    if (best !== undefined) taken.add(map(end - best.n), map(mark), best.s.replacement);
  }
}

/**
 * A text as it is, or with its JSON escapes decoded (`\/`, `\"`, `\\`, `\uXXXX` in any case, the others),
 * with the position in the original text of each of its characters.
 */
interface View {
  readonly text: string;
  map(at: number): number;
}

const ESCAPED: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
/** Escaped JSON inside escaped JSON (a body quoted in a report) is decoded this many times at most. */
const DECODE_LEVELS = 3;

const HEX4 = /^[0-9a-fA-F]{4}$/;

/** `view` with one level of JSON escapes decoded, or null when it has none. */
function decodeOnce(view: View): View | null {
  const text = view.text;
  const parts: string[] = [];
  // Each escape: where its character is in the decoded text, where it starts in `text`, its length there.
  const at: number[] = [];
  const src: number[] = [];
  const len: number[] = [];
  let copied = 0;
  let decoded = 0;
  for (let i = text.indexOf('\\'); i !== -1; i = text.indexOf('\\', i)) {
    const e = text[i + 1];
    const hex = e === 'u' ? text.slice(i + 2, i + 6) : '';
    const c = HEX4.test(hex) ? String.fromCharCode(Number.parseInt(hex, 16)) : e !== undefined ? ESCAPED[e] : undefined;
    if (c === undefined) {
      i++;
      continue;
    }
    const n = hex === '' ? 2 : 6;
    parts.push(text.slice(copied, i), c);
    decoded += i - copied;
    at.push(decoded);
    src.push(i);
    len.push(n);
    decoded++;
    i += n;
    copied = i;
  }
  if (at.length === 0) return null;
  parts.push(text.slice(copied));
  const map = (d: number): number => {
    // The last escape at or before `d`, by bisection.
    let lo = 0;
    let hi = at.length - 1;
    if (d < at[0]!) return view.map(d);
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (at[mid]! <= d) lo = mid;
      else hi = mid - 1;
    }
    const o = d === at[lo]! ? src[lo]! : src[lo]! + len[lo]! + (d - at[lo]! - 1);
    return view.map(o);
  };
  return { text: parts.join(''), map };
}

function apply(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [from, to, r] of spans) {
    out += text.slice(at, from) + r;
    at = to;
  }
  return out + text.slice(at);
}

const identity = Object.assign((t: string) => t, { whole: (t: string) => t });

/**
 * `others`: secrets that are not keys (a secret header's value, a proxy's password), hidden the same way as
 * `[<name>]`.
 */
export function createRedactor(
  keys: readonly Pick<ApiKey, 'secret' | 'label'>[],
  others: readonly { readonly text: string; readonly name: string }[] = [],
): Redactor {
  const secrets: Secret[] = [
    ...keys.map((k) => ({ text: k.secret, replacement: `[key ${k.label}]` })),
    ...others.map((o) => ({ text: o.text, replacement: `[${o.name}]` })),
  ]
    .filter((s) => s.text.length > 0)
    .map((s) => ({ ...s, cutMin: cutMinFor(s.text.length) }))
    .sort((a, b) => b.text.length - a.text.length);
  if (secrets.length === 0) return identity;
  const finder = createFinder(secrets);
  const cuttable = secrets.filter((s) => s.cutMin < s.text.length);
  const cutFinder = createFinder(cuttable);
  // The longest cut piece worth looking for.
  const longest = secrets[0]!.text.length - 1;
  // Escapes that may hide a key's character: \u always, \\ (it may escape an escape), \/ and \" when a key has them.
  const escapes = new RegExp(
    `\\\\[u\\\\${secrets.some((s) => s.text.includes('/')) ? '/' : ''}${secrets.some((s) => s.text.includes('"')) ? '"' : ''}]`,
  );
  const hide = (text: string, cuts: boolean): string => {
    const hasCut = cuts && cuttable.length > 0 && text.includes(CUT_MARK);
    // Cheap test first: most texts hold no key, no cut mark and no escape.
    const escaped = escapes.test(text);
    if (!hasCut && !escaped && !finder.any(text)) return text;
    const taken = new Taken(text.length);
    let view: View | null = { text, map: (at) => at };
    // The text as it is, then its JSON strings decoded (a key echoed as `sk_live_a\/b` or `\u002B`).
    for (let level = 0; view !== null && level <= (escaped ? DECODE_LEVELS : 0); level++, view = decodeOnce(view)) {
      wholeSpans(view.text, finder, taken, view.map);
      if (hasCut) cutSpans(view.text, cutFinder, taken, view.map, longest);
    }
    return apply(text, taken.spans);
  };
  return Object.assign((text: string) => hide(text, true), { whole: (text: string) => hide(text, false) });
}
