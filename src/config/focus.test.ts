import { describe, expect, it } from 'vitest';
import { CATALOGUE, CHECK_IDS, type CheckId, type Judge } from '../checks/catalogue.js';
import { PetloadError } from '../core/errors.js';
import { PROBE_REGISTRY } from '../probes/index.js';
import { DEFAULT_PROBES } from '../probes/names.js';
import { checksInScope, describeFocus, focusScenario, probesFor, selectFocus, shippedScenariosWith } from './focus.js';
import { loadScenario } from './load-scenario.js';

const compliance = loadScenario('compliance');
const smoke = loadScenario('smoke');
const judged = (id: CheckId, judge: Judge) => (CATALOGUE[id].judgedBy as readonly Judge[]).includes(judge);

describe('probesFor', () => {
  it('gives the probes whose checks name a check', () => {
    expect(probesFor('ratelimit.enforced')).toEqual(['enforce']);
    expect(probesFor('auth.challenge')).toEqual(['auth']);
  });

  it("gives a passive check the probes its catalogue entry names as exercising it, each one a default probe's", () => {
    expect(probesFor('retry-after.present')).toEqual(['enforce']);
    expect(probesFor('contract.error-shape')).toEqual(['unknown-id']);
    // GET /store/orders without a key (auth) and with a plan's key within its quota (what-counts): a re-run of a
    // plan's failure must send one the target can answer 404 again (enforce's over the limit gets 429, unjudged).
    expect(probesFor('contract.every-endpoint')).toEqual(['auth', 'what-counts']);
    for (const id of CHECK_IDS) {
      const byProbe = Object.values(PROBE_REGISTRY).some((p) => p.checks.includes(id));
      if (judged(id, 'observer') && !byProbe) {
        expect(probesFor(id).length, id).toBeGreaterThan(0);
        for (const p of probesFor(id)) expect(DEFAULT_PROBES, id).toContain(p);
      } else expect(CATALOGUE[id], id).not.toHaveProperty('exercisedBy');
    }
  });
});

describe('focusScenario', () => {
  it('keeps only the probes that judge the checks named, and puts only those checks in scope', () => {
    const f = focusScenario(compliance, { checks: ['ratelimit.enforced'], probes: [] });
    expect(f.scenario.probes).toEqual(['enforce']);
    expect(f.inScope).toEqual(['ratelimit.enforced']);
    expect(f.outOfScope).toHaveLength(CHECK_IDS.length - 1);
    expect(f.outOfScope).not.toContain('ratelimit.enforced');
    expect(describeFocus(f)).toBe(
      'Focus (--check ratelimit.enforced): 1 check judged by probe enforce; 45 out of scope',
    );
  });

  it("puts a named probe's checks in scope, with the checks named, the probes in registry order", () => {
    const f = focusScenario(compliance, { checks: ['retry-after.present'], probes: ['auth'] });
    expect(f.scenario.probes).toEqual(['auth', 'enforce']);
    expect(f.inScope).toEqual(['auth.missing-key', 'auth.invalid-key', 'auth.challenge', 'retry-after.present']);
  });

  it('drops the load unless a check named needs it, and lists the thresholds as out of scope', () => {
    const f = focusScenario(smoke, { checks: ['contract.error-shape'], probes: [] });
    expect(f.scenario.probes).toEqual(['unknown-id']);
    expect(f.scenario.load).toBeUndefined();
    expect(f.outOfScope).toContain('threshold.count(5xx) == 0');
    // No probe of at-limit exercises a 429: its load does.
    const atLimit = focusScenario(loadScenario('at-limit'), { checks: ['retry-after.present'], probes: [] });
    expect(atLimit.scenario.load).toBeDefined();
    const capacity = focusScenario(loadScenario('capacity'), { checks: ['load.capacity'], probes: [] });
    expect(capacity.scenario.load?.phases.map((p) => p.executor)).toEqual(['saturate']);
  });

  it('is the same applied twice (the CLI checks it, the engine applies it)', () => {
    const focus = { checks: ['ratelimit.enforced', 'contract.error-shape'] as CheckId[], probes: ['auth' as const] };
    const once = focusScenario(compliance, focus);
    expect(focusScenario(once.scenario, focus)).toEqual(once);
    expect(checksInScope(compliance, focus)).toEqual(once.inScope);
  });

  it('refuses a check or probe outside the scenario (exit 2), naming the shipped scenarios that have it', () => {
    expect(selectFocus(compliance, { checks: ['ban.probe', 'load.capacity'], probes: ['plan-audit'] })).toEqual({
      outside: { checks: ['ban.probe', 'load.capacity'], probes: ['plan-audit'] },
    });
    expect(shippedScenariosWith({ checks: ['backoff.no-ban'], probes: [] })).toContain('overload-backoff');
    let error: unknown;
    try {
      focusScenario(compliance, { checks: ['ban.probe'], probes: [] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PetloadError);
    expect((error as PetloadError).exitCode).toBe(2);
    expect((error as PetloadError).message).toBe(
      '--check ban.probe is outside the scenario compliance: none of its probes or load judges it; it is in the scenario ban-probe',
    );
  });
});
