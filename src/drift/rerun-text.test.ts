import { describe, expect, it } from 'vitest';
import type { CheckChange } from './schema.js';
import {
  type RerunRecord,
  type RerunRun,
  rerunConsole,
  rerunHeadline,
  rerunMarkdown,
  selectionLines,
} from './rerun-text.js';

const run = (requests: number, faults: string[]): RerunRun => ({
  report: 'reports/night/report.json',
  startedAt: '2026-11-28T02:00:00.000Z',
  verdict: 'fail',
  target: 'the embedded reference server',
  faults,
  plans: ['free'],
  requests,
});

/** A pair as compare.json gives it; the target's words in the detail. */
const pair = (
  id: string,
  baseline: CheckChange['baseline'],
  current: CheckChange['current'],
  detail: string,
): CheckChange => ({
  id,
  title: id,
  severity: 'critical',
  plan: 'free',
  baseline,
  current,
  baselineDetail: detail,
  currentDetail: current === 'pass' ? null : detail,
  failed: { baseline: baseline === 'fail' ? 1 : 0, current: current === 'fail' ? 1 : 0 },
});

// A body the target wrote, with a terminal escape, a newline and a table's pipe in it.
const HOSTILE = 'not an Error body: \x1b[2Jcleared | screen\nnext line';

const record: RerunRecord = {
  scenario: 'compliance',
  before: run(530, ['limit-not-enforced']),
  now: run(120, []),
  chosen: [
    { check: 'ratelimit.enforced', plan: 'free', why: 'failed', detail: '70 accepted' },
    { check: 'contract.error-shape', plan: null, why: 'failed', detail: HOSTILE },
    { check: 'retry-after.present', plan: 'free', why: 'not exercised', detail: 'not exercised: no 429 response' },
  ],
  left: [{ check: 'ban.probe', plan: 'free', why: 'never judged', detail: 'not exercised: opt-in' }],
  stillFailing: [{ ...pair('contract.error-shape', 'fail', 'fail', HOSTILE), plan: null }],
  newlyFailing: [],
  notConfirmed: [],
  fixed: [pair('ratelimit.enforced', 'fail', 'pass', '70 accepted')],
  nowJudged: [pair('retry-after.present', 'skip', 'pass', 'not exercised: no 429 response')],
  stillNotJudged: [],
  stillPassing: 4,
  exitCode: 1,
};

describe("petload rerun's words", () => {
  it('the list printed first: what is judged again, grouped by why, each check once with its plans, and what is left', () => {
    const lines = selectionLines(
      { ...record, checks: ['ratelimit.enforced', 'contract.error-shape', 'retry-after.present'], plans: ['free'] },
      record.before,
    );
    expect(lines[0]).toBe(
      'petload rerun: 3 checks of reports/night/report.json (2026-11-28T02:00:00.000Z, fail) to judge again on free:',
    );
    expect(lines[1]).toBe('  failed: ratelimit.enforced [free], contract.error-shape [-]');
    expect(lines[2]).toBe('  not exercised: retry-after.present [free]');
    expect(lines[3]).toBe('  not judged again (the scenario has no judge for them): ban.probe');
    expect(lines.join('\n')).not.toContain('\x1b');
  });

  it("the console: the headline, one line per pair, the target's text never raw", () => {
    expect(rerunHeadline(record)).toBe('1 still failing, 1 fixed, 1 now judged');
    const text = rerunConsole(record);
    expect(text).not.toContain('\x1b');
    expect(text.split('\n')).toEqual([
      'petload rerun compliance: 1 still failing, 1 fixed, 1 now judged',
      '  530 requests then (2026-11-28T02:00:00.000Z), 120 now; target the embedded reference server',
      '  STILL FAILING contract.error-shape: not an Error body: \\x1b[2Jcleared | screen next line',
      '  FIXED ratelimit.enforced [free]',
      '  NOW JUDGED retry-after.present [free]',
      '  4 other check-plan pairs judged again, passing as before',
      '',
    ]);
    expect(rerunConsole(record, { color: true })).toContain('\x1b[31m1 still failing, 1 fixed, 1 now judged\x1b[0m');
  });

  it('rerun.md: one table row per pair, its cells escaped; nothing judged again said in words', () => {
    const md = rerunMarkdown(record);
    expect(md).toMatch(/^## Re-run of compliance: 1 still failing, 1 fixed, 1 now judged\n/);
    const rows = md.split('\n').filter((l) => l.startsWith('| **'));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toContain('| **still failing** | `contract.error-shape` | critical | fail | fail |');
    expect(rows[0]).not.toContain('\x1b');
    expect(rows[0]).toContain('cleared \\| screen');
    expect(md).toContain('Not judged again: `ban.probe`.');
    const none = { ...record, stillFailing: [], fixed: [], nowJudged: [] };
    expect(rerunMarkdown(none)).toContain('Nothing was judged again.');
  });
});
