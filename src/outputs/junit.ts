/**
 * junit.xml: one <testcase> per check id per plan and one per threshold, so that CI shows which rule broke.
 *
 * - classname is `petload.<family>` (contract, auth, ratelimit, retry-after, client; `threshold` for thresholds),
 *   name is `<check id> [<plan>]` (the bare id when the check was judged without a plan).
 * - A failed critical or major check is a <failure> carrying its first message and every kept evidence.
 * - A failed minor or advisory check is NOT a <failure>: it does not fail the run, and a red CI for a run
 *   that passed would teach people to ignore the file. It passes with `WARNING` and its evidence in <system-out>.
 * - A skipped check is <skipped message="reason">; an info check passes with its facts in <system-out>.
 * - An aborted run adds one <error> case, `run [aborted]`, with the abort reason.
 */
import { CATALOGUE, FAILING_SEVERITIES } from '../checks/catalogue.js';
import { isCatalogueId } from '../checks/ledger.js';
import type { CheckResult, Report } from '../report/schema.js';
import { cutShortUnowned, failedIds, focusFlags } from '../report/verdict.js';
import { escapeAttr, escapeText } from './escape.js';
import { caseName, evidenceBlock, formatObserved, keysLine, type PlanOutcome, targetLine } from './format.js';
import { reproductionsOf } from './repro/render.js';

interface Case {
  classname: string;
  name: string;
  /** The element inside the test case, already rendered, or '' for a plain pass. */
  body: string;
  kind: 'pass' | 'failure' | 'skipped' | 'error';
}

function familyOf(id: string): string {
  if (isCatalogueId(id)) return CATALOGUE[id].family;
  if (id.startsWith('threshold.')) return 'threshold';
  return id.split('.')[0] ?? id;
}

function countsLine(o: PlanOutcome['counts']): string {
  return `${o.failed} failed, ${o.passed} passed, ${o.skipped} not judged`;
}

function factsText(o: PlanOutcome): string {
  const lines = Object.entries(o.info).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  if (o.reasons.length > 0) lines.push(`not judged: ${o.reasons.join('; ')}`);
  return lines.join('\n');
}

function systemOut(text: string): string {
  return text === '' ? '' : `<system-out>${escapeText(text)}</system-out>`;
}

/** How to see a failure again, for its text: the script in the report folder, else the probe to re-run. */
type ReproLine = (check: CheckResult, o: PlanOutcome) => string;

function reproLineOf(report: Report): ReproLine {
  return (check, o) => {
    const e = reproductionsOf(report, check.id).find((x) => x.plan === o.plan);
    if (e === undefined) return '';
    return e.file !== undefined ? `Reproduce: sh ${e.file}` : `Re-run: ${e.rerun} (no script: ${e.why})`;
  };
}

function outcomeCase(check: CheckResult, o: PlanOutcome, failed: ReadonlySet<string>, repro: ReproLine): Case {
  const classname = `petload.${familyOf(check.id)}`;
  const name = caseName(check.id, o.plan);
  const evidence = o.evidence.map(evidenceBlock).join('\n\n');
  if (cutShortUnowned(check, o, failed)) {
    // Not judged, and no check failed for what ended its probe: it fails the run (src/report/verdict.ts).
    const message = `${o.reasons[0] ?? 'not judged: the probe ended early'}; no check failed for it`;
    const text = `${check.title} (${check.severity})\n\n${o.reasons.join('\n')}`;
    return {
      classname,
      name,
      kind: 'failure',
      body: `<failure message="${escapeAttr(message)}" type="${check.severity}">${escapeText(text)}</failure>`,
    };
  }
  if (o.status === 'skip') {
    const reason = o.reasons.length > 0 ? o.reasons.join('; ') : 'not judged';
    return { classname, name, kind: 'skipped', body: `<skipped message="${escapeAttr(reason)}"/>` };
  }
  if (o.status === 'fail' && FAILING_SEVERITIES.has(check.severity)) {
    const message = o.evidence[0]?.message ?? `${o.counts.failed} failure(s)`;
    const text = [`${check.title} (${check.severity})`, countsLine(o.counts), evidence, factsText(o), repro(check, o)]
      .filter(Boolean)
      .join('\n\n');
    return {
      classname,
      name,
      kind: 'failure',
      body: `<failure message="${escapeAttr(message)}" type="${check.severity}">${escapeText(text)}</failure>`,
    };
  }
  if (o.status === 'fail') {
    const text = [
      `WARNING (${check.severity}): ${check.title}`,
      countsLine(o.counts),
      evidence,
      factsText(o),
      repro(check, o),
    ]
      .filter(Boolean)
      .join('\n\n');
    return { classname, name, kind: 'pass', body: systemOut(text) };
  }
  return { classname, name, kind: 'pass', body: systemOut(factsText(o)) };
}

function checkCases(check: CheckResult, failed: ReadonlySet<string>, repro: ReproLine): Case[] {
  // A check that was never judged for any plan still gets its case, so that CI lists every id.
  const outcomes: PlanOutcome[] =
    check.byPlan.length > 0
      ? check.byPlan
      : [{ plan: null, status: check.status, counts: check.counts, evidence: [], reasons: [], info: {} }];
  return outcomes.map((o) => outcomeCase(check, o, failed, repro));
}

function thresholdCase(t: Report['thresholds'][number]): Case {
  const classname = 'petload.threshold';
  const name = t.checkId;
  if (t.notJudged !== undefined)
    return { classname, name, kind: 'skipped', body: `<skipped message="${escapeAttr(t.notJudged)}"/>` };
  const line = `${t.expression}: observed ${formatObserved(t)}`;
  if (t.ok) return { classname, name, kind: 'pass', body: systemOut(line) };
  if (!FAILING_SEVERITIES.has(t.severity)) {
    return { classname, name, kind: 'pass', body: systemOut(`WARNING (${t.severity}): ${line}`) };
  }
  return {
    classname,
    name,
    kind: 'failure',
    body: `<failure message="${escapeAttr(line)}" type="${t.severity}">${escapeText(line)}</failure>`,
  };
}

function junitCases(report: Report): Case[] {
  const thresholdIds = new Set(report.thresholds.map((t) => t.checkId));
  // Threshold checks appear once, from report.thresholds, where their observed value is known.
  const failed = failedIds(report.checks);
  const repro = reproLineOf(report);
  const cases = report.checks.filter((c) => !thresholdIds.has(c.id)).flatMap((c) => checkCases(c, failed, repro));
  cases.push(...report.thresholds.map(thresholdCase));
  // A partial run: each plan its scope named and it did not judge, a skipped case CI lists.
  for (const n of report.notJudged ?? [])
    cases.push({
      classname: 'petload.scope',
      name: `scope [${n.plan}]`,
      kind: 'skipped',
      body: `<skipped message="${escapeAttr(`plan ${n.plan} not judged: ${n.reason} (a partial run)`)}"/>`,
    });
  if (report.verdict === 'aborted') {
    const reason = report.abortReason ?? 'the run was aborted';
    cases.push({
      classname: 'petload.run',
      name: 'run [aborted]',
      kind: 'error',
      body: `<error message="${escapeAttr(reason)}" type="aborted">${escapeText(reason)}</error>`,
    });
  }
  return cases;
}

/** How many test cases junit.xml holds for a report (one per check and plan, one per threshold, one for an abort). */
export const junitCaseCount = (report: Report): number => junitCases(report).length;

export function renderJunit(report: Report): string {
  const cases = junitCases(report);
  const count = (k: Case['kind']) => cases.filter((c) => c.kind === k).length;
  const totals = `tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" skipped="${count('skipped')}" time="${(report.durationMs / 1000).toFixed(3)}"`;
  const suiteName = escapeAttr(`petload.${report.scenario.name}`);
  const properties: [string, string][] = [
    ['verdict', report.verdict],
    ['exitCode', String(report.exitCode)],
    ['scenario', report.scenario.name],
    ['target', targetLine(report)],
    ['plans', report.plans.join(', ')],
    ...(report.notJudged && report.notJudged.length > 0
      ? ([['notJudged', report.notJudged.map((n) => `${n.plan} (${n.reason})`).join(', ')]] as [string, string][])
      : []),
    ...(report.focus
      ? ([
          ['focus', focusFlags(report.focus)],
          ['outOfScope', (report.outOfScope ?? []).join(', ')],
        ] as [string, string][])
      : []),
    ['keys', keysLine(report)],
    ['tool', `${report.tool.name} ${report.tool.version}`],
  ];
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${suiteName}" ${totals}>`,
    `  <testsuite name="${suiteName}" ${totals} timestamp="${escapeAttr(report.startedAt)}">`,
    '    <properties>',
    ...properties.map(([n, v]) => `      <property name="${n}" value="${escapeAttr(v)}"/>`),
    '    </properties>',
    ...cases.map((c) => {
      const open = `    <testcase classname="${escapeAttr(c.classname)}" name="${escapeAttr(c.name)}" time="0"`;
      return c.body === '' ? `${open}/>` : `${open}>${c.body}</testcase>`;
    }),
    '  </testsuite>',
    '</testsuites>',
    '',
  ];
  return lines.join('\n');
}
