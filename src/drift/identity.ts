/**
 * Which run a report is, and whether two reports are runs of the same thing: the same scenario against the same
 * target. The embedded reference server listens on a new port every run, so its identity is `embedded`, not
 * its URL; faults, time scale and plans may differ (that is often the point) and are listed as differences.
 */
import { PetloadError } from '../core/errors.js';
import type { Report } from '../report/schema.js';
import { focusFlags } from '../report/verdict.js';
import type { RunRef } from './schema.js';

/** The target's identity: `embedded`, or the URL without a trailing slash. */
export function targetIdentity(report: Report): string {
  return report.target.embedded ? 'embedded' : report.target.url.replace(/\/+$/, '');
}

/** The group a report belongs to in a trend: its scenario against its target. */
export function groupKey(report: Report): string {
  return `${report.scenario.name} @ ${targetIdentity(report)}`;
}

export function runRef(report: Report): RunRef {
  const s = report.shard;
  return {
    scenario: report.scenario.name,
    target: targetIdentity(report),
    url: report.target.url,
    faults: [...report.target.faults],
    timeScale: report.target.timeScale,
    startedAt: report.startedAt,
    endedAt: report.endedAt,
    durationMs: report.durationMs,
    verdict: report.verdict,
    exitCode: report.exitCode,
    toolVersion: report.tool.version,
    plans: [...report.plans],
    requests: report.totals.requests,
    rps: report.totals.rps,
    dropped: report.totals.dropped,
    transportErrors: report.totals.transportErrors,
    shard: s === undefined ? null : { runId: s.runId, count: s.count, index: s.index ?? null },
    ...(report.focus ? { focus: focusFlags(report.focus) } : {}),
  };
}

const list = (xs: readonly string[]): string => (xs.length === 0 ? 'none' : xs.join(', '));

function shardLine(r: RunRef): string | null {
  if (r.shard === null) return null;
  return r.shard.index === null
    ? `merged from ${r.shard.count} shards`
    : `shard ${r.shard.index} of ${r.shard.count} only (merge the shards first to compare whole runs)`;
}

/** Every setting in which the two runs differ, one line each (empty: alike). */
export function differencesOf(b: RunRef, c: RunRef): string[] {
  const out: string[] = [];
  const pair = (what: string, x: string, y: string) => {
    if (x !== y) out.push(`${what}: ${x} (baseline) vs ${y} (current)`);
  };
  pair('scenario', b.scenario, c.scenario);
  pair('target', b.target, c.target);
  pair('faults', list(b.faults), list(c.faults));
  pair('time scale', `x${b.timeScale}`, `x${c.timeScale}`);
  pair('plans', list(b.plans), list(c.plans));
  pair('petload version', b.toolVersion, c.toolVersion);
  pair('shards', shardLine(b) ?? 'not sharded', shardLine(c) ?? 'not sharded');
  // A focused run sent only what judges its focus: its traffic is not the whole scenario's.
  pair('focus', b.focus ?? 'the whole scenario', c.focus ?? 'the whole scenario');
  for (const [side, r] of [
    ['baseline', b],
    ['current', c],
  ] as const) {
    if (r.verdict === 'aborted') out.push(`the ${side} run was aborted: its figures cover only what it did`);
  }
  return out;
}

/**
 * Refuses two reports of different scenarios or targets (E_USAGE, exit 2) unless `allowDifferent`, naming both.
 */
export function requireSameRun(b: RunRef, c: RunRef, allowDifferent: boolean): void {
  if (allowDifferent) return;
  const what: string[] = [];
  if (b.scenario !== c.scenario) what.push(`scenario "${b.scenario}" (baseline) vs "${c.scenario}" (current)`);
  if (b.target !== c.target) what.push(`target ${b.target} (baseline) vs ${c.target} (current)`);
  if (what.length === 0) return;
  throw new PetloadError('E_USAGE', `the two reports are not runs of the same thing: ${what.join('; ')}`, {
    hint: 'Compare runs of one scenario against one target, or pass --allow-different to compare them anyway.',
  });
}
