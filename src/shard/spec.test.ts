import { describe, expect, it } from 'vitest';
import { isPetloadError } from '../core/errors.js';
import { deriveRunId, parseStartAt, shardIndexFrom, shardSpecFrom } from './spec.js';

const ctx = { scenario: 'smoke', target: 'http://127.0.0.1:8080/v1', scenarios: 1, env: {} };

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(isPetloadError(e)).toBe(true);
    const message = (e as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a refusal');
}

describe('shard spec', () => {
  it('takes the index from --shard-index, else from JOB_COMPLETION_INDEX', () => {
    expect(shardIndexFrom('2', {}, 3)).toBe(2);
    expect(shardIndexFrom(undefined, { JOB_COMPLETION_INDEX: '1' }, 3)).toBe(1);
    expect(shardIndexFrom('0', { JOB_COMPLETION_INDEX: '2' }, 3)).toBe(0);
  });

  it('refuses a missing index, an index out of range and one that is not a whole number, in one line', () => {
    expect(refusal(() => shardIndexFrom(undefined, {}, 3))).toMatch(
      /index is missing: give --shard-index I \(0 to 2\) or set JOB_COMPLETION_INDEX/,
    );
    expect(refusal(() => shardIndexFrom(undefined, { JOB_COMPLETION_INDEX: '3' }, 3))).toMatch(
      /JOB_COMPLETION_INDEX: shard index 3 is out of range for --shards 3 \(expected 0 to 2\)/,
    );
    expect(refusal(() => shardIndexFrom('-1', {}, 3))).toMatch(
      /--shard-index: expected a whole number from 0 to 2, found "-1"/,
    );
    expect(refusal(() => shardIndexFrom('1.5', {}, 2))).toMatch(/found "1.5"/);
  });

  it('gives every shard of a run the same identity, and other runs another', () => {
    const start = parseStartAt('2030-01-01T12:00:00Z');
    const ids = [0, 1, 2].map(
      (i) => shardSpecFrom({ shards: '3', shardIndex: String(i), startAt: '2030-01-01T12:00:00Z' }, ctx)!.runId,
    );
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toBe(deriveRunId('smoke', 'http://127.0.0.1:8080/v1/', 3, start));
    expect(ids[0]).toMatch(/^smoke-[0-9a-f]{12}$/);
    expect(deriveRunId('smoke', ctx.target, 3, start + 60_000)).not.toBe(ids[0]);
    expect(deriveRunId('smoke', ctx.target, 2, start)).not.toBe(ids[0]);
    expect(deriveRunId('at-limit', ctx.target, 3, start)).not.toBe(ids[0]);
    expect(shardSpecFrom({ shards: '3', shardIndex: '0', runId: 'nightly-42' }, ctx)!.runId).toBe('nightly-42');
  });

  it('reads --start-at as an ISO time with a zone, and refuses anything else', () => {
    expect(parseStartAt('2030-01-01T12:00:00Z')).toBe(Date.UTC(2030, 0, 1, 12));
    expect(parseStartAt('2030-01-01T13:00:00.500+01:00')).toBe(Date.UTC(2030, 0, 1, 12, 0, 0, 500));
    expect(refusal(() => parseStartAt('2030-01-01 12:00'))).toMatch(
      /--start-at: expected an ISO 8601 time with a zone/,
    );
    expect(refusal(() => parseStartAt('2030-01-01T12:00:00'))).toMatch(/with a zone/);
  });

  it('refuses shard flags without --shards, --shards without --target or with several scenarios, and a bad run id', () => {
    expect(shardSpecFrom({}, ctx)).toBeNull();
    expect(refusal(() => shardSpecFrom({ shardIndex: '1' }, ctx))).toMatch(
      /--shard-index belongs to a sharded run: give --shards N too/,
    );
    expect(refusal(() => shardSpecFrom({ shards: '2', shardIndex: '0' }, { ...ctx, target: undefined }))).toMatch(
      /--shards needs --target/,
    );
    expect(refusal(() => shardSpecFrom({ shards: '2', shardIndex: '0' }, { ...ctx, scenarios: 2 }))).toMatch(
      /one scenario at a time, found 2/,
    );
    expect(refusal(() => shardSpecFrom({ shards: '0', shardIndex: '0' }, ctx))).toMatch(
      /--shards: expected a whole number of shards from 1/,
    );
    expect(refusal(() => shardSpecFrom({ shards: '2', shardIndex: '0', runId: 'Bad Id' }, ctx))).toMatch(
      /--run-id: expected/,
    );
  });
});
