import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keysNamedBy, refuseKeysOnArgv } from './argv-keys.js';

const dir = mkdtempSync(join(tmpdir(), 'petload-argv-'));
const file = join(dir, 'keys.json');
writeFileSync(file, JSON.stringify({ keys: [{ key: 'sk_file_0123456789', plan: 'free' }] }));
const envText = JSON.stringify({ keys: [{ key: 'sk_env_0123456789', plan: 'pro' }] });
const keysFromFile = await keysNamedBy(['--keys-file', file], {});

describe('keysNamedBy', () => {
  it.each([
    ['--keys-file F', ['run', 'x', '--keys-file', file], {}, 'sk_file_0123456789'],
    ['--keys-file=F', ['run', 'x', `--keys-file=${file}`], {}, 'sk_file_0123456789'],
    ['--keysFile F', ['run', 'x', '--keysFile', file], {}, 'sk_file_0123456789'],
    ['PETLOAD_KEYS_FILE', ['run', 'x'], { PETLOAD_KEYS_FILE: file }, 'sk_file_0123456789'],
    ['PETLOAD_KEYS', ['run', 'x'], { PETLOAD_KEYS: envText }, 'sk_env_0123456789'],
    [
      '--keys-file before the environment',
      ['run', 'x', '--keys-file', file],
      { PETLOAD_KEYS: envText },
      'sk_file_0123456789',
    ],
  ])('reads the keys named by %s', async (_how, argv, env, secret) => {
    expect((await keysNamedBy(argv, env)).map((k) => k.secret)).toEqual([secret]);
  });

  it('gives none for a source it cannot read: the command reports that', async () => {
    expect(await keysNamedBy(['run', '--keys-file', join(dir, 'missing.json')], {})).toEqual([]);
    expect(await keysNamedBy(['run'], { PETLOAD_KEYS: '{not json' })).toEqual([]);
    expect(await keysNamedBy(['run', '--keys-file'], {})).toEqual([]);
  });

  it('gives none when nothing names a source', async () => {
    expect(await keysNamedBy(['list', 'probes'], {})).toEqual([]);
    expect(await keysNamedBy(['run', 'smoke'], { PETLOAD_KEYS_FILE: '', PETLOAD_KEYS: '' })).toEqual([]);
  });
});

describe('refuseKeysOnArgv', () => {
  const keys = keysFromFile;

  it('refuses an argument holding a key, naming it by label and position only', () => {
    expect(() => refuseKeysOnArgv(['run', 'smoke', '--report-dir', 'out-sk_file_0123456789'], keys)).toThrow(
      /^argument 4 of the command line contains the API key free#1 \(…6789\); keys are never given on the command line/,
    );
    try {
      refuseKeysOnArgv(['sk_file_0123456789'], keys);
    } catch (e) {
      expect((e as Error).message).not.toContain('sk_file');
      expect((e as { code: string }).code).toBe('E_KEYS_ON_ARGV');
    }
  });

  it('lets through a command line without keys', () => {
    expect(() => refuseKeysOnArgv(['run', 'smoke', '--keys-file', file], keys)).not.toThrow();
  });
});
