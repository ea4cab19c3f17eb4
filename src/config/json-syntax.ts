/**
 * Where a JSON text first breaks the grammar (RFC 8259), as line, column, what was expected and what was found.
 * For files that hold secrets (the keys file): JSON.parse's messages quote the text around the error, which
 * may be a key, so they are never shown. What was found is described (a letter, a digit, the end of the
 * file), or quoted only when it is a single punctuation character.
 */

export interface JsonSyntaxError {
  readonly line: number;
  readonly col: number;
  /** e.g. `expected "," or "}" after a value in an object, found ":"` */
  readonly text: string;
}

class Stop extends Error {
  constructor(
    readonly at: number,
    readonly expected: string,
  ) {
    super(expected);
  }
}

/** Sticky: matched where the scan stands, without copying the rest of the text. */
const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const WS = new Set([' ', '\t', '\n', '\r']);
const PUNCTUATION = /^[{}[\]:,"'`;=()<>/\\#@!?*+&|%$~^.-]$/;

function describe(text: string, at: number): string {
  if (at >= text.length) return 'the end of the file';
  const c = text[at]!;
  if (c === '"') return 'a string';
  if (/[A-Za-z_]/.test(c)) return 'an unquoted word';
  if (/[0-9]/.test(c)) return 'a digit';
  if (PUNCTUATION.test(c)) return `"${c}"`;
  if (c.charCodeAt(0) < 0x20) return 'a control character';
  return 'another character';
}

/**
 * A strict pass over the text that stops at the first error. Iterative, with its own stack of open objects and
 * lists, so that a file of 200 000 unclosed `[` is an error at its end, not a stack overflow.
 */
function scan(text: string): void {
  let i = 0;
  const open: ('{' | '[')[] = [];
  const ws = () => {
    while (i < text.length && WS.has(text[i]!)) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else throw new Stop(i, 'a value (a string, number, object, list, true, false or null)');
  };
  const string = () => {
    i++; // opening quote
    while (i < text.length && text[i] !== '"') {
      const c = text[i]!;
      if (c.charCodeAt(0) < 0x20) throw new Stop(i, 'the string to end with " on the same line');
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Stop(i, 'four hex digits after \\u');
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e))
          throw new Stop(i, 'a valid escape (\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)');
        i += 2;
        continue;
      }
      i++;
    }
    if (i >= text.length) throw new Stop(i, 'the string to end with "');
    i++;
  };
  const number = () => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) throw new Stop(i, 'a number');
    i += m[0].length;
  };
  /** A property name and its colon, inside an object. */
  const property = () => {
    ws();
    if (text[i] !== '"') throw new Stop(i, 'a property name in double quotes');
    string();
    ws();
    if (text[i] !== ':') throw new Stop(i, '":" after a property name');
    i++;
  };
  /** One value's start: a scalar is read whole (true), an object or list is opened (false: its members follow). */
  const begin = (): boolean => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      ws();
      if (text[i] === (c === '{' ? '}' : ']')) {
        i++;
        return true;
      }
      open.push(c);
      if (c === '{') property();
      return false;
    }
    if (c === '"') string();
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else throw new Stop(i, 'a value (a string, number, object, list, true, false or null)');
    return true;
  };
  for (;;) {
    // Read values until one is complete, then close what it completes, until a comma asks for the next.
    while (!begin());
    for (;;) {
      const top = open.at(-1);
      if (top === undefined) {
        ws();
        if (i < text.length) throw new Stop(i, 'the end of the file after the value');
        return;
      }
      ws();
      const close = top === '{' ? '}' : ']';
      if (text[i] === close) {
        i++;
        open.pop();
        continue;
      }
      if (text[i] !== ',')
        throw new Stop(i, top === '{' ? '"," or "}" after a value in an object' : '"," or "]" after a value in a list');
      i++;
      if (top === '{') property();
      break;
    }
  }
}

function position(text: string, at: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let k = 0; k < at && k < text.length; k++) {
    if (text[k] === '\n') {
      line++;
      start = k + 1;
    }
  }
  return { line, col: at - start + 1 };
}

/** The first syntax error of `text`, or null when it is valid JSON. Never quotes more than one character of it. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  try {
    scan(text);
    return null;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    // A trailing comma is the commonest slip: say so.
    const trailing =
      /^,\s*$/.test(text.slice(0, e.at).trimEnd().slice(-1)) && (text[e.at] === '}' || text[e.at] === ']');
    const why = trailing ? ' (a trailing comma before it is not allowed in JSON)' : '';
    return { ...position(text, e.at), text: `expected ${e.expected}, found ${describe(text, e.at)}${why}` };
  }
}
