/**
 * Test-only: a small strict XML 1.0 well-formedness parser, enough to prove that junit.xml parses and to read
 * it back. It rejects what real parsers reject in files like ours: unclosed or mismatched tags, a bare `&` or
 * `<`, an unknown entity, unquoted or repeated attributes, `<` in an attribute value, characters XML forbids,
 * text or a second element outside the root. (No DTDs, no namespaces: our files have none.)
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (character data and CDATA), entities decoded. */
  text: string;
}

const NAME = /^[A-Za-z_:][-A-Za-z0-9_.:]*/;
const FORBIDDEN = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export class XmlError extends Error {}

function decode(raw: string, at: number): string {
  if (FORBIDDEN.test(raw)) throw new XmlError(`character not allowed in XML near offset ${at}`);
  return raw.replace(/&([^;&<]*);|&/g, (_match, ref: string | undefined) => {
    if (ref === undefined) throw new XmlError(`bare "&" near offset ${at}`);
    if (ref in ENTITIES) return ENTITIES[ref]!;
    const dec = /^#(\d{1,7})$/.exec(ref)?.[1];
    const hex = /^#x([0-9A-Fa-f]{1,6})$/.exec(ref)?.[1];
    const code = dec !== undefined ? Number(dec) : hex !== undefined ? parseInt(hex, 16) : undefined;
    if (code === undefined) throw new XmlError(`unknown entity "&${ref};" near offset ${at}`);
    if (code > 0x10ffff) throw new XmlError(`character reference beyond Unicode near offset ${at}`);
    const ch = String.fromCodePoint(code);
    if (FORBIDDEN.test(ch)) throw new XmlError(`character reference to a forbidden character near offset ${at}`);
    return ch;
  });
}

export function parseXml(src: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const fail = (msg: string): never => {
    throw new XmlError(`${msg} at offset ${i}`);
  };
  if (src.startsWith('<?xml')) {
    const end = src.indexOf('?>');
    if (end === -1) fail('unterminated XML declaration');
    i = end + 2;
  }
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const text = src.slice(i, lt === -1 ? src.length : lt);
    if (text.length > 0) {
      if (text.includes(']]>')) fail('"]]>" in text');
      const decoded = decode(text, i);
      const top = stack[stack.length - 1];
      if (top) top.text += decoded;
      else if (decoded.trim() !== '') fail('text outside the root element');
    }
    if (lt === -1) break;
    i = lt;
    if (src.startsWith('<!--', i)) {
      const end = src.indexOf('-->', i + 4);
      if (end === -1) fail('unterminated comment');
      i = end + 3;
    } else if (src.startsWith('<![CDATA[', i)) {
      const end = src.indexOf(']]>', i);
      const top = stack[stack.length - 1];
      if (end === -1 || !top) fail('CDATA outside an element or unterminated');
      top!.text += src.slice(i + 9, end);
      i = end + 3;
    } else if (src.startsWith('</', i)) {
      const m = NAME.exec(src.slice(i + 2));
      const top = stack.pop();
      if (!m || !top || m[0] !== top.name) fail(`closing tag </${m?.[0] ?? ''}> does not match <${top?.name ?? ''}>`);
      i += 2 + m![0].length;
      while (/\s/.test(src[i] ?? '')) i++;
      if (src[i] !== '>') fail('expected ">"');
      i++;
    } else if (src.startsWith('<!', i) || src.startsWith('<?', i)) {
      fail('DOCTYPE or processing instruction not supported');
    } else {
      const m = NAME.exec(src.slice(i + 1));
      if (!m) fail('bad element name');
      const el: XmlElement = { name: m![0], attrs: {}, children: [], text: '' };
      i += 1 + el.name.length;
      for (;;) {
        const ws = /^\s*/.exec(src.slice(i))![0].length;
        i += ws;
        if (src.startsWith('/>', i) || src[i] === '>') break;
        if (ws === 0) fail('expected whitespace before an attribute');
        const a = NAME.exec(src.slice(i));
        if (!a) fail('bad attribute name');
        i += a![0].length;
        const eq = /^\s*=\s*/.exec(src.slice(i));
        if (!eq) fail('expected "=" after an attribute name');
        i += eq![0].length;
        const q = src[i];
        if (q !== '"' && q !== "'") fail('attribute value not quoted');
        const end = src.indexOf(q!, i + 1);
        if (end === -1) fail('unterminated attribute value');
        const raw = src.slice(i + 1, end);
        if (raw.includes('<')) fail('"<" in an attribute value');
        if (a![0] in el.attrs) fail(`repeated attribute ${a![0]}`);
        // Literal white space is normalised to spaces; character references (&#10;) survive, as in real parsers.
        el.attrs[a![0]] = decode(raw.replace(/[\t\n\r]/g, ' '), i);
        i = end + 1;
      }
      const selfClosing = src.startsWith('/>', i);
      i += selfClosing ? 2 : 1;
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(el);
      else if (root) fail('a second root element');
      else root = el;
      if (!selfClosing) stack.push(el);
    }
  }
  if (stack.length > 0) throw new XmlError(`unclosed element <${stack[stack.length - 1]!.name}>`);
  if (!root) throw new XmlError('no root element');
  return root;
}

/** Every descendant element with this name, in document order. */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (const c of el.children) {
    if (c.name === name) out.push(c);
    out.push(...findAll(c, name));
  }
  return out;
}
