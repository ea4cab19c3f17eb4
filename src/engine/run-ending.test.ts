import { describe, expect, it } from 'vitest';
import { EXIT, PetloadError } from '../core/errors.js';
import { type EndFacts, endingOf, Interrupted } from './run-ending.js';

const quiet: EndFacts = { halt: null, deadline: null, signalAborted: false, everyKeyBanned: false, redact: (t) => t };
const halt = new PetloadError('E_TARGET_NOT_API', 'a keyed 404 to GET /pets: --target lacks /v1');
const deadline = { reason: 'the run deadline passed', exitCode: EXIT.aborted, hint: 'raise --deadline' };

describe('how a run ended (endingOf): one rule, in its order', () => {
  it('completed when nothing stopped it', () => {
    expect(endingOf(quiet)).toEqual({ kind: 'completed' });
  });

  it("1. the run's own halt, whatever the send phase threw while stopping, and over every key banned", () => {
    for (const thrown of [undefined, { error: new Interrupted() }, { error: new Error('boom') }]) {
      const e = endingOf({
        ...quiet,
        halt,
        deadline,
        signalAborted: true,
        everyKeyBanned: true,
        ...(thrown ? { thrown } : {}),
      });
      expect(e).toEqual({
        kind: 'aborted',
        aborted: { reason: halt.message, exitCode: halt.exitCode, hint: halt.hint },
      });
    }
  });

  it('2. an interrupt the deadline caused is the deadline; a plain interrupt is interrupted', () => {
    const thrown = { error: new Interrupted() };
    expect(endingOf({ ...quiet, thrown, deadline, signalAborted: true })).toEqual({
      kind: 'aborted',
      aborted: deadline,
    });
    expect(endingOf({ ...quiet, thrown, signalAborted: true })).toEqual({
      kind: 'aborted',
      aborted: { reason: 'interrupted', exitCode: EXIT.interrupted },
    });
  });

  it("2. the target's errors are reported; a bug is exit 4 with its stack as a note, redacted; other tool errors throw", () => {
    const unreachable = new PetloadError('E_TARGET_UNREACHABLE', 'nothing answers at http://127.0.0.1:9/v1');
    expect(endingOf({ ...quiet, thrown: { error: unreachable } })).toMatchObject({
      kind: 'aborted',
      aborted: { reason: unreachable.message, exitCode: unreachable.exitCode },
    });
    const bug = endingOf({
      ...quiet,
      thrown: { error: new TypeError('x is secret-key') },
      redact: (t) => t.replace('secret-key', '…'),
    });
    expect(bug).toMatchObject({
      kind: 'aborted',
      aborted: { reason: 'internal error: x is …', exitCode: EXIT.internal },
    });
    expect(bug.kind === 'aborted' && bug.aborted.note).toMatch(/^internal error, for the bug report: TypeError/);
    const usage = new PetloadError('E_USAGE', 'bad flag');
    expect(endingOf({ ...quiet, thrown: { error: usage }, everyKeyBanned: true })).toEqual({
      kind: 'tool-error',
      error: usage,
    });
  });

  it('3. every key banned after a send phase that completed, over an aborted signal', () => {
    expect(endingOf({ ...quiet, everyKeyBanned: true, signalAborted: true, deadline })).toMatchObject({
      kind: 'aborted',
      aborted: { reason: 'every key is suspected banned', exitCode: EXIT.aborted },
    });
  });

  it('4. an aborted signal with nothing thrown: the deadline if it fired, else an interrupt', () => {
    expect(endingOf({ ...quiet, signalAborted: true, deadline })).toEqual({ kind: 'aborted', aborted: deadline });
    expect(endingOf({ ...quiet, signalAborted: true })).toMatchObject({ aborted: { reason: 'interrupted' } });
  });
});
