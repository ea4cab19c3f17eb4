/**
 * `petload run --shards` refuses, in one line and before sending anything (exit 2): a missing index, an index out of
 * range, more shards than keys of a plan the scenario needs; and the refusal never shows a key.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, scratch, STACK_LINE } from '../testing/cli.js';

describe('petload run --shards refusals', () => {
  const dir = scratch('petload-shard-cli-');
  const secrets = ['sk_pro_a_5f1e0c9b7d3a2e11', 'sk_pro_b_8c2d4e6f0a1b3c22', 'sk_free_a_1a2b3c4d5e6f7a33'];
  const keysFile = dir.keys([
    { key: secrets[0]!, plan: 'pro' },
    { key: secrets[1]!, plan: 'pro' },
    { key: secrets[2]!, plan: 'free' },
  ]);
  // Nothing listens there: every refusal must come before any traffic.
  const target = 'http://127.0.0.1:9/v1';
  afterAll(() => rmSync(dir.dir, { recursive: true, force: true }));

  const cases: [string, string[], NodeJS.ProcessEnv, RegExp][] = [
    [
      'a missing index',
      ['--shards', '2'],
      {},
      /^petload: --shards 2: this shard's index is missing: give --shard-index I \(0 to 1\) or set JOB_COMPLETION_INDEX$/,
    ],
    [
      'an index out of range',
      ['--shards', '2'],
      { JOB_COMPLETION_INDEX: '2' },
      /^petload: JOB_COMPLETION_INDEX: shard index 2 is out of range for --shards 2 \(expected 0 to 1\)$/,
    ],
    [
      'more shards than keys of a plan',
      ['--shards', '2', '--shard-index', '0', '--plan', 'pro', '--plan', 'free'],
      {},
      /^petload: --shards 2: plan free has 1 key, fewer than the shards; each shard needs keys of its own/,
    ],
    [
      '--shards without --target',
      ['--shards', '2', '--shard-index', '0', '--no-target'],
      {},
      /^petload: --shards needs --target/,
    ],
  ];

  for (const [what, flags, env, message] of cases) {
    it(`refuses ${what}`, async () => {
      const noTarget = flags.includes('--no-target');
      const args = [
        'run',
        'smoke',
        '--quiet',
        ...(noTarget ? [] : ['--target', target, '--keys-file', keysFile]),
        ...flags.filter((f) => f !== '--no-target'),
      ];
      const r = await runCli(args, { env: { JOB_COMPLETION_INDEX: '', ...env } });
      expect(r.code).toBe(2);
      const first = r.stderr.split('\n')[0]!;
      expect(first).toMatch(message);
      expect(r.stderr).not.toMatch(STACK_LINE);
      for (const s of secrets) expect(r.stderr + r.stdout).not.toContain(s);
    });
  }
});
