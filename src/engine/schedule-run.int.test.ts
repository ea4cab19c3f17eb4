/**
 * A run follows its schedule and says how it went: report.json's `schedule` and a note give planned against
 * actual duration and requests, per key too. On the embedded server with a 10x clock (a window lasts 6 real s).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario } from './run.js';

describe('a compliance run on its schedule', () => {
  it('reports planned against actual duration and requests, and they agree', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-schedule-'));
    try {
      const lines: string[] = [];
      const r = await runScenario({
        scenario: loadScenario('compliance'),
        plans: ['free'],
        target: { kind: 'embedded', timeScale: 10 },
        reportDir: dir,
        log: (l) => lines.push(l),
      });
      expect(r.report.verdict).toBe('pass');
      const s = r.report.schedule!;
      // Known before any traffic: the first line of the log.
      expect(lines[0]).toMatch(
        /^schedule: probes take about \d+ s of real time .*; [\d,]+ requests \(free#1 \(…\w{4}\) \d+, /,
      );
      expect(s.keys.map((k) => k.label.replace(/ .*/, ''))).toEqual(['free#1', 'free#2', 'free#3']);
      // A probe that takes part of its work again on a busy machine (a burst split across two windows, a count whose
      // window rolled over) says so, and the report names its step: what it sent beyond the plan is accounted for.
      const retaken = s.retaken ?? [];
      const extra = (label?: string) =>
        retaken
          .filter((r) => label === undefined || r.keys.includes(label))
          .reduce((n, r) => n + Math.max(0, r.actual - r.planned), 0);
      const planned = s.planned.requests + s.planned.unkeyed;
      const actual = s.actual.requests + s.actual.unkeyed;
      const said = JSON.stringify({ keys: s.keys, retaken, unkeyed: [s.planned.unkeyed, s.actual.unkeyed] });
      expect(Math.abs(planned + extra() - actual) / actual, said).toBeLessThanOrEqual(0.05);
      for (const k of s.keys) {
        expect(k.actual, k.label).toBeGreaterThanOrEqual(k.planned - Math.max(2, 0.05 * k.actual));
        expect(k.actual, k.label).toBeLessThanOrEqual(k.planned + extra(k.label) + Math.max(2, 0.05 * k.actual));
      }
      // The schedule's waits really happened: a window to see the 429 and one to see the quota restored. How close
      // the actual time comes to the planned one is a figure of `npm run bench -- --real-clock`, not of a test on a
      // machine that may be busy.
      expect(s.planned.windows).toBeGreaterThan(1);
      expect(s.actual.windows).toBeGreaterThan(1);
      expect(
        r.report.notes.some((n) =>
          /^Probe schedule: planned .* and [\d,]+ requests; took .* and [\d,]+ requests( \(taken again beyond the plan: .*\))?\.$/.test(
            n,
          ),
        ),
      ).toBe(true);
      // The probes report sent as much as the report's totals count, less the reachability check (not counted).
      expect(actual).toBe(r.report.totals.requests);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
