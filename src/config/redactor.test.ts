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
});
