/**
 * vitest's file order (vitest.config.ts `sequence.sequencer`): the files that wait longest start first, so that the
 * short ones fill the other workers beside them and the run ends when its longest file does, not after it. vitest's
 * own order ranks files by the durations of an earlier run where it has them, and by size on a fresh clone (CI),
 * where it would start the longest waits last. A file's rank is the place of the first prefix of its path in
 * `LONGEST_FIRST`; files no prefix names come after them, by their recorded durations.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import DURATIONS from './test-durations.json' with { type: 'json' };

/**
 * Path prefixes, in the order they start: the files that wait real minutes, in an order chosen (not measured). Every
 * other file starts by its recorded duration (`longestFirst`).
 */
export const LONGEST_FIRST: readonly string[] = [
  'test/conformance/haproxy-late-quota.test.ts',
  'src/probes/plan-audit.int.test.ts',
  'test/conformance/algorithms.test.ts',
  'bench/bench.smoke.test.ts',
  'test/conformance/nest-throttler.test.ts',
  'test/conformance/express-ietf.test.ts',
  'test/conformance/fastify-rate-limit.test.ts',
  'test/conformance/redis-cluster.test.ts',
  'test/conformance/nginx-limit-req.test.ts',
  // The sliding log's load starts at once, and its answers name the limiter: not in the first half-minute, when
  // the other files start their servers and runs (twice, started beside them, its run named two counters).
  'test/conformance/',
];

/**
 * `files` in the order they start: ranked by `LONGEST_FIRST`; the files it does not name by the seconds `durations`
 * recorded for them, longest first (test-durations.json: how long each file took in a whole run on this 2-core
 * machine, `npm run test:durations` to record again), so that no file of a minute starts last; ties and files with
 * no record in `files`' order, after them.
 */
export function longestFirst<T>(
  files: readonly T[],
  pathOf: (f: T) => string,
  durations: Readonly<Record<string, number>> = DURATIONS,
): T[] {
  const rank = (f: T) => {
    const i = LONGEST_FIRST.findIndex((p) => pathOf(f).startsWith(p));
    return i === -1 ? LONGEST_FIRST.length : i;
  };
  return files
    .map((f, at) => ({ f, at, rank: rank(f), took: durations[pathOf(f)] ?? 0 }))
    .sort((a, b) => a.rank - b.rank || b.took - a.took || a.at - b.at)
    .map((x) => x.f);
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    return longestFirst(await super.sort(files), (f) => relative(root, f.moduleId).replaceAll('\\', '/'));
  }
}
