/**
 * Hiding API keys in free text (evidence excerpts, header values, messages, notes, log lines). Only a key's
 * own text is ever replaced, by `[key <label>]`:
 *  - the whole key, wherever it appears;
 *  - a cut piece of it where an excerpt ends (right before the `…` that marks the cut), if the piece is the
 *    start of the key and long enough to be unmistakable: at least CUT_MIN characters and at least half the key.
 *  - either of them written in an encoding a target may echo a key in: JSON escapes (`\/`, `\u002B`, any
 *    `\uXXXX`), percent-encoding (`%2B`, `%2b`, any character or only some), HTML character references
 *    (`&#x2B;`, `&#43;`, `&amp;`): they are looked for in the text with these decoded (up to three levels, in any
 *    order), and the encoded form is replaced;
 *  - the whole key in base64 (a Basic credential `user:key` echoed), at any of the three alignments a key can have
 *    in base64: the characters made of the key's bits alone, and the one at each end that mixes them with a
 *    neighbour's, are replaced (keys of CUT_MIN characters or more).
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
  /** A key's base64 core: the base64 character before it (`lead`) and after it (`trail`) hold key bits too. */
  readonly lead?: boolean;
  readonly trail?: boolean;
}

const BASE64_CHAR = /^[A-Za-z0-9+/_-]$/;

/**
 * The base64 forms of a secret: for each of its three alignments in a base64 text, the characters made of its
 * bits alone, in the standard and the URL-safe alphabet.
 */
function base64Forms(s: Secret): Secret[] {
  const bytes = Buffer.from(s.text, 'utf8');
  const forms: Secret[] = [];
  for (let r = 0; r < 3; r++) {
    const encoded = Buffer.concat([Buffer.alloc(r), bytes]).toString('base64');
    const text = encoded.slice(Math.ceil((8 * r) / 6), Math.floor((8 * (r + bytes.length)) / 6));
    const form = { text, replacement: s.replacement, cutMin: Number.POSITIVE_INFINITY };
    const ends = { lead: r !== 0, trail: (r + bytes.length) % 3 !== 0 };
    forms.push({ ...form, ...ends });
    const urlSafe = text.replaceAll('+', '-').replaceAll('/', '_');
    if (urlSafe !== text) forms.push({ ...form, ...ends, text: urlSafe });
  }
  return forms;
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
  for (const [at, s] of found) {
    const from = s.lead === true && BASE64_CHAR.test(text[at - 1] ?? '') ? at - 1 : at;
    const end = at + s.text.length;
    const to = s.trail === true && BASE64_CHAR.test(text[end] ?? '') ? end + 1 : end;
    taken.add(map(from), map(to), s.replacement);
  }
}

/**
 * An escape cut short by the end of an excerpt, right before the cut mark: JSON's (`\`, `\u`, `\u00`), a
 * percent-encoding's (`%`, `%2`), an HTML character reference's (`&`, `&#x2`, `&am`).
 */
const PARTIAL_ESCAPE = /(\\(u[0-9a-fA-F]{0,3})?|%[0-9a-fA-F]?|&(#[xX]?[0-9a-fA-F]{0,6}|[a-zA-Z]{0,6}))$/;

/** Where a cut piece before the cut mark at `mark` ends: at the mark, or before half an escape right before it. */
function pieceEnds(text: string, mark: number): number[] {
  const partial = PARTIAL_ESCAPE.exec(text.slice(Math.max(0, mark - 10), mark))?.[0].length ?? 0;
  return partial === 0 ? [mark] : [mark, mark - partial];
}

function cutSpans(text: string, finder: Finder, taken: Taken, map: View['map'], longest: number): void {
  for (let mark = text.indexOf(CUT_MARK); mark !== -1; mark = text.indexOf(CUT_MARK, mark + 1)) {
    // The piece may end with half an escape (`\u00` of `\u002B`): it is hidden with the piece.
    let best: { from: number; s: Secret } | undefined;
    for (const end of pieceEnds(text, mark)) {
      for (let n = Math.min(longest, end); n >= CUT_MIN && best === undefined; n--) {
        for (const s of finder.startingAt(text, end - n)) {
          if (n >= s.cutMin && n < s.text.length && text.startsWith(s.text.slice(0, n), end - n)) {
            best = { from: end - n, s };
            break;
          }
        }
      }
    }
    if (best !== undefined) taken.add(map(best.from), map(mark), best.s.replacement);
  }
}

/**
 * A text as it is, or with one kind of its escapes decoded, with the position in the original text of each of its
 * characters.
 */
interface View {
  readonly text: string;
  /** How many decodings made it. */
  readonly depth: number;
  map(at: number): number;
}

/** Encodings inside encodings (a JSON body quoted in a report, a percent-encoded `%252B`) decoded this deep at most. */
const DECODE_LEVELS = 3;

/** An escape and the one character it stands for (undefined: leave it as it is). */
interface Decoding {
  readonly pattern: RegExp;
  decode(m: RegExpExecArray): string | undefined;
}

const JSON_ESCAPED: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
/** HTML's named references for the characters a key may hold (printable ASCII), as HTML5 names them. */
const HTML_NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  excl: '!',
  num: '#',
  dollar: '$',
  percnt: '%',
  lpar: '(',
  rpar: ')',
  ast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  equals: '=',
  quest: '?',
  commat: '@',
  lsqb: '[',
  bsol: '\\',
  rsqb: ']',
  Hat: '^',
  lowbar: '_',
  grave: '`',
  lcub: '{',
  verbar: '|',
  rcub: '}',
  tilde: '~',
  hyphen: '-',
  dash: '-',
};
/** One character of the Basic Multilingual Plane, from a code point (else undefined: it is left as written). */
const charOf = (code: number): string | undefined => (code <= 0xffff ? String.fromCharCode(code) : undefined);
const ascii = (code: number): string | undefined => (code <= 0x7f ? String.fromCharCode(code) : undefined);

const DECODINGS: readonly Decoding[] = [
  // JSON: `\/`, `\"`, `\\`, `\uXXXX` in any case, the others (`\\` first, so that `\\u0041` stays `\u0041`).
  {
    pattern: /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g,
    decode: (m) => (m[1] !== undefined ? charOf(Number.parseInt(m[1], 16)) : JSON_ESCAPED[m[2]!]),
  },
  // Percent-encoding, either case of hex; a byte above 0x7F is part of a UTF-8 sequence, which no key holds.
  { pattern: /%([0-9a-fA-F]{2})/g, decode: (m) => ascii(Number.parseInt(m[1]!, 16)) },
  // HTML character references: hex, decimal, named.
  {
    pattern: /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([a-zA-Z]{2,6}));/g,
    decode: (m) =>
      m[1] !== undefined
        ? charOf(Number.parseInt(m[1], 16))
        : m[2] !== undefined
          ? charOf(Number(m[2]))
          : Object.hasOwn(HTML_NAMED, m[3]!)
            ? HTML_NAMED[m[3]!]
            : undefined,
  },
];

/** `view` with one kind of escapes decoded, or null when it has none. */
function decodeOnce(view: View, decoding: Decoding): View | null {
  const text = view.text;
  const parts: string[] = [];
  // Each escape: where its character is in the decoded text, where it starts in `text`, its length there.
  const at: number[] = [];
  const src: number[] = [];
  const len: number[] = [];
  let copied = 0;
  let decoded = 0;
  for (const m of text.matchAll(decoding.pattern)) {
    const c = decoding.decode(m);
    if (c === undefined) continue;
    parts.push(text.slice(copied, m.index), c);
    decoded += m.index - copied;
    at.push(decoded);
    src.push(m.index);
    len.push(m[0].length);
    decoded++;
    copied = m.index + m[0].length;
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
  return { text: parts.join(''), depth: view.depth + 1, map };
}

/** The text, then its decodings, each decoded once more, DECODE_LEVELS deep; a text met twice is kept once. */
function* views(text: string, decode: boolean): Generator<View> {
  const queue: View[] = [{ text, depth: 0, map: (at) => at }];
  const seen = new Set<string>([text]);
  for (let i = 0; i < queue.length; i++) {
    const view = queue[i]!;
    yield view;
    if (!decode || view.depth >= DECODE_LEVELS) continue;
    for (const decoding of DECODINGS) {
      const next = decodeOnce(view, decoding);
      if (next === null || seen.has(next.text)) continue;
      seen.add(next.text);
      queue.push(next);
    }
  }
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
  const finder = createFinder([
    ...secrets,
    ...secrets.filter((s) => s.text.length >= CUT_MIN).flatMap((s) => base64Forms(s)),
  ]);
  const cuttable = secrets.filter((s) => s.cutMin < s.text.length);
  const cutFinder = createFinder(cuttable);
  // The longest cut piece worth looking for.
  const longest = secrets[0]!.text.length - 1;
  // Escapes that may hide a key's character: \u always, \\ (it may escape an escape), \/ and \" when a key has
  // them; a percent-encoded byte; an HTML character reference.
  const jsonChars = ['/', '"'].filter((c) => secrets.some((s) => s.text.includes(c))).join('');
  const escapes = new RegExp(`\\\\[u\\\\${jsonChars}]|%[0-9a-fA-F]{2}|&(#|[a-zA-Z]{2,6};)`);
  const hide = (text: string, cuts: boolean): string => {
    const hasCut = cuts && cuttable.length > 0 && text.includes(CUT_MARK);
    // Cheap test first: most texts hold no key, no cut mark and no escape.
    const escaped = escapes.test(text);
    if (!hasCut && !escaped && !finder.any(text)) return text;
    const taken = new Taken(text.length);
    // The text as it is, then decoded (a key echoed as `sk_live_a\/b`, `%2B`, `&#x2B;`), in every order.
    for (const view of views(text, escaped)) {
      wholeSpans(view.text, finder, taken, view.map);
      if (hasCut) cutSpans(view.text, cutFinder, taken, view.map, longest);
    }
    return apply(text, taken.spans);
  };
  return Object.assign((text: string) => hide(text, true), { whole: (text: string) => hide(text, false) });
}
