/**
 * How a run is divided among shards, so that the shards together do what one process would:
 * - keys: the keys of each plan are dealt round-robin (in keys-file order), so no two shards ever use one key
 *   (two shards on one key would share its quota and each see the other's traffic as its own);
 * - load: an absolute rate is the plan's total, so each shard takes its share; a share of the plan (`95%`) is
 *   per key and stays as it is (the shard has its share of the keys); workers, burst sizes, autocannon
 *   connections and maxRequests are whole numbers dealt out with the remainder to the lowest indexes;
 * - probes: each probe of each plan runs on exactly one shard, dealt round-robin in the order one process
 *   would run them.
 */
import type { PlanName } from '../api/plans.js';
import type { ApiKey } from '../core/api-key.js';
import type { Rate } from '../core/rate.js';
import type { Phase, Scenario } from '../config/scenario.js';
import { PetloadError } from '../core/errors.js';
import type { Probe } from '../probes/probe.js';

export interface ShardSlot {
  index: number;
  count: number;
}

/** Shard `index`'s part of `total` whole things: floor(total/count), plus one for the first total%count shards. */
export function shareOf(total: number, s: ShardSlot): number {
  return Math.floor(total / s.count) + (s.index < total % s.count ? 1 : 0);
}

/** The keys of a shard: of each plan to judge, every count-th key from the index-th. Refused when a plan has fewer keys than shards. */
export function shardKeys(keys: readonly ApiKey[], plans: readonly PlanName[], s: ShardSlot): ApiKey[] {
  const mine: ApiKey[] = [];
  for (const plan of plans) {
    const ofPlan = keys.filter((k) => k.plan === plan);
    if (ofPlan.length < s.count) {
      throw new PetloadError(
        'E_USAGE',
        `--shards ${s.count}: plan ${plan} has ${ofPlan.length} key${ofPlan.length === 1 ? '' : 's'}, fewer than the shards; each shard needs keys of its own (two shards on one key would share its quota)`,
        {
          hint: `Give at least ${s.count} keys of plan ${plan} in the keys file, judge fewer plans (--plan), or run fewer shards.`,
        },
      );
    }
    ofPlan.forEach((k, i) => {
      if (i % s.count === s.index) mine.push(k);
    });
  }
  return mine;
}

function shareRate(rate: Rate, s: ShardSlot): Rate {
  return rate.kind === 'absolute' ? { kind: 'absolute', perSecond: rate.perSecond / s.count } : rate;
}

function wholeShare(what: string, total: number, s: ShardSlot, at: number): number {
  // Refused on every shard alike (not only on those left with none), so that all of them refuse or none.
  if (total < s.count) {
    throw new PetloadError(
      'E_USAGE',
      `--shards ${s.count}: load.phases[${at}] has ${total} ${what}, fewer than the shards; each shard needs at least one`,
      {
        hint: 'Run fewer shards, or raise the figure in the scenario.',
      },
    );
  }
  return shareOf(total, s);
}

function sharePhase(p: Phase, s: ShardSlot, at: number): Phase {
  switch (p.executor) {
    case 'constant-rate':
      return { ...p, rate: shareRate(p.rate, s) };
    case 'ramping-rate':
      return { ...p, stages: p.stages.map((st) => ({ ...st, rate: shareRate(st.rate, s) })) };
    case 'concurrency':
      return { ...p, workers: wholeShare('workers', p.workers, s, at) };
    case 'saturate':
      return { ...p, connections: wholeShare('connections', p.connections, s, at) };
    case 'burst':
      // A count is the plan's total; limit+K is dealt out when the plan's limit is known (resolveBurstSize).
      return p.requests.kind === 'count'
        ? { ...p, requests: { kind: 'count', count: shareOf(p.requests.count, s) } }
        : { ...p, requests: { ...p.requests, shard: { index: s.index, count: s.count } } };
  }
}

/** The scenario as one shard runs it: its share of the load (see above). Probes are chosen by shardProbes. */
export function shardScenario(scenario: Scenario, s: ShardSlot): Scenario {
  if (!scenario.load || s.count === 1) return scenario;
  const load = scenario.load;
  const maxRequests = load.maxRequests === undefined ? undefined : shareOf(load.maxRequests, s);
  if (load.maxRequests !== undefined && load.maxRequests < s.count) {
    throw new PetloadError(
      'E_USAGE',
      `--shards ${s.count}: load.maxRequests is ${load.maxRequests}, fewer than the shards`,
      { hint: 'Run fewer shards, or raise maxRequests.' },
    );
  }
  const phases = load.phases.map((p, i) => sharePhase(p, s, i));
  return Object.freeze({
    ...scenario,
    load: Object.freeze({
      ...load,
      phases: Object.freeze(phases),
      ...(maxRequests !== undefined ? { maxRequests } : {}),
    }),
  }) as Scenario;
}

/** `probe` or `probe [plan]`: one unit of probing, as the run's log names it. */
export const probeUnit = (probe: string, plan: PlanName | null): string =>
  plan === null ? probe : `${probe} [${plan}]`;

/** The probes of a run in the order one process runs them (probesInOrder of the scenario's probes). */
export type RunProbes = readonly Pick<Probe, 'name' | 'perPlan'>[];

/** The probe units (a probe, for each plan when it runs per plan) in run order, and which of them shard `s` runs. */
export function shardProbes(
  probes: RunProbes,
  plans: readonly PlanName[],
  s: ShardSlot,
): { all: string[]; mine: Set<string> } {
  const all = probes.flatMap((p) =>
    p.perPlan ? plans.map((plan) => probeUnit(p.name, plan)) : [probeUnit(p.name, null)],
  );
  return { all, mine: new Set(all.filter((_, i) => i % s.count === s.index)) };
}

export interface PreparedShard {
  keys: ApiKey[];
  /** True when this shard runs `probe` for `plan` (null: a probe that does not run per plan). */
  runsProbe(probe: string, plan: PlanName | null): boolean;
  /** What the shard does, for the report's notes. */
  notes: string[];
}

/**
 * A shard's keys and probes, from the target's keys, the run's probes (the whole run's, in order) and the plans to
 * judge; throws (one line) when the run cannot be sharded so.
 */
export function prepareShard(
  probes: RunProbes,
  keys: readonly ApiKey[],
  plans: readonly PlanName[],
  s: ShardSlot,
): PreparedShard {
  const mine = shardKeys(keys, plans, s);
  const units = shardProbes(probes, plans, s);
  const notes = [
    `shard ${s.index} of ${s.count}: keys ${mine.map((k) => k.label).join(', ')}`,
    ...(units.all.length > 0
      ? [`shard ${s.index} of ${s.count}: probes ${[...units.mine].join(', ') || 'none (other shards run them)'}`]
      : []),
  ];
  return { keys: mine, runsProbe: (probe, plan) => units.mine.has(probeUnit(probe, plan)), notes };
}
