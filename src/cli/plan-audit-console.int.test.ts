/**
 * The plan audit's console, through the CLI against the embedded server at x60 (a day of 2000 at 60 a minute: about
 * 34 s of real time): its progress lines give the time left in real seconds with the run clock beside them, their
 * counts agree with the plan's line (which counts as the run goes, not as it stood when the audit began) and with
 * the report; and after Ctrl-C, the summary says the run stopped, not to run the scenario that was interrupted.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readReportJson, runCli, scratch, startCli } from '../testing/cli.js';

const DAY = 2000;
const AUDIT_LINE =
  /^plan-audit \[free\]: (\d+) of (\d+) accepted today, (\d+) sent, about (.+) left \((.+) on the 60x clock\)$/;
const BOARD_LINE = /^free: .*; sent (\d+)/;

/** Seconds of `45 s` or `2 min 05 s`. */
function seconds(text: string): number {
  const m = /^(?:(\d+) min )?(\d+) s$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1] ?? 0) * 60 + Number(m[2]);
}

function audit(dir: string) {
  const s = scratch('petload-audit-console-');
  const plans = s.file('short-day.json', JSON.stringify({ plans: { free: { perDay: DAY } } }));
  return ['run', 'plan-audit', '--plan', 'free', '--plans-file', plans, '--report-dir', join(s.dir, dir)] as const;
}

describe("the plan audit's console", () => {
  it('speaks in real seconds, the run clock beside them, with counts that agree', { timeout: 120_000 }, async () => {
    const args = audit('r');
    const cli = await runCli(args, { killAfterMs: 110_000 });
    expect(cli.code, cli.stderr).toBe(0);
    const lines = cli.stderr.split('\n');
    const report = readReportJson(join(args.at(-1)!));
    const audits = lines.flatMap((l) => {
      const m = AUDIT_LINE.exec(l);
      return m ? [{ accepted: Number(m[1]), sent: Number(m[3]), real: seconds(m[4]!), clock: seconds(m[5]!) }] : [];
    });
    expect(audits.length).toBeGreaterThan(20);
    for (const a of audits) {
      // What is left, on the run clock, is the unspent day at the minute figure; in real time, a 60th of it.
      expect(Math.abs(a.clock - (DAY - a.accepted))).toBeLessThanOrEqual(1);
      expect(Math.abs(a.real - a.clock / 60)).toBeLessThanOrEqual(0.51);
      expect(a.sent).toBeGreaterThanOrEqual(a.accepted);
    }
    const info = report.checks.find((c) => c.id === 'ratelimit.day-enforced')?.byPlan[0]?.info;
    expect(info?.acceptedInDay).toBe(DAY);
    // Every request the key sent: the day, a 429 per minute window on the way, and the day's 429.
    const total = DAY + Number(info?.minuteRefusals) + 1;
    // The plan's lines (one at 30 s while the audit runs, one when it is done, one for a wait of a real second) count
    // the requests as the key's standing had them, a few seconds old at most under load: no fewer than the audit's
    // line before them said, less 300 (60 a real second), no more than the one after them says.
    const counts = lines.flatMap((l) => {
      const a = AUDIT_LINE.exec(l);
      const b = BOARD_LINE.exec(l);
      return a ? [{ audit: true, sent: Number(a[3]) }] : b ? [{ audit: false, sent: Number(b[1]) }] : [];
    });
    const board = counts.flatMap((c, i) => {
      if (c.audit) return [];
      const before = counts.slice(0, i).findLast((x) => x.audit)?.sent ?? 0;
      const after = counts.slice(i + 1).find((x) => x.audit)?.sent ?? total;
      return [{ sent: c.sent, before, after }];
    });
    for (const b of board) {
      expect(b.sent).toBeGreaterThanOrEqual(b.before - 300);
      expect(b.sent).toBeLessThanOrEqual(b.after);
    }
    // At least one of them while the audit ran, well into it.
    expect(board.slice(0, -1).some((b) => b.before > DAY / 2)).toBe(true);
    expect(board.at(-1)!.sent).toBe(total);
  });

  it('after Ctrl-C, says the run stopped, not to run the scenario that was interrupted', {
    timeout: 60_000,
  }, async () => {
    const args = audit('i');
    const run = startCli(args, { killAfterMs: 50_000 });
    await run.waitForStderr(/^plan-audit \[free\]: /m);
    run.child.kill('SIGINT');
    const cli = await run.done;
    expect(cli.code).toBe(130);
    expect(cli.stdout).not.toMatch(/run the plan-audit scenario/);
    const report = readReportJson(join(args.at(-1)!));
    const reasons = report.checks.find((c) => c.id === 'ratelimit.day-enforced')?.byPlan.flatMap((p) => p.reasons);
    expect(reasons?.length).toBeGreaterThan(0);
    for (const r of reasons ?? [])
      expect(r).toMatch(/^the run (ended before the day was spent|stopped during the plan-audit probe)$/);
  });
});
