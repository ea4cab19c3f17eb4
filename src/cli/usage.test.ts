import { describe, expect, it } from 'vitest';
import { rewriteUsage, usageError } from './usage.js';

const commands = ['run', 'list', 'validate', 'report', 'merge', 'serve'];
const usages = { run: 'run <scenarios..>', list: 'list <what>', serve: 'serve' };
const runOptions = ['help', 'version', 'target', 'keys-file', 'plan', 'threshold', 'timeout', 'quiet'];
const ctx = (argv: string[], options = runOptions) => ({ argv, commands, usages, options });

describe('rewriteUsage: yargs messages as one line', () => {
  it.each([
    [
      'Did you mean run?',
      ['rnu', 'smoke'],
      'unknown command "rnu" (did you mean "run"?); the commands are run, list, validate, report, merge, serve',
    ],
    [
      'Did you mean run?',
      ['frob'],
      'unknown command "frob"; the commands are run, list, validate, report, merge, serve',
    ],
    [
      'Unknown argument: frob',
      ['frob'],
      'unknown command "frob"; the commands are run, list, validate, report, merge, serve',
    ],
    [
      'Unknown arguments: treshold, treshold',
      ['run', 'smoke', '--treshold', 'x'],
      'unknown option --treshold (did you mean "--threshold"?)',
    ],
    ['Unknown arguments: frob-nicate, frobNicate', ['run', 'smoke', '--frob-nicate'], 'unknown option --frob-nicate'],
    [
      'Unknown arguments: tiemout',
      ['run', 'smoke', '--tiemout=5'],
      'unknown option --tiemout (did you mean "--timeout"?)',
    ],
    [
      'Unknown argument: extra',
      ['serve', 'extra'],
      'unexpected argument "extra" (petload serve takes no more arguments here)',
    ],
    [
      'Invalid values:\n  Argument: plan, Given: "buisness", Choices: "free", "pro", "business", "enterprise"',
      ['run', 'smoke', '--plan', 'buisness'],
      '--plan: expected one of free, pro, business, enterprise, found "buisness" (did you mean "business"?)',
    ],
    [
      'Invalid values:\n  Argument: plan, Given: "gold", "silver", Choices: "free", "pro"',
      ['run', 'smoke', '--plan', 'gold', 'silver'],
      '--plan: expected one of free, pro, found "gold", "silver"',
    ],
    [
      'Invalid values:\n  Argument: what, Given: "chekcs", Choices: "scenarios", "checks"',
      ['list', 'chekcs'],
      '<what>: expected one of scenarios, checks, found "chekcs" (did you mean "checks"?)',
    ],
    [
      'Not enough non-option arguments: got 0, need at least 1',
      ['run'],
      'run: expected at least 1 argument, found none (usage: petload run <scenarios..>)',
    ],
    [
      'Too many non-option arguments: got 2, maximum of 1',
      ['list', 'a', 'b'],
      'list: expected at most 1 argument, found 2 (usage: petload list <what>)',
    ],
    [
      'Not enough arguments following: timeout',
      ['run', 'smoke', '--timeout'],
      '--timeout: expected a value after it, found none',
    ],
    ['Missing required argument: out', ['merge'], 'missing --out'],
    ['Something new\n  on two lines', ['run'], 'Something new; on two lines'],
  ])('%j for %j', (message, argv, expected) => {
    expect(rewriteUsage(message, ctx(argv))).toBe(expected);
  });
});

describe('usageError', () => {
  it("is a usage error (exit 2) whose hint names the command's help", () => {
    const e = usageError('Unknown arguments: frob', ctx(['run', 'x', '--frob']));
    expect([e.code, e.exitCode, e.hint]).toEqual(['E_USAGE', 2, 'See `petload run --help`.']);
    expect(usageError('Did you mean run?', ctx(['rnu'])).hint).toBe('See `petload --help`.');
  });
});
