/** Small text helpers shared by the renderers, so that every format words a report the same way. */
import { FAILING_SEVERITIES } from '../checks/catalogue.js';
import type { CheckResult, Report } from '../report/schema.js';
import { focusFlags, partialWords } from '../report/verdict.js';

export type PlanOutcome = CheckResult['byPlan'][number];
export type Evidence = PlanOutcome['evidence'][number];
export type VerdictWord = 'PASS' | 'FAIL' | 'ABORTED';

export function verdictWord(verdict: Report['verdict']): VerdictWord {
  return verdict === 'pass' ? 'PASS' : verdict === 'fail' ? 'FAIL' : 'ABORTED';
}

/**
 * The verdict as every verdict line says it: `PASS`, `PASS (partial: business not judged, no key)`, or for a focused
 * run `FAIL (focus: --check ratelimit.enforced)`.
 */
export function verdictPhrase(report: Pick<Report, 'verdict' | 'notJudged' | 'focus'>): string {
  const said = [partialWords(report), report.focus ? `focus: ${focusFlags(report.focus)}` : ''].filter((w) => w !== '');
  return said.length === 0 ? verdictWord(report.verdict) : `${verdictWord(report.verdict)} (${said.join('; ')})`;
}

/** Milliseconds with precision that fits their size: 0.42, 12.3, 250. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms < 1) return ms.toFixed(2);
  if (ms < 100) return ms.toFixed(1);
  return Math.round(ms).toString();
}

export function formatDuration(ms: number): string {
  const s = ms / 1000;
  if (s < 59.95) return `${s.toFixed(1)} s`;
  // Whole seconds first, so that 119.6 s is 2 min 0 s, never 1 min 60 s.
  const whole = Math.round(s);
  const m = Math.floor(whole / 60);
  if (m < 60) return `${m} min ${whole - m * 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The name of a check result for one plan: `id [plan]`, or the bare id when judged without a plan. */
export function caseName(id: string, plan: PlanOutcome['plan']): string {
  return plan === null ? id : `${id} [${plan}]`;
}

/** One line for a piece of evidence: message, then request, status and key when known. */
export function evidenceLine(e: Evidence): string {
  const parts = [e.message];
  const exchange = [e.request, e.status === undefined ? undefined : `-> ${e.status ?? 'no response'}`]
    .filter(Boolean)
    .join(' ');
  if (exchange) parts.push(`(${exchange})`);
  if (e.key) parts.push(`key ${e.key}`);
  return parts.join(' ');
}

/** Every detail of a piece of evidence, one per line (headers and body excerpt included). */
export function evidenceBlock(e: Evidence): string {
  const lines = [e.message];
  if (e.request) lines.push(`request: ${e.request}`);
  if (e.status !== undefined) lines.push(`status: ${e.status ?? 'no response'}`);
  if (e.key) lines.push(`key: ${e.key}`);
  if (e.tag) lines.push(`tag: ${e.tag}`);
  for (const [h, v] of Object.entries(e.headers ?? {})) lines.push(`${h}: ${v}`);
  if (e.body !== undefined) lines.push(`body: ${e.body}`);
  return lines.join('\n');
}

export function firstEvidence(check: CheckResult): { plan: PlanOutcome['plan']; evidence: Evidence } | undefined {
  for (const o of check.byPlan) {
    const e = o.evidence[0];
    if (e) return { plan: o.plan, evidence: e };
  }
  return undefined;
}

/** Skip reasons of a check over all its plans, without repeats. */
export function skipReasons(check: CheckResult): string[] {
  return [...new Set(check.byPlan.flatMap((o) => o.reasons))];
}

/** Responses per status class (2xx, 3xx, 4xx without 429, 429, 5xx, other) from per-status counts. */
export function statusClasses(
  counts: Record<string, number>,
): Record<'2xx' | '3xx' | '4xx' | '429' | '5xx' | 'other', number> {
  const out = { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0, other: 0 };
  for (const [status, n] of Object.entries(counts)) {
    const s = Number(status);
    if (s === 429) out['429'] += n;
    else if (s >= 200 && s < 300) out['2xx'] += n;
    else if (s >= 300 && s < 400) out['3xx'] += n;
    else if (s >= 400 && s < 500) out['4xx'] += n;
    else if (s >= 500 && s < 600) out['5xx'] += n;
    else out.other += n;
  }
  return out;
}

/** The observed value of a threshold with its unit, or `no data`. */
export function formatObserved(t: Report['thresholds'][number]): string {
  if (t.notJudged !== undefined) return t.notJudged;
  if (t.observed === null) return 'no data';
  const v =
    t.unit === 'ms' ? formatMs(t.observed) : Number.isInteger(t.observed) ? String(t.observed) : t.observed.toFixed(3);
  return t.unit === '' ? v : `${v}${t.unit === '%' ? '' : ' '}${t.unit}`;
}

/**
 * `a, b, c` within `max` characters, shortened by whole entries (`a, b and 3 more`), never in the middle of one.
 * The first entry is always shown.
 */
export function listWithin(items: readonly string[], max = Number.POSITIVE_INFINITY): string {
  const all = items.join(', ');
  if (all.length <= max || items.length <= 1) return all;
  for (let n = items.length - 1; n >= 1; n--) {
    const text = `${items.slice(0, n).join(', ')} and ${items.length - n} more`;
    if (text.length <= max || n === 1) return text;
  }
  return all;
}

/** The keys of a run by label and plan, within `max` characters (shortened by whole keys). */
export function keysLine(report: Report, max = Number.POSITIVE_INFINITY): string {
  if (report.keys.length === 0) return 'none';
  return listWithin(
    report.keys.map((k) => `${k.label} (${k.plan}${k.sacrificial ? ', sacrificial' : ''})`),
    max,
  );
}

/** `3 of 100`: failed of judged (passed or failed; skips are not judgements). */
export function failedOf(c: PlanOutcome['counts']): string {
  return `${c.failed} of ${c.failed + c.passed}`;
}

/**
 * A check's judgements per plan, `free 3/100, pro 2/100, business 0/100`: every plan that judged something,
 * so that the per-plan figures add up to the check's overall counts (CheckResult.counts is their sum). Empty
 * when the check was judged without a plan only.
 */
export function planBreakdown(check: CheckResult): string {
  const judged = check.byPlan.filter((o) => o.counts.failed + o.counts.passed > 0);
  // Judged without a plan only (e.g. a request without a key): the overall counts say it all.
  if (judged.length === 1 && judged[0]!.plan === null) return '';
  return judged.map((o) => `${o.plan ?? 'no plan'} ${o.counts.failed}/${o.counts.failed + o.counts.passed}`).join(', ');
}

export function targetLine(report: Report): string {
  const t = report.target;
  const bits = [t.url];
  if (t.embedded) bits.push(`embedded, time x${t.timeScale}`);
  else if (t.timeScale !== 1) bits.push(`time x${t.timeScale}`);
  if (t.faults.length > 0) bits.push(`faults: ${t.faults.join(', ')}`);
  for (const [k, v] of Object.entries(t.variant ?? {})) bits.push(`${k}=${v}`);
  return bits.length === 1 ? t.url : `${t.url} (${bits.slice(1).join('; ')})`;
}

/** PASS, FAIL (a failing severity broke) or WARN (a severity that does not fail the run broke). */
export function thresholdWord(t: Report['thresholds'][number]): 'PASS' | 'FAIL' | 'WARN' | 'SKIP' {
  if (t.notJudged !== undefined) return 'SKIP';
  if (t.ok) return 'PASS';
  return FAILING_SEVERITIES.has(t.severity) ? 'FAIL' : 'WARN';
}

/** `1 warning`, `2 warnings`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The counts line shared by every format: `42 checks: 6 passed, 2 failed, 1 warning, 33 skipped`. */
export function countsLine(s: Report['summary']): string {
  return `${plural(s.checks, 'check')}: ${s.passed} passed, ${s.failed} failed, ${plural(s.warnings, 'warning')}, ${s.skipped} skipped`;
}

/** The title of the checks a probe's early end left unjudged with no check failed for it (they fail the run). */
export const CUT_SHORT_TITLE = 'Not judged, and nothing failed for it: a probe ended early';

/** One such check: on which plans, and why its probe ended (its first reason there). */
export function cutShortText(c: CheckResult): string {
  const cut = c.byPlan.filter((p) => p.status === 'skip' && p.cutShort !== undefined);
  const plans = cut.map((p) => p.plan ?? 'no plan').join(', ');
  return `${c.id} (${c.severity}) on ${plans}: ${cut[0]?.reasons[0] ?? 'not judged'}`;
}

/** Skipped checks grouped by their first reason, so that one common reason is said once. */
export function skipsByReason(checks: readonly CheckResult[]): { reason: string; ids: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const c of checks) {
    const reason = skipReasons(c)[0] ?? 'not judged';
    groups.set(reason, [...(groups.get(reason) ?? []), c.id]);
  }
  return [...groups].map(([reason, ids]) => ({ reason, ids }));
}
