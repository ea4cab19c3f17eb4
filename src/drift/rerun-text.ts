/**
 * What `petload rerun` says: the list of what it re-judges (printed before it runs), the outcome on the console,
 * rerun.md, and the record written as rerun.json. Every renderer reads the same record.
 */
import type { Report } from '../report/schema.js';
import { clean } from './console.js';
import { code, mdText, table } from './markdown.js';
import {
  RERUN_BUCKETS,
  type LeftWhy,
  type RejudgeWhy,
  type RerunBucket,
  type RerunComparison,
  type RerunSelection,
} from './rerun.js';
import type { CheckChange } from './schema.js';
import { checkName } from './words.js';

/** One run of the two, as rerun.json names it. */
export interface RerunRun {
  readonly report: string;
  readonly startedAt: string;
  readonly verdict: Report['verdict'];
  readonly target: string;
  readonly faults: readonly string[];
  readonly plans: readonly string[];
  readonly requests: number;
}

/** rerun.json: what was re-judged, why, and how it came out. */
export interface RerunRecord extends RerunComparison {
  readonly scenario: string;
  readonly before: RerunRun;
  readonly now: RerunRun;
  readonly chosen: RerunSelection['chosen'];
  readonly left: RerunSelection['left'];
}

export function runOf(path: string, r: Report): RerunRun {
  return {
    report: path,
    startedAt: r.startedAt,
    verdict: r.verdict,
    target: r.target.embedded ? 'the embedded reference server' : r.target.url,
    faults: r.target.faults,
    plans: r.plans,
    requests: r.totals.requests,
  };
}

const WHY_WORDS: Record<RejudgeWhy, string> = {
  failed: 'failed',
  'cut short': 'cut short by the target',
  'waits on': 'skipped for a check judged again',
  'not exercised': 'not exercised',
  'not judged': 'not judged',
};

const LEFT_WORDS: Record<LeftWhy, string> = {
  'never judged': 'the scenario has no judge for them',
  'no defect': 'they wait only on checks that did not fail',
  threshold: "thresholds are judged on the whole scenario's traffic: run it again",
};

const BUCKET_WORDS: Record<RerunBucket, string> = {
  stillFailing: 'still failing',
  newlyFailing: 'newly failing',
  notConfirmed: 'failed, not judged now',
  fixed: 'fixed',
  nowJudged: 'now judged',
  stillNotJudged: 'still not judged',
};

/** `a [free], b [-, free]`: each check once, with its plans. */
function namesOf(xs: readonly { check: string; plan: string | null }[]): string {
  const plans = new Map<string, string[]>();
  for (const x of xs) plans.set(x.check, [...(plans.get(x.check) ?? []), x.plan ?? '-']);
  return [...plans].map(([id, ps]) => `${id} [${[...new Set(ps)].join(', ')}]`).join(', ');
}

/** The lines printed before the re-run: what it re-judges, grouped by why, and what it leaves. */
export function selectionLines(selection: RerunSelection, before: RerunRun): string[] {
  const out = [
    `petload rerun: ${selection.checks.length} check${selection.checks.length === 1 ? '' : 's'} of ${clean(before.report, 200)} (${clean(before.startedAt, 40)}, ${before.verdict}) to judge again on ${selection.plans.join(', ') || 'no plan'}:`,
  ];
  for (const why of Object.keys(WHY_WORDS) as RejudgeWhy[]) {
    const xs = selection.chosen.filter((c) => c.why === why);
    if (xs.length > 0) out.push(`  ${WHY_WORDS[why]}: ${clean(namesOf(xs), 4000)}`);
  }
  for (const why of Object.keys(LEFT_WORDS) as LeftWhy[]) {
    const ids = [...new Set(selection.left.filter((c) => c.why === why).map((c) => c.check))];
    if (ids.length > 0) out.push(`  not judged again (${LEFT_WORDS[why]}): ${ids.join(', ')}`);
  }
  return out;
}

/** `1 fixed, 1 still failing, 4 now judged`: every bucket that holds something. */
export function rerunHeadline(r: RerunComparison): string {
  const parts = RERUN_BUCKETS.filter((b) => r[b].length > 0).map((b) => `${r[b].length} ${BUCKET_WORDS[b]}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing judged again';
}

const ANSI = { red: 31, green: 32, yellow: 33, dim: 2 } as const;
const STYLE: Record<RerunBucket, keyof typeof ANSI> = {
  stillFailing: 'red',
  newlyFailing: 'red',
  notConfirmed: 'yellow',
  fixed: 'green',
  nowJudged: 'green',
  stillNotJudged: 'dim',
};

/** What the pair said now (or then, when now says nothing). */
const detailNow = (x: CheckChange): string | null => x.currentDetail ?? x.baselineDetail;

/** The console's lines: the verdict, then each pair with its bucket and what the re-run said. */
export function rerunConsole(r: RerunRecord, options: { color?: boolean } = {}): string {
  const paint = (s: keyof typeof ANSI, t: string) => (options.color ? `\x1b[${ANSI[s]}m${t}\x1b[0m` : t);
  const out = [
    `petload rerun ${clean(r.scenario, 80)}: ${paint(r.exitCode === 0 ? 'green' : 'red', rerunHeadline(r))}`,
    paint(
      'dim',
      `  ${r.before.requests} requests then (${clean(r.before.startedAt, 40)}), ${r.now.requests} now; target ${clean(r.now.target, 120)}${r.now.faults.length > 0 ? `, faults ${r.now.faults.join(', ')}` : ''}`,
    ),
  ];
  for (const b of RERUN_BUCKETS)
    for (const x of r[b]) {
      const detail = b === 'fixed' || b === 'nowJudged' ? null : detailNow(x);
      out.push(
        `  ${paint(STYLE[b], BUCKET_WORDS[b].toUpperCase())} ${clean(checkName(x.id, x.plan), 100)}${detail ? `: ${clean(detail, 300)}` : ''}`,
      );
    }
  if (r.stillPassing > 0)
    out.push(paint('dim', `  ${r.stillPassing} other check-plan pairs judged again, passing as before`));
  return `${out.join('\n')}\n`;
}

/** rerun.md: the same, as Markdown, for the report folder and a job summary. */
export function rerunMarkdown(r: RerunRecord): string {
  const run = (side: string, x: RerunRun) =>
    `- ${side}: ${mdText(x.report)}, ${mdText(x.startedAt)}, ${x.verdict.toUpperCase()}, ${x.requests} requests on ${mdText(x.plans.join(', ') || 'no plan')}${x.faults.length > 0 ? `; faults ${mdText(x.faults.join(', '))}` : ''}`;
  const out = [
    `## Re-run of ${mdText(r.scenario)}: ${rerunHeadline(r)}`,
    '',
    run('then', r.before),
    run('now', r.now),
    `- target: ${mdText(r.now.target)}`,
    '',
  ];
  const rows = RERUN_BUCKETS.flatMap((b) =>
    r[b].map((x) => [
      `**${BUCKET_WORDS[b]}**`,
      code(checkName(x.id, x.plan)),
      x.severity,
      x.baseline,
      x.current,
      mdText(detailNow(x) ?? '-', 300),
    ]),
  );
  if (rows.length === 0) out.push('Nothing was judged again.');
  else out.push(...table(['', 'check', 'severity', 'then', 'now', 'detail'], rows));
  if (r.stillPassing > 0) out.push('', `${r.stillPassing} other check-plan pairs judged again, passing as before.`);
  const left = [...new Set(r.left.map((x) => x.check))];
  if (left.length > 0) out.push('', `Not judged again: ${left.map(code).join(', ')}.`);
  return `${out.join('\n')}\n`;
}
