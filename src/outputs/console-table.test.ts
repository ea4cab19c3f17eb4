import { describe, expect, it } from 'vitest';
import type { Report } from '../report/schema.js';
import { sampleReport } from '../testing/sample-report.js';
import { renderConsoleSummary } from './console.js';
import { tableLines, wrapLine, wrapWords } from './console-table.js';

/** Every word of `text`, in order, somewhere in `out` (a wrapped text keeps them all). */
function inOrder(out: string, text: string): boolean {
  const esc = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(text.split(' ').filter(Boolean).map(esc).join('[\\s\\S]*?')).test(out);
}

const EVIDENCE =
  'refused again (429) after waiting Retry-After (28 s) + 250 ms; the 429 that promised: Retry-After: 28, ' +
  'X-RateLimit-Reset: 1894708860, Date: Tue, 15 Jan 2030 12:00:30 GMT; petload came back 28.3 s after it ' +
  "(at 2030-01-15T12:00:58.250Z, petload's clock); the answer then: 429, Retry-After: 14, X-RateLimit-Reset: " +
  '1894708874, Date: Tue, 15 Jan 2030 12:00:58 GMT';

/** The sample report with retry-after.honest failed for free, its evidence long and full of figures. */
function withLongEvidence(): Report {
  const r = structuredClone(sampleReport());
  const honest = r.checks.find((c) => c.id === 'retry-after.honest')!;
  honest.status = 'fail';
  honest.byPlan = [
    {
      plan: 'free',
      status: 'fail',
      counts: { passed: 0, failed: 1, skipped: 0 },
      evidence: [{ message: EVIDENCE }],
      reasons: [],
      info: {},
    },
  ];
  const row = r.planTable!.find((p) => p.plan === 'free')!.rows.find((x) => x.figure === 'Retry-After')!;
  Object.assign(row, { status: 'not held', measured: EVIDENCE, check: 'retry-after.honest' });
  return r;
}

describe('wrapWords', () => {
  it('breaks at spaces, keeps every word, and leaves a short text as it is', () => {
    expect(wrapWords('a  b', 10)).toEqual(['a  b']);
    expect(wrapWords('Retry-After (28 s) + 250 ms', 12)).toEqual(['Retry-After', '(28 s) + 250', 'ms']);
    expect(wrapWords('x'.repeat(20), 8)).toEqual(['xxxxxxxx', 'xxxxxxxx', 'xxxx']);
  });

  it('hangs continuation lines under the text', () => {
    expect(wrapLine('  FAIL ', 'one two three four five six seven eight nine ten eleven twelve', 40)).toEqual([
      '  FAIL one two three four five six seven',
      '         eight nine ten eleven twelve',
    ]);
  });

  it('wraps a table column, or puts its text under the row when the other columns leave no room', () => {
    const head = ['plan', 'measured', 'check'];
    const rows = [['free', 'waits 54–58 s; honoured on every 429 of the plan', 'retry-after.honest']];
    expect(tableLines(head, rows, { width: 60, wrap: 1 })).toEqual([
      '  plan  measured                        check',
      '  free  waits 54–58 s; honoured on      retry-after.honest',
      '        every 429 of the plan',
    ]);
    expect(tableLines(head, rows, { width: 40, wrap: 1 })).toEqual([
      '  plan  check',
      '  free  retry-after.honest',
      '      measured: waits 54–58 s; honoured',
      '        on every 429 of the plan',
    ]);
  });
});

describe('the console at 80 and 200 columns', () => {
  it.each([80, 200])('at %i columns: no line wider, and every figure whole', (columns) => {
    const report = withLongEvidence();
    const out = renderConsoleSummary(report, { color: false, columns });
    for (const line of out.split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns);
    expect(out.replace(/\(…\w{4}\)/g, '')).not.toContain('…'); // none but the keys' own (…abcd)
    // The plan table's measured text and the evidence, word for word (the figures among them).
    expect(inOrder(out, EVIDENCE)).toBe(true);
    expect(out.split(EVIDENCE.split(' ')[0]!).length).toBeGreaterThan(2); // in the table and under Failed
    for (const p of report.planTable!)
      for (const row of p.rows) if (row.measured) expect(inOrder(out, row.measured)).toBe(true);
    for (const figure of ['(28 s) + 250 ms', '28.3 s', '1894708860,', '1894708874,']) expect(out).toContain(figure);
  });
});
