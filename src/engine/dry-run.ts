/**
 * `petload run --dry-run`: the schedule a run would follow — what runs on which key, in which window, when — and
 * what it would spend, worked out from the scenario and the keys alone. Nothing is sent, no server is started.
 */
import type { PlanFigures, PlanName } from '../api/plans.js';
import { partialWords } from '../report/verdict.js';
import { planScope } from './plan-scope.js';
import type { ApiKey } from '../core/api-key.js';
import type { Scenario } from '../config/scenario.js';
import { describeFocus, type Focus, focusScenario, isFocused } from '../config/focus.js';
import { describeDuration, describeEstimate, describeKeySpend, estimateRequests } from './estimate.js';
import { describeSchedule } from './schedule-report.js';
import { loadStartLines } from './schedule-report.js';
import { embeddedFigures, makeKeys } from './target.js';
import { EMBEDDED_TIME_SCALE } from '../core/defaults.js';

export interface DryRunOptions {
  readonly scenario: Scenario;
  /** External target URL; absent: the embedded reference server (its keys are made as a run would make them). */
  readonly target?: string;
  readonly keys?: readonly ApiKey[];
  /** The run's changes to the plans' figures (scenario planLimits, plans file), for the keys the embedded server makes. */
  readonly figures?: PlanFigures;
  readonly plans?: readonly PlanName[];
  /** The embedded server's clock speed (an external target runs on the real clock). */
  readonly timeScale?: number;
  /** The round trip to the target the schedule assumes, real ms (--rtt; default 0, loopback). */
  readonly rttMs?: number;
  /** Whether the run would guard each key's daily quota (a remote target). */
  readonly remote?: boolean;
  /** A partial run (--partial): a plan named without a key is not judged instead of refusing the run. */
  readonly partial?: boolean;
  /** Where the keys were read from, for the refusal of a plan without one. */
  readonly keysFrom?: string;
  /** --check, --probe: the run's focus (src/config/focus.ts); the schedule is the focused scenario's. */
  readonly focus?: Focus;
}

const DEFAULT_PLANS: readonly PlanName[] = ['free', 'pro', 'business'];

/** The round trip the estimate assumed, and how to give another (docs/schedule.md, "At a distance"). */
const roundTripWords = (rttMs: number, embedded: boolean): string =>
  rttMs > 0
    ? `round trip to the target assumed: ${rttMs} ms (--rtt)`
    : `round trip to the target assumed: none (loopback${embedded ? '' : '; --rtt MS for a target farther away'})`;

export function dryRunLines(o: DryRunOptions): string[] {
  const focused = isFocused(o.focus) ? focusScenario(o.scenario, o.focus) : null;
  const s = focused?.scenario ?? o.scenario;
  const embedded = o.target === undefined;
  const keys =
    o.keys ??
    (embedded
      ? makeKeys(
          o.plans ?? s.plans ?? DEFAULT_PLANS,
          s.keysPerPlan,
          s.requiresSacrificialKey,
          embeddedFigures(o.figures),
          s.requiresAuditKey,
        )
      : []);
  // As the run would: a plan named without a key refuses the dry run too, unless the run is partial.
  const partial = o.partial === true || s.partial;
  const scope = planScope(keys, {
    flag: o.plans,
    scenario: s.plans,
    partial,
    where: o.keysFrom ?? 'in the keys given',
  });
  const plans = scope.judged;
  const mine = keys.filter((k) => plans.includes(k.plan));
  const scale = embedded ? (o.timeScale ?? s.timeScale ?? EMBEDDED_TIME_SCALE) : 1;
  const e = estimateRequests(s, mine, plans, { scale, ...(o.rttMs ? { rttMs: o.rttMs } : {}) });
  const where = embedded ? `the embedded reference server (time x${scale}, keys made for the run)` : o.target!;
  return [
    `petload: dry run of ${s.name} against ${where}; nothing is sent`,
    `  plans ${plans.join(', ') || 'none'}; ${mine.length} key(s)`,
    ...(scope.notJudged.length > 0 ? [`  ${partialWords(scope)}`] : []),
    ...(focused ? [`  ${describeFocus(focused)}`] : []),
    '',
    '  start   plan       probe               key, window, requests',
    ...describeSchedule(e.schedule, scale).map((l) => `  ${l}`),
    ...loadStartLines(e).map((l) => `  ${l}`),
    '',
    `  expected duration ${describeDuration(e)}`,
    `  ${roundTripWords(o.rttMs ?? 0, embedded)}`,
    `  ${describeEstimate(e)}`,
    ...describeKeySpend(e).map((l) => `    ${l}`),
    ...(o.remote ? ["  (each key's daily quota left is read from the first answer on it: no request of its own)"] : []),
    ...e.schedule.reasons.map((r) => `  slower than it could be: ${r}`),
    `  fastest pass: ${e.schedule.fastestKeysPerPlan} keys per plan`,
  ];
}
