import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { ReportSchema } from '../report/schema.js';
import { isPetloadError } from '../core/errors.js';
import { mergeReports } from '../outputs/merge-reports.js';
import { sampleRun } from '../testing/sample-report.js';
import type { ShardInfo } from './spec.js';

const RUN = 'smoke-0123456789ab';

/** A shard's report: a sample run relabelled with keys of its own. */
function shardReport(index: number, count: number, over: Partial<ShardInfo> = {}): Report {
  const r = sampleRun({ seed: index + 1 }).report;
  return {
    ...r,
    keys: r.keys.map((k) => ({ ...k, label: `${k.plan}#${index + 1} (…${index}${index}${index}${index})` })),
    shard: { runId: RUN, count, index, startAt: '2030-01-01T12:00:00.000Z', ...over },
  };
}

const src = (reports: Report[]) => reports.map((report, i) => ({ report, source: `s${i}/report.json` }));

function refusal(reports: Report[]): string {
  try {
    mergeReports(src(reports));
  } catch (e) {
    expect(isPetloadError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('merging the shards of a run', () => {
  it("merges every shard once into the run's report, which names the run and no index", () => {
    const shards = [shardReport(1, 3), shardReport(0, 3), shardReport(2, 3)];
    const merged = mergeReports(src(shards));
    expect(ReportSchema.parse(merged).shard).toEqual({ runId: RUN, count: 3, startAt: '2030-01-01T12:00:00.000Z' });
    expect(merged.totals.requests).toBe(shards.reduce((n, r) => n + r.totals.requests, 0));
    expect(merged.keys).toHaveLength(6);
    expect(merged.notes[0]).toBe(
      `merged from the 3 shards of run ${RUN}: s1/report.json, s0/report.json, s2/report.json`,
    );
  });

  it('refuses a missing shard, naming which', () => {
    expect(refusal([shardReport(0, 3), shardReport(2, 3)])).toBe(
      `run ${RUN} has 3 shards and shard 1 is missing (given: 0, 2)`,
    );
    expect(refusal([shardReport(1, 3)])).toBe(`run ${RUN} has 3 shards and shards 0, 2 are missing (given: 1)`);
  });

  it('refuses a shard given twice, naming both files', () => {
    expect(refusal([shardReport(0, 2), shardReport(1, 2), shardReport(1, 2)])).toBe(
      `shard 1 of run ${RUN} is given twice: s1/report.json and s2/report.json`,
    );
  });

  it('refuses shards of different runs, and a shard with an ordinary run', () => {
    expect(refusal([shardReport(0, 2), shardReport(1, 2, { runId: 'smoke-ffffffffffff' })])).toBe(
      `cannot merge shards of different runs: s0/report.json is of run ${RUN}, s1/report.json is of run smoke-ffffffffffff`,
    );
    expect(refusal([shardReport(0, 2), shardReport(1, 3)])).toBe(
      'the shards disagree on their number: s0/report.json says 2, s1/report.json says 3',
    );
    expect(refusal([shardReport(0, 2), shardReport(1, 2, { startAt: '2030-01-01T12:01:00.000Z' })])).toMatch(
      /disagree on --start-at/,
    );
    expect(refusal([shardReport(0, 2), sampleRun({ seed: 9 }).report])).toBe(
      `cannot merge a shard with an ordinary run: s0/report.json is shard 0 of run ${RUN}, s1/report.json is not a shard`,
    );
  });

  it('without --start-at, refuses shards that did not run at the same time (two runs of one scenario look alike)', () => {
    const late = (r: Report): Report => ({
      ...r,
      startedAt: '2030-01-01T00:05:00.000Z',
      endedAt: '2030-01-01T00:06:00.000Z',
    });
    const a = { ...shardReport(0, 2), shard: { runId: RUN, count: 2, index: 0 } };
    const b = { ...shardReport(1, 2), shard: { runId: RUN, count: 2, index: 1 } };
    expect(mergeReports(src([a, b])).shard).toEqual({ runId: RUN, count: 2 });
    expect(refusal([a, late(b)])).toBe(
      'cannot merge shards of different runs: s0/report.json ended at 2030-01-01T00:01:00.000Z, before s1/report.json began (2030-01-01T00:05:00.000Z); the shards of one run run at the same time',
    );
    // With --start-at, a shard that began late (a pod scheduled late) is still of the run.
    expect(mergeReports(src([shardReport(0, 2), late(shardReport(1, 2))])).shard?.runId).toBe(RUN);
  });

  it('refuses shards that used one key', () => {
    const b = shardReport(1, 2);
    b.keys = [...b.keys, shardReport(0, 2).keys[0]!];
    expect(refusal([shardReport(0, 2), b])).toMatch(
      /^key free#1 \(…0000\) was used by shard 0 \(s0\/report.json\) and shard 1 \(s1\/report.json\); shards must use disjoint keys$/,
    );
  });

  it('refuses a merged report among the shards', () => {
    const merged = mergeReports(src([shardReport(0, 2), shardReport(1, 2)]));
    expect(refusal([merged, shardReport(1, 2)])).toBe(
      `s0/report.json is the merged report of run ${RUN}, not a shard's report`,
    );
  });
});
