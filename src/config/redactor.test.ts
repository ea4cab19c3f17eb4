import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseKeys } from './keys-file.js';
import { createRedactor, cutMinFor } from './redactor.js';

const SECRET = 'sk_live_0123456789abcdef';
const keysOf = (...ks: [string, string][]) => parseKeys({ keys: ks.map(([key, plan]) => ({ key, plan })) }, 'k');

describe('createRedactor', () => {
  const keys = keysOf([SECRET, 'free']);
  const label = `[key ${keys[0]!.label}]`;

  it('replaces every occurrence of every key by its label', () => {
    const two = keysOf([SECRET, 'free'], ['sk_other_key_99', 'pro']);
    const redact = createRedactor(two);
    expect(redact(`a ${SECRET} b ${SECRET} sk_other_key_99`)).toBe(
      `a [key ${two[0]!.label}] b [key ${two[0]!.label}] [key ${two[1]!.label}]`,
    );
  });

  it('hides a cut piece of a key where an excerpt ends, when it is long enough to be unmistakable', () => {
    const redact = createRedactor(keys);
    // 24 characters: a piece of 12 or more (half the key, and at least 8) before the cut mark.
    expect(cutMinFor(SECRET.length)).toBe(12);
    expect(redact(`Bearer ${SECRET.slice(0, 12)}…`)).toBe(`Bearer ${label}…`);
    expect(redact(`Bearer ${SECRET.slice(0, 23)}… and on`)).toBe(`Bearer ${label}… and on`);
    expect(redact(`Bearer ${SECRET.slice(0, 11)}…`)).toBe(`Bearer ${SECRET.slice(0, 11)}…`);
  });

  it('never touches a start of a key that is not at a cut: not at the end of a text, not in the middle', () => {
    const redact = createRedactor(keys);
    for (const text of [`x ${SECRET.slice(0, 20)}`, `${SECRET.slice(0, 20)} and more`, SECRET.slice(0, 23)])
      expect(redact(text)).toBe(text);
  });

  it('leaves plan names, words and numbers alone even when keys begin with them', () => {
    const ks = keysOf(
      ['free-key-1', 'free'],
      ['pro-key-1', 'pro'],
      ['business-key-1', 'business'],
      ['12345678', 'pro'],
      ['password123', 'free'],
    );
    const redact = createRedactor(ks);
    for (const text of [
      'free',
      'pro',
      'business',
      'free-key',
      'plan free…',
      'pro-key…',
      '1234567',
      '12345678901',
      'password',
      'free#1 (…ey-1)',
    ]) {
      expect(redact(text)).toBe(text === '12345678901' ? `[key ${ks[3]!.label}]901` : text);
    }
    // A piece of at least 8 characters and half the key before a cut mark is hidden; the whole key always.
    expect(redact('x business-k…')).toBe(`x [key ${ks[2]!.label}]…`);
    expect(redact('x business…')).toBe('x business…'.replace('business', `[key ${ks[2]!.label}]`));
    expect(redact('{"k":"free-key-1"}')).toBe(`{"k":"[key ${ks[0]!.label}]"}`);
  });

  it('never reads a label it put in as a key (one pass over the original text)', () => {
    // The second key is the first one's label text: it must not be replaced inside the first one's label.
    const ks = parseKeys(
      {
        keys: [
          { key: 'AAAAAAAAAA', plan: 'free', label: 'BBBBBBBBBB' },
          { key: 'BBBBBBBBBB', plan: 'pro', label: 'x' },
        ],
      },
      'k',
    );
    expect(createRedactor(ks)('AAAAAAAAAA')).toBe(`[key ${ks[0]!.label}]`);
  });

  it('whole() replaces whole keys and nothing else', () => {
    const redact = createRedactor(keys);
    expect(redact.whole(`a ${SECRET} b ${SECRET.slice(0, 20)}…`)).toBe(`a ${label} b ${SECRET.slice(0, 20)}…`);
  });

  it('property: no key survives, and text without a key or a cut piece of one is unchanged', () => {
    const keyArb = fc.stringMatching(/^[\x21-\x7e]{8,40}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(keyArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.string({ maxLength: 30 }), { maxLength: 6 }),
        (secrets, fillers) => {
          const ks = keysOf(...secrets.map((s, i): [string, string] => [s, i % 2 === 0 ? 'free' : 'pro']));
          const redact = createRedactor(ks);
          const text = fillers.map((f, i) => `${f}${secrets[i % secrets.length]}`).join(' ');
          const out = redact(text);
          for (const s of secrets) expect(out.includes(s)).toBe(false);
          // A text that holds no key and no cut mark comes back as it was.
          const plain = fillers.join(' ').replaceAll('…', '');
          if (!secrets.some((s) => plain.includes(s))) expect(redact(plain)).toBe(plain);
        },
      ),
      { numRuns: 300 },
    );
  });

  describe('keys echoed inside JSON strings, in any escape JSON allows', () => {
    const KEY = 'sk_live_0a1b2c3d/4e5f6a7b+8c9d0e1f';
    const ks = keysOf([KEY, 'pro']);
    const label = `[key ${ks[0]!.label}]`;
    const redact = createRedactor(ks);
    /** JSON's escape of one character, as \uXXXX in upper or lower case. */
    const u = (c: string, upper: boolean) => {
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    };

    it.each([
      ['PHP json_encode (\\/)', KEY.replace('/', '\\/')],
      ['.NET (\\u002B)', KEY.replace('+', u('+', true))],
      ['lower-case hex (\\u002f, \\u002b)', KEY.replace('/', u('/', false)).replace('+', u('+', false))],
      ['every character escaped', [...KEY].map((c, i) => u(c, i % 2 === 0)).join('')],
      ['escaped twice (a JSON body quoted in JSON)', KEY.replace('/', '\\\\\\/').replace('+', '\\\\u002B')],
    ])('%s', (_how, echoed) => {
      const text = `{"message":"you sent Bearer ${echoed}","status":0}`;
      expect(redact(text)).toBe(`{"message":"you sent Bearer ${label}","status":0}`);
      expect(redact.whole(text)).toBe(`{"message":"you sent Bearer ${label}","status":0}`);
    });

    it('hides a cut piece that ends inside an escape', () => {
      const echoed = KEY.replace('/', '\\/').replace('+', '\\u002B');
      // Cut after `\\u00` of the escaped `+`: the 25 characters before it are more than half the key.
      const cut = `${echoed.slice(0, echoed.indexOf('\\u') + 4)}…`;
      expect(redact(`Bearer ${cut}`)).toBe(`Bearer ${label}…`);
    });

    it('changes nothing else: escapes that decode to no key stay as they were', () => {
      const text = '{"a":"x\\/y \\u002B \\n \\\\ \\"q\\" sk_live_0a1b2c3d\\/4e5f"}';
      expect(redact(text)).toBe(text);
      expect(redact.whole(text)).toBe(text);
    });
  });

  describe('keys echoed percent-encoded, as HTML character references, in base64', () => {
    const KEY = 'sk_live_0a1b2c3d/4e5f6a7b+8c9d&0e1f';
    const ks = keysOf([KEY, 'pro']);
    const label = `[key ${ks[0]!.label}]`;
    const redact = createRedactor(ks);
    const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');
    const b64 = (t: string) => Buffer.from(t).toString('base64');

    it.each([
      ['percent-encoded, upper-case hex (encodeURIComponent)', encodeURIComponent(KEY)],
      ['percent-encoded, lower-case hex', encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())],
      ['percent-encoded, every character', [...KEY].map((c) => `%${hex(c)}`).join('')],
      ['percent-encoded, only one character', KEY.replace('+', '%2b')],
      ['percent-encoded twice', KEY.replace('+', '%252B').replace('/', '%252f')],
      ['HTML, hex references', [...KEY].map((c) => `&#x${hex(c).toUpperCase()};`).join('')],
      ['HTML, decimal references', [...KEY].map((c) => `&#${c.charCodeAt(0)};`).join('')],
      ['HTML, named references', KEY.replace('&', '&amp;').replace('/', '&sol;').replace('+', '&plus;')],
      ['HTML inside JSON', KEY.replace('&', '\\u0026amp;')],
      ['JSON inside a query', KEY.replace('/', '%5C%2F')],
    ])('%s', (_how, echoed) => {
      expect(echoed).not.toContain(KEY);
      const text = `GET /echo?k=${echoed}&x=1 "quoted ${echoed}"`;
      expect(redact(text)).toBe(`GET /echo?k=${label}&x=1 "quoted ${label}"`);
      expect(redact.whole(text)).toBe(`GET /echo?k=${label}&x=1 "quoted ${label}"`);
    });

    it.each([
      ['the key', ''],
      ['`:key` (a Basic credential with no user)', ':'],
      ['`user:key`', 'user:'],
      ['`a-user:key`', 'a-user:'],
    ])('base64 of %s', (_how, user) => {
      for (const tail of ['', ':']) {
        const encoded = b64(`${user}${KEY}${tail}`);
        const out = redact(
          `Authorization: Basic ${encoded}, again ${encoded.replaceAll('+', '-').replaceAll('/', '_')}`,
        );
        expect(out).toContain(label);
        expect(out.split(label).length).toBe(3);
        // What is left around the label is the user's base64, the `:`'s and padding: no bit of the key.
        const tokens = out
          .replaceAll(label, '@')
          .split(' ')
          .filter((t) => t.includes('@'));
        expect(tokens.length).toBe(2);
        for (const token of tokens) {
          const [before, after] = token.replace(',', '').split('@') as [string, string];
          expect(before.length).toBeLessThanOrEqual(Math.floor((user.length * 8) / 6));
          // The trailing `:`'s own bits: two characters at most.
          expect(after).toMatch(tail === '' ? /^=*$/ : /^[A-Za-z0-9+/_-]{1,2}=*$/);
        }
      }
    });

    it('hides a cut piece that ends inside a percent-encoding or a character reference', () => {
      const percent = KEY.replace('+', '%2B');
      expect(redact(`k=${percent.slice(0, percent.indexOf('%') + 2)}…`)).toBe(`k=${label}…`);
      const html = KEY.replace('+', '&#x2B;');
      expect(redact(`k=${html.slice(0, html.indexOf('&') + 4)}…`)).toBe(`k=${label}…`);
    });

    it('changes nothing else: encodings of other text, or of a start of the key, stay as they were', () => {
      for (const text of [
        '100% of 50%2 and %zz, %41%42',
        'a &amp; b &lt;c&gt; &#x41; &#66; &nosuch; &#xFFFFFF;',
        `k=${encodeURIComponent(KEY.slice(0, -1))} and ${encodeURIComponent(KEY.slice(1))}`,
        `k=${KEY.slice(0, -1).replace('+', '&plus;')}`,
        `Basic ${b64(`user:${KEY.slice(0, -1)}`)} and ${b64(KEY.slice(1))}`,
        `${b64('sk_live_0a1b2c3d')} ${'%AB'.repeat(4)}`,
      ]) {
        expect(redact(text)).toBe(text);
        expect(redact.whole(text)).toBe(text);
      }
    });
  });

  it('finds each of thousands of keys in one pass over the text', () => {
    const many = keysOf(
      ...Array.from({ length: 3000 }, (_, i): [string, string] => [`keyid-${i}-${'x'.repeat(i % 7)}z`, 'free']),
    );
    const redact = createRedactor(many);
    const text = `a keyid-17-xxxz b keyid-2995-xxxxxxz c keyid-17-xxxz keyid-300z…`;
    expect(redact(text)).toBe(
      `a [key ${many[17]!.label}] b [key ${many[2995]!.label}] c [key ${many[17]!.label}] keyid-300z…`,
    );
    expect(redact(`${'-'.repeat(50)} keyid-2995-xxxxx…`)).toBe(`${'-'.repeat(50)} [key ${many[2995]!.label}]…`);
  });
});
