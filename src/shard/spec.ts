/**
 * What makes a run one shard of several: its index, the number of shards, the run's identity (shared by all
 * shards) and the instant all shards begin. Read from the flags of `petload run` and, for the index, from
 * JOB_COMPLETION_INDEX (set by Kubernetes in every pod of an Indexed Job). Every refusal is one line.
 */
import { createHash } from 'node:crypto';
import { PetloadError } from '../core/errors.js';
import type { ShardInfo } from '../report/schema.js';

export type { ShardInfo };

export const MAX_SHARDS = 1000;

export interface ShardSpec {
  runId: string;
  count: number;
  index: number;
  /** Epoch ms (real wall time) at which the shard begins; absent: at once. */
  startAt?: number;
}

const WHOLE = /^\d+$/;
const RUN_ID = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

function usage(message: string, hint?: string): PetloadError {
  return new PetloadError('E_USAGE', message, hint === undefined ? undefined : { hint });
}

export function parseShardCount(raw: string | number): number {
  const text = String(raw).trim();
  const n = WHOLE.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= MAX_SHARDS))
    throw usage(
      `--shards: expected a whole number of shards from 1 to ${MAX_SHARDS}, found ${JSON.stringify(String(raw))}`,
    );
  return n;
}

/** The shard's index: --shard-index, else JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs), else refused. */
export function shardIndexFrom(flag: string | number | undefined, env: NodeJS.ProcessEnv, count: number): number {
  const [raw, from] =
    flag !== undefined ? [String(flag), '--shard-index'] : [env.JOB_COMPLETION_INDEX, 'JOB_COMPLETION_INDEX'];
  if (raw === undefined || raw.trim() === '') {
    throw usage(
      `--shards ${count}: this shard's index is missing: give --shard-index I (0 to ${count - 1}) or set JOB_COMPLETION_INDEX`,
      'In a Kubernetes Indexed Job, JOB_COMPLETION_INDEX is set in every pod; elsewhere give --shard-index.',
    );
  }
  const n = WHOLE.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isInteger(n))
    throw usage(`${from}: expected a whole number from 0 to ${count - 1}, found ${JSON.stringify(raw)}`);
  if (n >= count)
    throw usage(`${from}: shard index ${n} is out of range for --shards ${count} (expected 0 to ${count - 1})`);
  return n;
}

/** --start-at: an ISO 8601 time with a zone (2030-01-01T12:00:00Z), as epoch ms. */
export function parseStartAt(raw: string): number {
  const text = raw.trim();
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const ms = iso.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) {
    throw usage(
      `--start-at: expected an ISO 8601 time with a zone, such as 2030-01-01T12:00:00Z, found ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

export function parseRunId(raw: string): string {
  if (!RUN_ID.test(raw)) {
    throw usage(
      `--run-id: expected 1 to 40 lower-case letters, digits and inner dashes (it names report folders and Kubernetes objects), found ${JSON.stringify(raw)}`,
    );
  }
  return raw;
}

/**
 * The run's identity when --run-id is not given: every shard derives the same one from what they share (the
 * scenario, the target, the number of shards and --start-at). Two runs of one scenario on one target differ only
 * by --start-at: without it, give --run-id to tell them apart.
 */
export function deriveRunId(scenario: string, target: string, count: number, startAt: number | undefined): string {
  const h = createHash('sha256')
    .update(JSON.stringify([scenario, target.replace(/\/+$/, ''), count, startAt ?? null]))
    .digest('hex');
  return `${scenario.slice(0, 27).replace(/-+$/, '')}-${h.slice(0, 12)}`;
}

export interface ShardFlags {
  shards?: string | number;
  shardIndex?: string | number;
  startAt?: string;
  runId?: string;
}

/**
 * The shard spec of a `petload run`, or null when the run is not sharded. Refuses --shard-index, --start-at or
 * --run-id without --shards, and --shards without --target (each shard would start a reference server of its own).
 */
export function shardSpecFrom(
  f: ShardFlags,
  ctx: { scenario: string; target: string | undefined; scenarios: number; env: NodeJS.ProcessEnv },
): ShardSpec | null {
  if (f.shards === undefined) {
    const stray = (['shardIndex', 'startAt', 'runId'] as const).filter((k) => f[k] !== undefined);
    if (stray.length > 0) {
      const names = { shardIndex: '--shard-index', startAt: '--start-at', runId: '--run-id' };
      throw usage(
        `${stray.map((k) => names[k]).join(' and ')} belong${stray.length === 1 ? 's' : ''} to a sharded run: give --shards N too`,
      );
    }
    return null;
  }
  const count = parseShardCount(f.shards);
  if (ctx.target === undefined) {
    throw usage(
      `--shards needs --target: the shards of a run share one target (each would otherwise start an embedded reference server of its own)`,
    );
  }
  if (ctx.scenarios !== 1) throw usage(`--shards runs one scenario at a time, found ${ctx.scenarios}`);
  const index = shardIndexFrom(f.shardIndex, ctx.env, count);
  const startAt = f.startAt === undefined ? undefined : parseStartAt(f.startAt);
  const runId = f.runId !== undefined ? parseRunId(f.runId) : deriveRunId(ctx.scenario, ctx.target, count, startAt);
  return { runId, count, index, ...(startAt !== undefined ? { startAt } : {}) };
}

export function shardInfo(s: ShardSpec): ShardInfo {
  return {
    runId: s.runId,
    count: s.count,
    index: s.index,
    ...(s.startAt !== undefined ? { startAt: new Date(s.startAt).toISOString() } : {}),
  };
}
