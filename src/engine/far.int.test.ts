/**
 * A pass at a distance is judged as a pass near: the compliance scenario, Free and Pro with three keys each,
 * against a reference server on a 10x clock (a window lasts 6 real s), once directly and once through a relay that
 * adds 20 ms a round trip (200 ms of that clock: past the round trip from which the exact counts of different plans
 * overlap, and what is in flight grows) and treated as remote, as a far staging server is, each on its own server.
 * Then a target whose keys share one counter (the shared-quota fault), through the same relay: the plans' counts
 * overlap on that counter, and still only key-isolation fails. What the link costs in windows is the bench's to
 * measure (`npm run bench -- --only far`), not this test's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanName } from '../api/plans.js';
import { parseKeys } from '../config/keys-file.js';
import { loadScenario } from '../config/load-scenario.js';
import { createClock } from '../core/clock.js';
import { createReferenceServer, type FaultName } from '../reference-server/index.js';
import { startDelayRelay } from '../testing/delay-relay.js';
import { runScenario } from './run.js';

async function compliance(
  rttMs: number | null,
  faults: FaultName[] = [],
  plans: readonly PlanName[] = ['free', 'pro', 'business'],
) {
  const clock = createClock(10);
  const name = rttMs === null ? 'near' : 'far';
  const keys = parseKeys(
    {
      keys: plans.flatMap((plan) => [1, 2, 3].map((i) => ({ key: `${plan}-${name}-${i}-0123456789abcdef`, plan }))),
    },
    'test',
  );
  const server = await createReferenceServer({ keys, clock, faults });
  const port = Number(new URL(server.url).port);
  const relay = rttMs === null ? null : await startDelayRelay({ port, rttMs });
  const url = relay === null ? server.url : server.url.replace(`:${port}/`, `:${relay.port}/`);
  const dir = mkdtempSync(join(tmpdir(), `petload-${name}-`));
  const logged: string[] = [];
  try {
    const result = await runScenario({
      scenario: loadScenario('compliance'),
      target: { kind: 'external', url, keys, clock, treatAsRemote: relay !== null },
      reportDir: dir,
      log: (l) => logged.push(l),
      notice: () => {},
    });
    return { result, relayed: relay?.connections() ?? 0, logged };
  } finally {
    await relay?.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every failed check with its first evidence; the outcomes of the exact counts' checks by plan. */
const failed = (r: Awaited<ReturnType<typeof compliance>>) =>
  r.result.report.checks
    .filter((c) => c.status === 'fail')
    .map((c) => `${c.id}: ${c.byPlan.flatMap((p) => p.evidence.map((e) => e.message))[0] ?? ''}`);
const COUNTED = ['ratelimit.enforced', 'ratelimit.remaining-decrements', 'ratelimit.no-over-admission'];
const counted = (r: Awaited<ReturnType<typeof compliance>>) =>
  r.result.report.checks
    .filter((c) => COUNTED.includes(c.id))
    .flatMap((c) => c.byPlan.map((p) => `${c.id} [${p.plan}] ${p.status}`))
    .sort();

describe('a compliance pass through a delaying relay', () => {
  it('gives the verdict the same pass gives directly, and judges the exact counts alike', {
    timeout: 120_000,
  }, async () => {
    // One after the other, Free and Pro (Business only adds requests): the machine is shared.
    const near = await compliance(null, [], ['free', 'pro']);
    const far = await compliance(20, [], ['free', 'pro']);
    expect(far.relayed).toBeGreaterThan(0);
    expect(failed(near)).toEqual([]);
    expect(failed(far)).toEqual([]);
    expect(near.result.report.verdict).toBe('pass');
    expect(far.result.report.verdict).toBe(near.result.report.verdict);
    expect(far.result.exitCode).toBe(near.result.exitCode);
    // The exact counts judged, every plan, as near: side by side on the long link, none the worse for it.
    expect(counted(far)).toEqual(counted(near));
    expect(counted(far).filter((c) => !c.endsWith(' pass'))).toEqual([]);
    // No count was taken again for want of a turn of its own: the keys are counted apart.
    expect(far.logged.filter((l) => /counted again alone/.test(l))).toEqual([]);
  });

  it('keeps the counts exact on a target whose keys share one counter: only key-isolation fails', {
    timeout: 120_000,
  }, async () => {
    // Free's count meets Pro's requests on the one counter: refused short, it is counted again alone.
    const far = await compliance(20, ['shared-quota'], ['free', 'pro']);
    expect(failed(far).map((f) => f.split(':')[0])).toEqual(['ratelimit.key-isolation']);
    // Nothing of the other plan was counted on a key as the target's own refusal: enforce held, every plan.
    expect(counted(far).filter((c) => c.startsWith('ratelimit.enforced') && !/ (pass|skip)$/.test(c))).toEqual([]);
  });
});
