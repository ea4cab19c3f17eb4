/**
 * A declared tolerance (a plan's `tolerance: N%`): over-admission within it passes ratelimit.enforced with the
 * figure measured, beyond it fails, and report.json carries the plan's admission either way. The limiter: the
 * reference server's `per-instance` fault (two counters per key, in turn), which admits twice the figure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'petload-tolerance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function enforceWith(tolerance: string | null) {
  const file = join(dir, `t-${tolerance ?? 'none'}.yaml`.replace('%', 'pc'));
  const limits = tolerance === null ? '' : `planLimits:\n  free: { tolerance: ${tolerance} }\n`;
  writeFileSync(
    file,
    `name: tolerance\ndescription: enforce with a declared tolerance\nplans: [free]\nprobes: [enforce]\n${limits}`,
  );
  const r = await runScenario({
    scenario: loadScenario(file),
    reportDir: join(dir, 'r'),
    target: { kind: 'embedded', faults: ['per-instance'] },
  });
  const enforced = r.report.checks.find((c) => c.id === 'ratelimit.enforced')!;
  const row = r.report.planTable?.[0]?.rows.find((x) => x.figure === 'per-minute limit');
  return { status: enforced.status, admission: r.report.admission?.[0], measured: row?.measured };
}

describe('a declared tolerance', () => {
  it('passes over-admission within it, with the figure measured', { timeout: 30_000 }, async () => {
    const r = await enforceWith('100%');
    expect(r.status).toBe('pass');
    expect(r.admission).toEqual({
      plan: 'free',
      window: 'minute',
      accepted: 120,
      sold: 60,
      excessPercent: 100,
      tolerancePercent: 100,
      atLeast: false,
      within: true,
    });
    expect(r.measured).toBe('120/min against 60, +100 %, within the declared 100 %');
  });

  it('fails beyond it, and without one (zero by default)', { timeout: 30_000 }, async () => {
    for (const t of ['50%', null]) {
      const r = await enforceWith(t);
      expect(r.status, String(t)).toBe('fail');
      expect(r.admission).toMatchObject({ plan: 'free', sold: 60, within: false });
      expect(r.admission!.accepted).toBeGreaterThan(60);
    }
  });
});
