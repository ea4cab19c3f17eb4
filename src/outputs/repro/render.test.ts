import { describe, expect, it } from 'vitest';
import type { CheckResult, Report } from '../../report/schema.js';
import { sampleReport } from '../../testing/sample-report.js';
import { renderConsoleSummary } from '../console.js';
import { renderHtml } from '../html.js';
import { renderJunit } from '../junit.js';
import { renderMarkdown } from '../markdown.js';
import { renderRepro, reproductions } from './render.js';

const SCRIPT = 'repro/ratelimit.reset-is-timestamp.free.sh';

/** The sample report (its free key's Reset in milliseconds) with a failure a replay cannot show beside it. */
function withRace(): Report {
  const r = sampleReport();
  const race: CheckResult = {
    id: 'ratelimit.no-over-admission',
    title: 'A burst never admits more than the limit',
    severity: 'critical',
    status: 'fail',
    counts: { passed: 0, failed: 1, skipped: 0 },
    byPlan: [
      {
        plan: 'pro',
        status: 'fail',
        counts: { passed: 0, failed: 1, skipped: 0 },
        evidence: [{ message: '305 of 305 accepted', request: 'GET /pets?limit=1', tag: 'probe:burst' }],
        reasons: [],
        info: {},
      },
    ],
  };
  r.checks.push(race);
  return r;
}

const RERUN = 'petload run compliance --probe burst --plan pro --time-scale 60 --fault reset-in-ms';

describe('reproductions under the failures', () => {
  it('are one entry per failed check and plan: a script, or why not and the probe to re-run', () => {
    const entries = reproductions(withRace());
    expect(entries.map((e) => [e.check, e.plan, e.file ?? null])).toEqual([
      ['auth.challenge', null, null],
      ['ratelimit.reset-is-timestamp', 'free', SCRIPT],
      ['threshold.rate(429) < 1%', null, null],
      ['ratelimit.no-over-admission', 'pro', null],
    ]);
    // The sample's auth.challenge failure has no evidence to send again.
    expect(entries[0]).toMatchObject({ why: expect.stringMatching(/^none of its evidence/) });
    expect(entries[2]).toMatchObject({
      why: "a threshold on the run's measured figures, not a defect of one answer",
      rerun: 'petload run compliance --time-scale 60 --fault reset-in-ms',
    });
    expect(entries[3]).toMatchObject({ rerun: RERUN, why: expect.stringMatching(/^a race/) });
  });

  it('summary.md shows the script path and first lines, or the reason and the probe to re-run', () => {
    const md = renderMarkdown(withRace());
    expect(md).toContain('#### Reproductions');
    expect(md).toContain(`\`sh ${SCRIPT}\` (exit 1 while the defect shows, 0 once fixed)`);
    expect(md).toContain('  # petload reproduction: ratelimit.reset-is-timestamp (critical) on the free plan');
    expect(md).toContain('  step \'POST /pets body={"name":"Rex","categoryId":2} with PETLOAD_KEY_FREE_1\'');
    expect(md).toContain(`Re-run its probe: \`${RERUN}\``);
  });

  it('report.html links the script and shows its first lines under the failure', () => {
    const html = renderHtml(withRace());
    expect(html).toContain(`<a class="mono" href="${SCRIPT}">sh ${SCRIPT}</a>`);
    expect(html).toContain('# petload reproduction: ratelimit.reset-is-timestamp (critical) on the free plan&#10;');
    expect(html).toContain(`Re-run its probe: <span class="mono">${RERUN}</span>`);
  });

  it('the console gives one line under the evidence; junit.xml names the script in the failure', () => {
    const text = renderConsoleSummary(withRace(), {
      color: false,
      columns: 200,
      files: { repro: '/reports/x/repro' },
    });
    expect(text).toContain('        reproduce: sh /reports/x/repro/ratelimit.reset-is-timestamp.free.sh');
    expect(text).toContain(`        re-run: ${RERUN} (no script: a race`);
    expect(renderJunit(withRace())).toContain(`Reproduce: sh ${SCRIPT}`);
  });

  it('never cost the report its other formats: a recipe that throws gives its reason instead', () => {
    const r = withRace();
    // A report.json edited by hand: the pro key's figures null.
    (r.keys[1] as { limits: unknown }).limits = null;
    r.checks.push({ ...r.checks.at(-1)!, id: 'ratelimit.enforced', title: 'enforced' });
    r.checks.at(-1)!.byPlan[0]!.evidence[0]!.key = r.keys[1]!.label;
    const entry = reproductions(r).find((e) => e.check === 'ratelimit.enforced');
    expect(entry!.why).toMatch(/^petload could not write its replay \(/);
    // The other failures keep their scripts.
    expect(Object.keys(renderRepro(r))).toEqual(['ratelimit.reset-is-timestamp.free.sh']);
  });
});
