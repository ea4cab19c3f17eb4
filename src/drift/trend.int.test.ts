/**
 * A trend over five real nights (compliance runs on Free against the embedded reference server, written to five
 * report folders as CI artifacts would be), one of them with a fault: the page puts the five in one group, in start
 * order, and shows the faulty night, as its verdict, the check that failed that night and the Limit it was sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario } from '../engine/run.js';
import { findReports, type TrendPage, trend } from './trend.js';
import { trendHtml } from './trend-html.js';

const root = mkdtempSync(join(tmpdir(), 'petload-trend-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** The third night runs with a fault. */
const FAULTY = 2;

describe('trend over five nights, one of them faulty', { timeout: 180_000 }, () => {
  let page: TrendPage;
  beforeAll(async () => {
    for (let night = 0; night < 5; night++) {
      await runScenario({
        scenario: loadScenario('compliance'),
        reportDir: join(root, `night-${night}`, 'compliance'),
        target: { kind: 'embedded', faults: night === FAULTY ? ['wrong-plan-limit'] : [] },
        plans: ['free'],
        log: () => {},
      });
    }
    page = trend(await findReports([root]));
  }, 180_000);

  it('shows that night', () => {
    expect(page.skipped).toEqual([]);
    expect(page.groups.map((g) => [g.scenario, g.runs.length])).toEqual([['compliance', 5]]);
    const [g] = page.groups;
    expect(g!.runs.map((r) => r.verdict)).toEqual(['pass', 'pass', 'fail', 'pass', 'pass']);
    expect(g!.runs.map((r) => r.faults.join(','))).toEqual(['', '', 'wrong-plan-limit', '', '']);
    const strip = g!.checks.find((c) => c.id === 'ratelimit.limit-matches-plan' && c.plan === 'free')!;
    expect(strip.statuses).toEqual(['pass', 'pass', 'fail', 'pass', 'pass']);
    expect(g!.limits.find((l) => l.plan === 'free')!.seen).toEqual([[60], [60], [1000], [60], [60]]);
    const html = trendHtml(page);
    expect(html).toContain('wrong-plan-limit');
  });
});
