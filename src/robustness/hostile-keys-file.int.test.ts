/**
 * Hostile keys documents through the real CLI (`run --dry-run`, PETLOAD_KEYS, PETLOAD_KEYS_FILE, `serve`): keys
 * shaped like real secrets put where the format expects something else (a bare string, a name, a plan, a number,
 * a label too long), a file of 200 000 unclosed `[`, more keys than a file may hold. Each gives exit 2 and
 * E_KEYS_FILE's message, naming where and what shape was expected, with no stack trace and without any piece
 * of the key (no 8 characters of it in a row) on stdout or stderr.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli, scratch, STACK_LINE } from '../testing/cli.js';

/** `sk_live_` and 24 hex digits, as a payment provider's live key looks. */
const liveKey = () => `sk_live_${randomBytes(12).toString('hex')}`;

/** Every run of 8 characters of `secret` that appears in `text`. */
function pieces(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let k = 0; k + 8 <= secret.length; k++)
    if (text.includes(secret.slice(k, k + 8))) found.push(secret.slice(k, k + 8));
  return found;
}

const DRY_RUN = ['run', 'smoke', '--target', 'http://127.0.0.1:9/v1', '--dry-run'];
const NO_KEYS_ENV = { PETLOAD_KEYS_FILE: '', PETLOAD_KEYS: '' };

describe.concurrent('a keys document never shows what it holds', () => {
  const s = scratch('petload-hostile-keys-');
  const k = [liveKey(), liveKey(), liveKey(), liveKey(), liveKey(), liveKey()];

  it.each([
    {
      how: 'keys in every wrong place of one file (run --keys-file)',
      args: () => [
        ...DRY_RUN,
        '--keys-file',
        s.file(
          'wrong-places.json',
          JSON.stringify({
            keys: [
              k[0],
              { [k[1]!]: 'free', plan: 'free' },
              { key: 'sk_test_0000aaaa', plan: k[2] },
              { key: 'sk_test_0000bbbb', plan: 'pro', perMinute: k[3] },
              { key: 'sk_test_0000cccc', plan: 'pro', label: `${k[4]} ${k[4]}` },
            ],
            [k[5]!]: true,
          }),
        ),
      ],
      env: NO_KEYS_ENV,
      secrets: k,
      expected: [
        'wrong-places.json: invalid keys file',
        'keys[0]: expected a mapping such as {"key": "…", "plan": "free"}, found a string of 32 characters (not shown)',
        'keys[1]: expected one of the keys key, plan, label, perMinute, perDay, tolerance, sacrificial, audit, found an unknown key (its name is not shown)',
        'keys[2].plan: expected one of free, pro, business, enterprise, found a string of 32 characters (not shown)',
        'keys[3].perMinute: expected a whole number of requests per minute above 0, found a string of 32 characters (not shown)',
        'keys[4].label: expected a string of at most 40 characters, found a string of 65 characters (not shown)',
        '(top level): expected one of the keys keys, found an unknown key (its name is not shown)',
      ],
    },
    {
      how: 'PETLOAD_KEYS holding {"keys":"<key>"}',
      args: () => DRY_RUN,
      env: { PETLOAD_KEYS_FILE: '', PETLOAD_KEYS: JSON.stringify({ keys: k[0] }) },
      secrets: [k[0]!],
      expected: [
        'PETLOAD_KEYS: invalid keys file',
        'keys: expected a list of keys such as [{"key": "…", "plan": "free"}], found a string of 32 characters (not shown)',
      ],
    },
    {
      how: 'PETLOAD_KEYS holding the key itself',
      args: () => DRY_RUN,
      env: { PETLOAD_KEYS_FILE: '', PETLOAD_KEYS: k[1] },
      secrets: [k[1]!],
      expected: ['PETLOAD_KEYS:1:1: not valid JSON: expected a value', 'found an unquoted word'],
    },
    {
      how: 'PETLOAD_KEYS_FILE naming a file that is the key as a JSON string',
      args: () => DRY_RUN,
      env: { PETLOAD_KEYS: '', PETLOAD_KEYS_FILE: s.file('bare.json', JSON.stringify(k[2])) },
      secrets: [k[2]!],
      expected: [
        'bare.json: invalid keys file',
        '(top level): expected a mapping such as {"keys": [{"key": "…", "plan": "free"}]}, found a string of 32 characters (not shown)',
      ],
    },
    {
      how: 'petload serve --keys-file with the key as a property name and in a plan',
      args: () => [
        'serve',
        '--port',
        '0',
        '--keys-file',
        s.file('serve.json', JSON.stringify({ keys: [{ key: 'sk_test_0000dddd', [k[3]!]: 1, plan: k[4] }] })),
      ],
      env: NO_KEYS_ENV,
      secrets: [k[3]!, k[4]!],
      expected: [
        'serve.json: invalid keys file',
        'keys[0].plan: expected one of free, pro, business, enterprise, found a string of 32 characters (not shown)',
        'keys[0]: expected one of the keys key, plan, label, perMinute, perDay, tolerance, sacrificial, audit, found an unknown key (its name is not shown)',
      ],
    },
    {
      how: 'a property name of 3 million characters (no did-you-mean is computed for it)',
      args: () => [
        ...DRY_RUN,
        '--keys-file',
        s.file(
          'long-name.json',
          JSON.stringify({ keys: [{ key: k[0], plan: 'free', [`${k[1]}${'x'.repeat(3e6)}`]: 1 }] }),
        ),
      ],
      env: NO_KEYS_ENV,
      secrets: [k[0]!, k[1]!],
      expected: [
        'keys[0]: expected one of the keys key, plan, label, perMinute, perDay, tolerance, sacrificial, audit, found an unknown key (its name is not shown)',
      ],
    },
    {
      how: 'a key twice',
      args: () => [
        ...DRY_RUN,
        '--keys-file',
        s.keys([
          { key: k[5]!, plan: 'free' },
          { key: k[5]!, plan: 'pro' },
        ]),
      ],
      env: NO_KEYS_ENV,
      secrets: [k[5]!],
      expected: ['keys[1].key: expected each key once, found the same key as keys[0].key'],
    },
  ])('$how', async ({ args, env, secrets, expected }) => {
    const r = await runCli(args(), { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^petload: /);
    expect(r.stderr).not.toMatch(STACK_LINE);
    for (const line of expected) expect(r.stderr).toContain(line);
    for (const secret of secrets) expect(pieces(`${r.stdout}\n${r.stderr}`, secret)).toEqual([]);
  });

  it('200 000 unclosed "[" are a syntax error at the end of the file, not a stack overflow', async () => {
    const file = s.file('deep.json', `{"keys": ${'['.repeat(200_000)}`);
    const r = await runCli([...DRY_RUN, '--keys-file', file], { env: NO_KEYS_ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr).toContain(
      'deep.json:1:200010: not valid JSON: expected a value (a string, number, object, list, true, false or null), found the end of the file',
    );
  });

  it('more keys than a keys file may hold are refused before they are validated', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => ({
      key: `sk_test_${String(i).padStart(8, '0')}`,
      plan: 'free',
    }));
    const r = await runCli([...DRY_RUN, '--keys-file', s.file('many.json', JSON.stringify({ keys: many }))], {
      env: NO_KEYS_ENV,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('many.json: invalid keys file\n  keys: expected at most 10000 keys, found 10001');
    expect(r.stderr).not.toContain('sk_test_');
  });

  it('a keys file bigger than 4 MiB is not read', async () => {
    const big = s.file('big.json', `{"keys": [${' '.repeat(5 * 1024 * 1024)}]}`);
    const r = await runCli([...DRY_RUN, '--keys-file', big], { env: NO_KEYS_ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'big.json: not read as a keys file: expected at most 4.0 MiB (10000 keys at most), found 5.0 MiB',
    );
  });
});
