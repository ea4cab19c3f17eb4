/**
 * Input errors through the real CLI: a bad flag, scenario file or keys file gives one line naming where the
 * problem is, what was expected and what was found (a did-you-mean for misspellings), a hint, exit code 2 and
 * no stack trace. The tables of broken files and flags are unit tests (src/config/keys-file.test.ts,
 * src/config/load-scenario.test.ts, src/cli/usage.test.ts, src/cli/run-flags.test.ts, src/engine/target.test.ts);
 * this checks that each way an error is raised (yargs, a command's check, its handler) reaches the user so.
 */
import { describe, expect, it } from 'vitest';
import { runCli, scratch, STACK_LINE } from '../testing/cli.js';

const s = scratch('petload-input-');
const keys = s.keys([{ key: 'SECRET-free-0123456789abcdef', plan: 'free' }]);
const badKeys = s.file('bad-keys.json', '{"keys":[{"key":"SECRET-free-0123456789abcdef","plna":"free"}]}');
const badScenario = s.file(
  'bad.yaml',
  'name: bad\ndescription: a typo\nload:\n  phases:\n    - { executor: constant-rat, rate: 10/s, duration: 1m }\n',
);
const target = ['--target', 'http://127.0.0.1:9/v1', '--keys-file', keys];

describe.concurrent('each input error is one clear line, a hint and exit 2', () => {
  it.each([
    ['an unknown command', ['rnu', 'smoke'], 'unknown command "rnu" (did you mean "run"?)', 'See `petload --help`.'],
    [
      'an unknown option',
      ['run', 'smoke', '--treshold', 'x'],
      'unknown option --treshold (did you mean "--threshold"?)',
      'See `petload run --help`.',
    ],
    [
      'an unknown option of a command other than run',
      ['compare', 'a.json', 'b.json', '--alow-different'],
      'unknown option --alow-different (did you mean "--allow-different"?)',
      'See `petload compare --help`.',
    ],
    [
      'a bad --plan',
      ['run', 'smoke', '--plan', 'buisness'],
      '--plan: expected one of free, pro, business, enterprise, found "buisness" (did you mean "business"?)',
      'See `petload run --help`.',
    ],
    [
      '--time-scale with --target',
      ['run', 'smoke', ...target, '--time-scale', '60'],
      '--time-scale applies to the embedded reference server only, not to --target',
      'See `petload --help`.',
    ],
    [
      '--ban-threshold with --target',
      ['run', 'ban-probe', ...target, '--ban-threshold', '3'],
      '--ban-threshold applies to the embedded reference server only, not to --target',
      'See `petload --help`.',
    ],
    [
      'a bad --ban-seconds',
      ['run', 'ban-probe', '--ban-seconds', '15m'],
      '--ban-seconds: expected a number of seconds above 0 and at most 86400, such as 900, found "15m"',
      'See `petload --help`.',
    ],
    [
      'a bad --rate',
      ['run', 'at-limit', '--rate', '10/sec'],
      '--rate "10/sec": expected a rate such as 10/s',
      'See `petload --help`.',
    ],
    [
      'a broken scenario file',
      ['run', badScenario],
      `bad.yaml:5:19 load.phases[0].executor: expected one of constant-rate, ramping-rate, concurrency, burst, saturate, found "constant-rat" (did you mean "constant-rate"?)`,
      'Check the scenario file',
    ],
    [
      'a broken keys file',
      ['run', 'smoke', '--target', 'http://127.0.0.1:9/v1', '--keys-file', badKeys],
      'keys[0]: expected one of the keys key, plan, label, perMinute, perDay, tolerance, sacrificial, audit, found an unknown key (its name is not shown) (did you mean "plan"?)',
      'See README.md ("Keys file").',
    ],
  ])('%s', async (_what, args, expected, hint) => {
    const r = await runCli(args, { env: { PETLOAD_KEYS_FILE: '', PETLOAD_KEYS: '' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr.startsWith('petload: ')).toBe(true);
    expect(r.stderr).toContain(expected);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(new RegExp(`^  hint: ${hint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
});
