/**
 * Traffic classes on a real run (the embedded server, a 60x clock): the load's latency and the probes' are kept
 * apart, and a threshold on 429s judges the load unless it asks for the probes (docs/reports.md, "Traffic classes").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../config/load-scenario.js';
import { runScenario } from './run.js';

const SCENARIO = `
name: traffic-classes
description: a little load at half the limit, and the enforce probe's deliberate 429s
plans: [free]
timeScale: 60
keysPerPlan: 2
probes: [enforce]
load:
  phases:
    - { executor: constant-rate, rate: 50%, duration: 30s }
thresholds:
  - "count(429) == 0"
  - "count(429)[traffic=probes] > 0"
`;

describe('traffic classes on a run', { timeout: 60_000 }, () => {
  it('measures the load apart from the probes; count(429) == 0 holds though the enforce probe was refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-traffic-'));
    try {
      const rates: number[] = [];
      const { report } = await runScenario({
        scenario: parseScenarioText(SCENARIO, 'inline.yaml'),
        reportDir: dir,
        subscribe: (events) => events.on('phase', (e) => rates.push(e.progress.rate)),
      });
      // Per real second, from the load's start: the probes' requests before it never make the first line absurd.
      // Two free keys at 50 % of 60/min on a 60x clock: 60 requests a real second.
      expect(rates[0]).toBe(0);
      expect(Math.max(...rates)).toBeLessThan(100);
      expect(report.traffic).toEqual({ measured: 'load', load: ['phase 1 (constant-rate)'], probes: ['enforce'] });
      const load = report.operations.reduce((n, o) => n + o.count, 0);
      const probes = (report.probeOperations ?? []).reduce((n, o) => n + o.count, 0);
      expect(load).toBeGreaterThan(5);
      expect(probes).toBeGreaterThan(5);
      expect(load + probes).toBe(report.totals.requests);
      expect(report.operations.every((o) => o.statusCounts['429'] === undefined)).toBe(true);
      expect(report.probeOperations!.some((o) => (o.statusCounts['429'] ?? 0) > 0)).toBe(true);
      expect(report.thresholds.map((t) => [t.expression, t.ok])).toEqual([
        ['count(429) == 0', true],
        ['count(429)[traffic=probes] > 0', true],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
