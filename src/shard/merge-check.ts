/**
 * Before shard reports are merged: they must be every shard of one run, each once, and no key may appear in two
 * of them (two shards on one key would have shared its quota, and the run would not be the one it claims to be).
 * Each refusal names the files. Reports of ordinary runs (no shard) merge as before, but never with shards.
 */
import { PetloadError } from '../core/errors.js';
import type { Report } from '../report/schema.js';
import type { ShardInfo } from './spec.js';

export interface ShardSource {
  report: Pick<Report, 'shard' | 'keys' | 'startedAt' | 'endedAt'>;
  source: string;
}

function refuse(message: string, hint = 'Merge the report.json of every shard of one run, each once.'): PetloadError {
  return new PetloadError('E_USAGE', message, { hint });
}

/** The merged report's shard info (no index), or null for reports of ordinary runs. Throws when the set is not one whole run. */
export function checkShardSet(inputs: readonly ShardSource[]): ShardInfo | null {
  const sharded = inputs.filter((i) => i.report.shard !== undefined);
  if (sharded.length === 0) return null;
  const plain = inputs.find((i) => i.report.shard === undefined);
  const first = sharded[0]!;
  const run = first.report.shard!;
  if (plain)
    throw refuse(
      `cannot merge a shard with an ordinary run: ${first.source} is shard ${run.index ?? '?'} of run ${run.runId}, ${plain.source} is not a shard`,
    );
  for (const i of sharded) {
    const s = i.report.shard!;
    if (s.index === undefined)
      throw refuse(
        `${i.source} is the merged report of run ${s.runId}, not a shard's report`,
        "Merge the shards' own report.json files.",
      );
    if (s.runId !== run.runId)
      throw refuse(
        `cannot merge shards of different runs: ${first.source} is of run ${run.runId}, ${i.source} is of run ${s.runId}`,
      );
    if (s.count !== run.count)
      throw refuse(
        `the shards disagree on their number: ${first.source} says ${run.count}, ${i.source} says ${s.count}`,
      );
    if ((s.startAt ?? null) !== (run.startAt ?? null)) {
      throw refuse(
        `the shards disagree on --start-at: ${first.source} says ${run.startAt ?? 'none'}, ${i.source} says ${s.startAt ?? 'none'}`,
      );
    }
  }
  const byIndex = new Map<number, string>();
  for (const i of sharded) {
    const index = i.report.shard!.index!;
    const seen = byIndex.get(index);
    if (seen !== undefined) throw refuse(`shard ${index} of run ${run.runId} is given twice: ${seen} and ${i.source}`);
    byIndex.set(index, i.source);
  }
  const missing = Array.from({ length: run.count }, (_, n) => n).filter((n) => !byIndex.has(n));
  if (missing.length > 0) {
    const what = missing.length === 1 ? `shard ${missing[0]} is` : `shards ${missing.join(', ')} are`;
    throw refuse(
      `run ${run.runId} has ${run.count} shards and ${what} missing (given: ${[...byIndex.keys()].sort((a, b) => a - b).join(', ')})`,
    );
  }
  // Without --start-at (and so, unless --run-id was given, with the run id derived from the scenario, the target
  // and N alone) two runs of one scenario look alike: the shards of one run ran at the same time, those of two
  // runs one after the other.
  if (run.startAt === undefined) {
    const latest = sharded.reduce((a, b) => (Date.parse(b.report.startedAt) > Date.parse(a.report.startedAt) ? b : a));
    const earliestEnd = sharded.reduce((a, b) => (Date.parse(b.report.endedAt) < Date.parse(a.report.endedAt) ? b : a));
    if (Date.parse(latest.report.startedAt) > Date.parse(earliestEnd.report.endedAt)) {
      throw refuse(
        `cannot merge shards of different runs: ${earliestEnd.source} ended at ${earliestEnd.report.endedAt}, before ${latest.source} began (${latest.report.startedAt}); the shards of one run run at the same time`,
        'Give every shard of a run the same --start-at (or --run-id), and merge the shards of one run only.',
      );
    }
  }
  const keyOwner = new Map<string, { index: number; source: string }>();
  for (const i of sharded) {
    for (const k of i.report.keys) {
      const id = `${k.plan}\u0000${k.label}`;
      const other = keyOwner.get(id);
      if (other) {
        throw refuse(
          `key ${k.label} was used by shard ${other.index} (${other.source}) and shard ${i.report.shard!.index} (${i.source}); shards must use disjoint keys`,
          'Run the shards with one keys file and the same --shards: each takes its own keys of every plan.',
        );
      }
      keyOwner.set(id, { index: i.report.shard!.index!, source: i.source });
    }
  }
  return { runId: run.runId, count: run.count, ...(run.startAt !== undefined ? { startAt: run.startAt } : {}) };
}
