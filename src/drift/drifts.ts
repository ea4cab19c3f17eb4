/**
 * The table of drifts every renderer puts first: one row per thing that changed, regressions first, then
 * warnings, the contract's drifts, latency and throughput changes that are no regression, fixes and skips.
 */
import { FAILING_SEVERITIES } from '../report/severity.js';
import { formatBreadth, latencyMessage } from './latency.js';
import { statusMessage } from './status-latency.js';
import type { CheckChange, Comparison, OperationDrift, PlanContract } from './schema.js';
import { checkName, formatChangeMs, formatMs, formatP, formatRatio, formatShare } from './words.js';

/** REGRESSION fails the comparison; the others say what changed. */
export type DriftVerdict = 'REGRESSION' | 'WARNING' | 'CHANGED' | 'SLOWER' | 'FASTER' | 'FIXED' | 'SKIPPED' | 'PASSING';

export interface DriftRow {
  verdict: DriftVerdict;
  /** What drifted: `check [plan]`, `free: Limit sent`, `listPets p99`. */
  subject: string;
  baseline: string;
  current: string;
  /** The change and why it is judged so (p-values, evidence, reasons). */
  detail: string;
}

const statusWord = (s: string): string => (s === 'absent' ? 'not judged' : s);

function checkRow(verdict: DriftVerdict, c: CheckChange): DriftRow {
  const why =
    verdict === 'FIXED'
      ? c.baselineDetail
      : verdict === 'SKIPPED'
        ? [c.currentDetail, c.baselineDetail]
        : c.currentDetail;
  const detail = Array.isArray(why)
    ? `now: ${why[0] ?? 'no reason given'}${why[1] ? `; before: ${why[1]}` : ''}`
    : (why ?? '');
  return {
    verdict,
    subject: checkName(c.id, c.plan),
    baseline: statusWord(c.baseline),
    current: statusWord(c.current),
    detail: `${c.severity}${detail ? `: ${detail}` : ''}`,
  };
}

function latencyRows(op: OperationDrift, minSuperiority: number): DriftRow[] {
  const rows: DriftRow[] = [];
  const t = op.test;
  for (const p of op.percentiles) {
    const subject = `${op.operation} ${p.percentile}`;
    const values = { subject, baseline: `${formatMs(p.baselineMs)} ms`, current: `${formatMs(p.currentMs)} ms` };
    if (p.regression) rows.push({ verdict: 'REGRESSION', ...values, detail: latencyMessage(op, p) });
    else if (p.large) {
      const e = p.exceedance;
      const why =
        e === null
          ? (op.note ?? 'not tested')
          : t !== null && !t.broad
            ? `a shift of some requests only (${formatBreadth(t)} < ${minSuperiority}), not told from run-to-run noise`
            : `not significant (exceedance p=${formatP(e.p)})`;
      rows.push({
        verdict: 'SLOWER',
        ...values,
        detail: `${formatChangeMs(p.changeMs)} (${formatRatio(p.changeRatio)}); no regression: ${why}`,
      });
    }
  }
  for (const s of op.statuses ?? []) {
    if (!s.regression) continue;
    rows.push({
      verdict: 'REGRESSION',
      subject: `${op.operation} ${s.status} p50`,
      baseline: `${formatMs(s.baselineP50)} ms`,
      current: `${formatMs(s.currentP50)} ms`,
      detail: `every ${s.status} answer slower: ${statusMessage(op.operation, s, t?.marginMs ?? 0)}`,
    });
  }
  if (t !== null && t.direction === 'faster' && t.superiority <= 1 - minSuperiority) {
    const p50 = op.percentiles.find((p) => p.percentile === 'p50')!;
    rows.push({
      verdict: 'FASTER',
      subject: `${op.operation} p50`,
      baseline: `${formatMs(p50.baselineMs)} ms`,
      current: `${formatMs(p50.currentMs)} ms`,
      detail: `most requests faster (A=${t.superiority.toFixed(2)}, Mann-Whitney p=${formatP(t.p)})`,
    });
  }
  return rows;
}

/** Error rate up, or throughput changed by a quarter or more. */
function trafficRows(op: OperationDrift): DriftRow[] {
  const b = op.baseline;
  const c = op.current;
  if (b === null || c === null) return [];
  const rows: DriftRow[] = [];
  if (c.errorRate > b.errorRate)
    rows.push({
      verdict: 'CHANGED',
      subject: `${op.operation} error rate`,
      baseline: formatShare(b.errorRate),
      current: formatShare(c.errorRate),
      detail: 'answers 5xx or none at all',
    });
  if (b.rps > 0 && Math.abs(c.rps / b.rps - 1) >= 0.25)
    rows.push({
      verdict: 'CHANGED',
      subject: `${op.operation} requests/s`,
      baseline: b.rps.toFixed(1),
      current: c.rps.toFixed(1),
      detail: formatRatio(c.rps / b.rps - 1),
    });
  return rows;
}

export function driftRows(c: Comparison): DriftRow[] {
  const ch = c.checks;
  const failing = (x: CheckChange) => FAILING_SEVERITIES.has(x.severity);
  const regressions = ch.newlyFailing.filter(failing).map((x) => checkRow('REGRESSION', x));
  // Runs of different traffic classes: their latency and throughput are not compared, so no row says they moved
  // (the differences say why once).
  const ops = c.latencyTraffic?.compared === false ? [] : c.operations;
  const latency = ops.flatMap((op) => latencyRows(op, c.options.minSuperiority));
  const contract = c.contract.flatMap((p) =>
    p.drifts
      .filter((d) => !coveredByPromise(p, d.field))
      .map((d) => ({
        verdict: 'CHANGED' as const,
        subject: `${p.plan}: ${d.field}`,
        baseline: d.baseline,
        current: d.current,
        detail: '',
      })),
  );
  const promises = c.contract.flatMap((p) =>
    (p.promises ?? [])
      .filter((f) => f.drift)
      .map((f) => ({
        verdict: 'REGRESSION' as const,
        subject: `${p.plan}: ${f.figure}`,
        baseline: f.baseline,
        current: f.current,
        detail: `a promise moved: ${f.noise}`,
      })),
  );
  return [
    ...regressions,
    ...promises,
    ...latency.filter((r) => r.verdict === 'REGRESSION'),
    ...ch.newlyFailing.filter((x) => !failing(x)).map((x) => checkRow('WARNING', x)),
    ...contract,
    ...latency.filter((r) => r.verdict !== 'REGRESSION'),
    ...ops.flatMap(trafficRows),
    ...ch.fixed.map((x) => checkRow('FIXED', x)),
    ...ch.newlySkipped.filter((x) => x.current === 'skip').map((x) => checkRow('SKIPPED', x)),
    ...notJudgedRow(ch.newlySkipped.filter((x) => x.current === 'absent')),
    ...ch.newlyPassing.map((x) => checkRow('PASSING', x)),
  ];
}

/** The contract's drifts a promise's REGRESSION row already tells (the admission, the ban's threshold and length). */
const COVERED: Readonly<Record<string, string>> = {
  'accepted per minute': 'admission',
  'accepted per day': 'admission',
  'ban threshold': 'ban banThreshold',
  'ban length': 'ban banDurationSeconds',
};

function coveredByPromise(p: PlanContract, field: string): boolean {
  return (p.promises ?? []).some((f) => f.drift && COVERED[f.figure] === field);
}

/** Checks judged before and not at all now (for a plan), in one row. */
function notJudgedRow(list: readonly CheckChange[]): DriftRow[] {
  if (list.length === 0) return [];
  return [
    {
      verdict: 'SKIPPED',
      subject: `${list.length} ${list.length === 1 ? 'check' : 'checks'} judged before, not now`,
      baseline: 'judged',
      current: 'not judged',
      detail: list.map((x) => checkName(x.id, x.plan)).join(', '),
    },
  ];
}

/** The verdict line every renderer opens with. */
export function headline(c: Comparison): string {
  const checks = c.regressions.filter((r) => r.kind === 'check').length;
  const promises = c.regressions.filter((r) => r.kind === 'promise').length;
  const latency = c.regressions.length - checks - promises;
  if (!c.regressed) return 'NO REGRESSION';
  const parts = [
    ...(checks > 0 ? [`${checks} newly failing critical or major ${checks === 1 ? 'check' : 'checks'}`] : []),
    ...(promises > 0 ? [`${promises} ${promises === 1 ? 'promise' : 'promises'} drifted`] : []),
    ...(latency > 0 ? [`${latency} latency ${latency === 1 ? 'regression' : 'regressions'}`] : []),
  ];
  return `REGRESSED: ${parts.join(', ')}`;
}

/** `2 newly failing, 1 fixed, ...`: the checks' changes in one line. */
export function checksLine(c: Comparison): string {
  const ch = c.checks;
  return (
    `${ch.newlyFailing.length} newly failing, ${ch.fixed.length} fixed, ${ch.newlySkipped.length} newly skipped, ` +
    `${ch.newlyPassing.length} newly passing, ${ch.stillFailing.length} still failing, ` +
    `${ch.unchanged.passing + ch.unchanged.skipped} unchanged (${ch.unchanged.passing} passing, ${ch.unchanged.skipped} skipped)` +
    (ch.outOfScope && ch.outOfScope.length > 0
      ? `; ${ch.outOfScope.length} out of scope of a focused run, not compared`
      : '')
  );
}
