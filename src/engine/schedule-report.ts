/**
 * The probe schedule before and after: what the planner expected (duration, requests per key) and what the run
 * took, for the console, the report's notes and report.json's `schedule`.
 */
import { formatCount, describeDuration, type Estimate } from './estimate.js';
import type { ScheduleOutcome } from './run-schedule.js';
import { fmtDuration, fmtWindows } from '../core/duration.js';
import type { Schedule } from './schedule.js';
import type { ScheduleReport } from '../report/schema.js';
import { MINUTE_MS } from '../api/plans.js';

export type { ScheduleReport };

const sum = (r: Readonly<Record<string, number>>) => Object.values(r).reduce((a, b) => a + b, 0);

/** Before any traffic: the plan in a few lines. */
export function scheduleLines(e: Estimate): string[] {
  const s = e.schedule;
  const perKey = Object.entries(s.requestsByKey).map(([label, n]) => `${label} ${formatCount(n)}`);
  return [
    `schedule: probes take ${describeDuration({ ...e, durationMs: s.durationMs })}; ${formatCount(sum(s.requestsByKey) + s.unkeyed)} requests (${perKey.length > 0 ? `${perKey.join(', ')}; ` : ''}${formatCount(s.unkeyed)} without a key)`,
    ...s.reasons.map((r) => `  slower than it could be: ${r}`),
    ...loadStartLines(e).map((l) => `  ${l}`),
  ];
}

/** When the load waits for the windows the probes' 429s spent (docs/schedule.md, "Probes and load"): one line. */
export function loadStartLines(e: Estimate): string[] {
  const s = e.schedule;
  if (e.loadAtMs <= s.durationMs) return [];
  const held = s.held.map((h) => `${h.label} by ${h.probe}`).join(', ');
  return [
    `the load starts after ${describeDuration({ ...e, durationMs: e.loadAtMs })}, when the windows the probes' 429s spent have ended (${held})`,
  ];
}

/** After the run: the schedule's plan against what its steps took and sent (the quota read is not part of it). */
export function scheduleReport(e: Estimate, o: ScheduleOutcome): { report: ScheduleReport; note: string } {
  const s = e.schedule;
  const labels = [...new Set([...Object.keys(s.requestsByKey), ...Object.keys(o.requestsByKey)])];
  const keys = labels.map((label) => ({
    label,
    planned: s.requestsByKey[label] ?? 0,
    actual: o.requestsByKey[label] ?? 0,
  }));
  const side = (clockMs: number, requests: number, unkeyed: number) => ({
    durationMs: Math.round(clockMs / e.scale),
    windows: Math.round((clockMs / MINUTE_MS) * 100) / 100,
    requests,
    unkeyed,
  });
  const retaken = retakenSteps(s, o);
  const report: ScheduleReport = {
    planned: side(s.durationMs, sum(s.requestsByKey), s.unkeyed),
    actual: side(o.durationMs, sum(o.requestsByKey), o.unkeyed),
    keys,
    fastestKeysPerPlan: s.fastestKeysPerPlan,
    reasons: [...s.reasons],
    retaken,
  };
  const p = report.planned;
  const a = report.actual;
  const beyond = retaken.map(
    (r) => `${r.probe}${r.plan ? ` [${r.plan}]` : ''} ${formatCount(r.actual)} of ${formatCount(r.planned)} planned`,
  );
  const note =
    `Probe schedule: planned ${fmtDuration(p.durationMs)} (${fmtWindows(p.windows)} windows) and ${formatCount(p.requests + p.unkeyed)} requests; ` +
    `took ${fmtDuration(a.durationMs)} (${fmtWindows(a.windows)} windows) and ${formatCount(a.requests + a.unkeyed)} requests` +
    (beyond.length > 0 ? ` (taken again beyond the plan: ${beyond.join(', ')}).` : '.');
  return { report, note };
}

/** The steps that took part of their work again (ProbeContext.again): what they planned and sent, and why. */
function retakenSteps(s: Schedule, o: ScheduleOutcome): NonNullable<ScheduleReport['retaken']> {
  const planned = new Map(s.steps.map((st) => [st.id, st]));
  return o.steps
    .filter((r) => r.again.length > 0)
    .map((r) => {
      const st = planned.get(r.id);
      return {
        probe: r.probe,
        plan: r.plan,
        keys: [...(st?.keys ?? [])],
        planned: st ? st.requests + st.unkeyed : 0,
        actual: r.sent,
        why: [...r.again],
      };
    });
}

/** The schedule as lines for people: one per step, then the totals. Times are real (run-clock ms / scale). */
export function describeSchedule(s: Schedule, scale = 1): string[] {
  const sec = (ms: number) => `${(ms / scale / 1000).toFixed(1).padStart(6)} s`;
  const lines = s.steps.map((st) => {
    const where = st.keys.length === 0 ? 'no key' : st.keys.join(' + ');
    const extra = [
      st.unkeyed > 0 ? `+${st.unkeyed} without a key` : '',
      st.straddle ? 'across an address window' : '',
      st.waits ?? '',
    ]
      .filter(Boolean)
      .join('; ');
    return `${sec(st.at)}  ${(st.plan ?? '-').padEnd(10)} ${st.probe.padEnd(19)} ${where}, window ${st.window + 1}, ${st.requests} requests${extra ? ` (${extra})` : ''}`;
  });
  for (const sk of s.skipped) lines.push(`        ${sk.plan.padEnd(10)} ${sk.probe.padEnd(19)} skipped: ${sk.reason}`);
  return lines;
}
