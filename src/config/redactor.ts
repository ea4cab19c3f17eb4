/**
 * Hiding API keys in free text (evidence excerpts, header values, messages, notes, log lines). Only a key's
 * own text is ever replaced, by `[key <label>]`:
 *  - the whole key, wherever it appears;
 *  - a cut piece of it where an excerpt ends (right before the `…` that marks the cut), if the piece is the
 *    start of the key and long enough to be unmistakable: at least CUT_MIN characters and at least half the key.
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

function overlaps(spans: readonly Span[], from: number, to: number): boolean {
  return spans.some(([a, b]) => from < b && a < to);
}

function wholeSpans(text: string, secrets: readonly Secret[]): Span[] {
  const spans: Span[] = [];
  // Longest first, so that a key that contains another is replaced whole.
  for (const s of secrets) {
    for (let i = text.indexOf(s.text); i !== -1; i = text.indexOf(s.text, i + 1)) {
      if (!overlaps(spans, i, i + s.text.length)) spans.push([i, i + s.text.length, s.replacement]);
    }
  }
  return spans;
}

function cutSpans(text: string, secrets: readonly Secret[], taken: Span[]): void {
  for (let end = text.indexOf(CUT_MARK); end !== -1; end = text.indexOf(CUT_MARK, end + 1)) {
    for (const s of secrets) {
      let found = false;
      for (let n = Math.min(s.text.length - 1, end); n >= s.cutMin; n--) {
        if (text.startsWith(s.text.slice(0, n), end - n) && !overlaps(taken, end - n, end)) {
          taken.push([end - n, end, s.replacement]);
          found = true;
          break;
        }
      }
      if (found) break;
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
  // Cheap test first: most texts hold no key and no cut mark.
  const cuttable = secrets.filter((s) => s.cutMin < s.text.length);
  const whole = (text: string) =>
    secrets.some((s) => text.includes(s.text)) ? apply(text, wholeSpans(text, secrets)) : text;
  const redact = (text: string) => {
    const hasCut = cuttable.length > 0 && text.includes(CUT_MARK);
    if (!hasCut) return whole(text);
    const spans = wholeSpans(text, secrets);
    cutSpans(text, cuttable, spans);
    return apply(text, spans);
  };
  return Object.assign(redact, { whole });
}
