/**
 * The estimate against what runs really send, on the embedded server: the probe cost table (estimate.ts) must
 * follow the probes as they are, and the load's planned arrivals what the executors do.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLANS } from '../api/plans.js';
import { keyLabel, type ApiKey } from '../core/api-key.js';
import { loadScenario } from '../config/load-scenario.js';
import { estimateRequests } from './estimate.js';
import { runScenario } from './run.js';

describe('the estimate of a run is close to what it sends', () => {
  it.each([
    ['compliance', ['free'] as const],
    ['smoke', ['free', 'pro'] as const],
  ])('%s', { timeout: 60_000 }, async (name, plans) => {
    const scenario = loadScenario(name);
    const result = await runScenario({ scenario, plans, reportDir: mkdtempSync(join(tmpdir(), 'petload-estimate-')) });
    // The engine made the keys: the same number per plan, with the same figures.
    const keys: ApiKey[] = result.report.keys.map((k) => ({
      secret: 'x',
      plan: k.plan,
      limits: PLANS[k.plan as 'free'],
      label: keyLabel('x', k.label),
      sacrificial: k.sacrificial,
    }));
    const estimate = estimateRequests(scenario, keys, plans);
    // The reachability check is not among the requests a report counts.
    const estimated = estimate.total - 1;
    const sent = result.report.totals.requests;
    expect(sent).toBeGreaterThanOrEqual(0.9 * estimated);
    // The estimate plans one count of enforce per plan; on a machine too slow for the count's window (a rollover,
    // or a turn crowded by other plans) enforce counts once more by design, on a fresh key: its quota and one.
    const recount = plans.reduce((n, p) => n + (scenario.probes.includes('enforce') ? PLANS[p].perMinute + 1 : 0), 0);
    expect(sent).toBeLessThanOrEqual(1.1 * estimated + recount);
  });
});
