/**
 * One defect, one failure, across judges: at the end of the run, failures of probe-judged checks that only echo a
 * defect another check judged are turned into skips naming it. The stream checks hold their own echoes until the
 * end of the run (src/checks/passive/stream.ts); the probes judge as they go, before the defect behind an echo can
 * be known, so their echoes are reconciled here, once, after every judge has recorded.
 */
import type { PlanName } from '../api/plans.js';
import type { CheckId } from './catalogue.js';
import type { Ledger } from './ledger.js';
import { COUNTERS_REASON, type CounterReader } from './passive/counters.js';

/**
 * The checks whose failures on a plan answered by several counters are echoes of that one defect: the sequences
 * interleave (decrements, window consistency), a wait ends on one counter while another answers (quota restored,
 * Retry-After honest), a key's requests spread over counters it does not share with itself (key isolation), a
 * burst is admitted by every counter (no over-admission), and the deprecated endpoint's request seems not to count
 * when the next answer comes from the other counter (deprecation.behaviour-unchanged).
 */
const ECHOES: readonly CheckId[] = [
  'ratelimit.remaining-decrements',
  'ratelimit.window-consistency',
  'ratelimit.quota-restored',
  'ratelimit.key-isolation',
  'retry-after.honest',
  'ratelimit.no-over-admission',
  'deprecation.behaviour-unchanged',
];

/**
 * At the end of the run: on each plan whose keys several counters answer and where ratelimit.enforced found the
 * over-admission (failed, or measured over the figure within a declared tolerance), the sequence checks' failures
 * are skips naming it (one defect, one failure). Where it found none, they stand: the defect would otherwise go
 * unnamed.
 */
export function excuseEchoes(
  ledger: Ledger,
  counters: CounterReader,
  overAdmitted: (plan: PlanName | null) => boolean,
): void {
  const plans = new Set(ledger.all().map((o) => o.plan));
  for (const plan of plans) {
    const n = counters.countersOf(plan);
    if (n < 2 || !overAdmitted(plan)) continue;
    ledger.info(
      'ratelimit.enforced',
      plan,
      'cause',
      `${n} independent counters answer each key, each keeping the limit alone (see ratelimit.algorithm): the fleet admits up to ${n} times the figure`,
    );
    for (const id of ECHOES) ledger.excuse(id, plan, COUNTERS_REASON);
  }
}
