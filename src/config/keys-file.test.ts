import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PetloadError } from '../core/errors.js';
import { layerFigures, PLANS, PUBLISHED_FIGURES } from '../api/plans.js';
import { loadKeysFile, parseKeyEntriesText, parseKeysText, resolveKeys } from './keys-file.js';

const SECRET = 'sk_live_0123456789abcdef';

/** The message of the error parsing `text` throws. */
function problem(text: string): string {
  try {
    parseKeysText(text, 'keys.json');
  } catch (e) {
    expect(e).toBeInstanceOf(PetloadError);
    expect((e as PetloadError).code).toBe('E_KEYS_FILE');
    expect((e as PetloadError).exitCode).toBe(2);
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('broken keys files: each problem names the file, where, what was expected and what was found', () => {
  it.each([
    [
      'a trailing comma',
      `{"keys":[{"key":"${SECRET}","plan":"free",}]}`,
      'keys.json:1:58: not valid JSON: expected a property name in double quotes, found "}" (a trailing comma before it is not allowed in JSON)',
    ],
    [
      'a missing comma',
      `{"keys":[{"key":"${SECRET}" "plan":"free"}]}`,
      'keys.json:1:44: not valid JSON: expected "," or "}" after a value in an object, found a string',
    ],
    [
      'an unquoted key',
      `{\n  "keys": [{"key": ${SECRET}, "plan": "free"}]\n}`,
      'keys.json:2:20: not valid JSON: expected a value (a string, number, object, list, true, false or null), found an unquoted word',
    ],
    [
      'an empty file',
      '',
      'keys.json:1:1: not valid JSON: expected a value (a string, number, object, list, true, false or null), found the end of the file',
    ],
    [
      'a misspelt field',
      `{"keys":[{"key":"${SECRET}","plna":"free"}]}`,
      'keys[0]: expected one of the keys key, plan, label, perMinute, perDay, tolerance, sacrificial, audit, found an unknown key (its name is not shown) (did you mean "plan"?)',
    ],
    [
      'a misspelt plan',
      `{"keys":[{"key":"${SECRET}","plan":"fre"}]}`,
      'keys[0].plan: expected one of free, pro, business, enterprise, found a string of 3 characters (not shown) (did you mean "free"?)',
    ],
    [
      'a misspelt top-level key',
      '{"kyes":[]}',
      '(top level): expected one of the keys keys, found an unknown key (its name is not shown) (did you mean "keys"?)',
    ],
    ['no keys', '{"keys":[]}', 'keys: expected at least one key, found an empty list'],
    [
      'a list at the top',
      '[]',
      '(top level): expected a mapping such as {"keys": [{"key": "…", "plan": "free"}]}, found a list',
    ],
    [
      'an enterprise key without figures',
      `{"keys":[{"key":"${SECRET}","plan":"enterprise","perDay":5}]}`,
      "keys[0].perMinute: expected perMinute (the key's requests per minute) on this enterprise key, or enterprise's perMinute in a plans file (--plans-file) or the scenario's planLimits (enterprise has no published figures), found nothing",
    ],
    [
      'a figure of zero',
      `{"keys":[{"key":"${SECRET}","plan":"pro","perMinute":0}]}`,
      'keys[0].perMinute: expected a whole number of requests per minute above 0, found a number (not shown)',
    ],
    [
      'a fraction',
      `{"keys":[{"key":"${SECRET}","plan":"pro","perDay":2.5}]}`,
      'keys[0].perDay: expected a whole number of requests per day above 0, found a number (not shown)',
    ],
    [
      'sacrificial as a string',
      `{"keys":[{"key":"${SECRET}","plan":"free","sacrificial":"yes"}]}`,
      'keys[0].sacrificial: expected true or false, found a string of 3 characters (not shown)',
    ],
    [
      'a short key',
      '{"keys":[{"key":"sk_1234","plan":"free"}]}',
      'keys[0].key: expected a key of at least 8 characters, found a string of 7 characters (not shown)',
    ],
    [
      "a key that is a plan's name",
      '{"keys":[{"key":"business","plan":"pro"}]}',
      'keys[0].key: expected a secret key, not the name of a plan, found a string of 8 characters (not shown)',
    ],
    [
      'a key with a space',
      '{"keys":[{"key":"sk_live 0123456789","plan":"free"}]}',
      'keys[0].key: expected a key of printable ASCII characters without spaces, found a string of 18 characters (not shown)',
    ],
    [
      'a key twice',
      `{"keys":[{"key":"${SECRET}","plan":"free"},{"key":"${SECRET}","plan":"pro"}]}`,
      'keys[1].key: expected each key once, found the same key as keys[0].key',
    ],
  ])('%s', (_what, text, expected) => {
    const message = problem(text);
    expect(message).toContain(expected);
    expect(message.startsWith('keys.json')).toBe(true);
  });

  it('never shows a key, whatever is wrong around it', () => {
    for (const text of [
      `{"keys":[{"key":${SECRET}}]}`,
      `{"keys":[{"key":"${SECRET}","plan":"gold"}]}`,
      `{"keys":[{"key":"${SECRET} x","plan":"free"}]}`,
      `{"keys":[{"key":"${SECRET}"`,
    ]) {
      expect(problem(text)).not.toContain('0123456789');
    }
  });

  it('reads a file that starts with a byte-order mark', () => {
    expect(parseKeysText(`\uFEFF{"keys":[{"key":"${SECRET}","plan":"free"}]}`, 'keys.json')[0]!.plan).toBe('free');
  });

  it('names a file it cannot read, and why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-keys-'));
    expect(() => loadKeysFile(join(dir, 'missing.json'))).toThrow(/missing\.json: cannot read keys file \(ENOENT\)/);
    expect(() => loadKeysFile(dir)).toThrow(/cannot read keys file \(EISDIR\)/);
    writeFileSync(join(dir, 'k.json'), '{"keys":[{"key":"sk_live_0123456789","plan":"free"}]}');
    expect(loadKeysFile(join(dir, 'k.json'))).toHaveLength(1);
  });
});

describe("figures: a key's own, else its plan's", () => {
  const doc = (entries: object[]) => JSON.stringify({ keys: entries.map((e, i) => ({ key: `${SECRET}${i}`, ...e })) });

  it('takes the published figures of a key without its own', () => {
    expect(
      parseKeysText(doc([{ plan: 'free' }, { plan: 'pro' }, { plan: 'business' }]), 'k').map((k) => k.limits),
    ).toEqual([PLANS.free, PLANS.pro, PLANS.business]);
  });

  it("takes a key's own figures on any plan, either figure keeping the plan's other", () => {
    const [pro, free] = parseKeysText(
      doc([
        { plan: 'pro', perMinute: 600 },
        { plan: 'free', perMinute: 30, perDay: 500 },
      ]),
      'k',
    );
    expect(pro!.limits).toEqual({ perMinute: 600, perDay: PLANS.pro.perDay });
    expect(free!.limits).toEqual({ perMinute: 30, perDay: 500 });
  });

  it("takes a key's declared tolerance, else its plan's in the run's table; none by default", () => {
    const table = layerFigures(PUBLISHED_FIGURES, { pro: { tolerance: 0.05 } });
    const keys = parseKeysText(doc([{ plan: 'pro' }, { plan: 'pro', tolerance: '10%' }, { plan: 'free' }]), 'k', table);
    expect(keys.map((k) => k.limits.tolerance)).toEqual([0.05, 0.1, undefined]);
  });

  it("takes a plan's figures from the run's table, under a key's own", () => {
    const table = layerFigures(PUBLISHED_FIGURES, {
      pro: { perMinute: 450 },
      enterprise: { perMinute: 7000, perDay: 900_000 },
    });
    const keys = parseKeysText(
      doc([{ plan: 'pro' }, { plan: 'pro', perDay: 20_000 }, { plan: 'enterprise' }]),
      'k',
      table,
    );
    expect(keys.map((k) => k.limits)).toEqual([
      { perMinute: 450, perDay: PLANS.pro.perDay },
      { perMinute: 450, perDay: 20_000 },
      { perMinute: 7000, perDay: 900_000 },
    ]);
  });

  it('reads entries without resolving figures, so that an enterprise key needs none to be found', () => {
    const entries = parseKeyEntriesText(doc([{ plan: 'enterprise' }]), 'k');
    expect(entries[0]).toMatchObject({ plan: 'enterprise', own: {} });
    expect(() => resolveKeys(entries, 'keys.json')).toThrow(
      /^keys\.json: invalid keys file\n {2}keys\[0\]\.perMinute: expected perMinute .*\n {2}keys\[0\]\.perDay: expected perDay/,
    );
  });
});
