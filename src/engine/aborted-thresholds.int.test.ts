/**
 * An aborted run with no data does not judge its thresholds: they are skipped, "not judged: the run was aborted",
 * in report.json, junit.xml and the console, instead of failing with "observed no data" beside the abort.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../config/load-scenario.js';
import { renderConsoleSummary } from '../outputs/console.js';
import { testKey } from '../testing/exchange-builder.js';
import { deadPort } from '../testing/hostile/server.js';
import { runScenario } from './run.js';

describe('an aborted run with no data', { timeout: 30_000 }, () => {
  it('does not judge its thresholds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-aborted-'));
    try {
      const port = await deadPort();
      const { report, exitCode } = await runScenario({
        scenario: loadScenario('smoke'),
        target: { kind: 'external', url: `http://127.0.0.1:${port}/v1`, keys: [testKey('free')] },
        reportDir: dir,
      });
      expect(exitCode).toBe(3);
      expect(report.verdict).toBe('aborted');
      expect(report.thresholds.length).toBeGreaterThan(0);
      for (const t of report.thresholds) {
        expect(t).toMatchObject({ observed: null, notJudged: 'not judged: the run was aborted' });
        const check = report.checks.find((c) => c.id === t.checkId)!;
        expect(check.status).toBe('skip');
        expect(check.byPlan[0]!.reasons).toEqual(['not judged: the run was aborted']);
      }
      const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
      expect(junit).toContain('<skipped message="not judged: the run was aborted"/>');
      expect(junit).not.toContain('observed no data');
      const text = renderConsoleSummary(report, { color: false });
      expect(text).toContain('  SKIP count(5xx) == 0  not judged: the run was aborted');
      expect(text).not.toMatch(/FAIL count/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
