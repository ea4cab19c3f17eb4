/**
 * The remote treatment costs no window (quota-gate.ts): a compliance run on the Free plan with three keys, against
 * a reference server on a 10x clock (a window lasts 6 real s: a wait of a window stays over the 2 s that gets a
 * progress line, however late a busy machine starts it), takes as many windows treated as remote as treated as
 * local, plans and sends the same requests (the day is read from the probes' own first answers: nothing outside the
 * schedule goes out), and says what each long wait is for. Both runs go side by side, each on its own server.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKeys } from '../config/keys-file.js';
import { loadScenario } from '../config/load-scenario.js';
import { createClock } from '../core/clock.js';
import { createReferenceServer } from '../reference-server/index.js';
import { runScenario } from './run.js';

async function compliance(remote: boolean) {
  const clock = createClock(10);
  const keys = parseKeys(
    {
      keys: [1, 2, 3].map((i) => ({ key: `free-${remote ? 'remote' : 'local'}-${i}-0123456789abcdef`, plan: 'free' })),
    },
    'test',
  );
  const server = await createReferenceServer({ keys, clock });
  try {
    const logged: string[] = [];
    const said: string[] = [];
    const result = await runScenario({
      scenario: loadScenario('compliance'),
      plans: ['free'],
      target: { kind: 'external', url: server.url, keys, clock, treatAsRemote: remote },
      reportDir: mkdtempSync(join(tmpdir(), 'petload-remote-schedule-')),
      log: (l) => logged.push(l),
      notice: (l) => said.push(l),
    });
    return { result, logged, said };
  } finally {
    await server.close();
  }
}

describe('the remote treatment inside the plan', () => {
  it('takes as many windows as a local run, sends only what the schedule plans, and says what it waits for', {
    timeout: 60_000,
  }, async () => {
    const [remote, local] = await Promise.all([compliance(true), compliance(false)]);
    for (const r of [remote, local]) expect(r.result.report.verdict).toBe('pass');
    const rs = remote.result.report.schedule!;
    const ls = local.result.report.schedule!;
    // The same plan: the estimate has no request of the quota guard's own.
    expect(rs.planned).toEqual(ls.planned);
    expect(rs.keys.map((k) => k.planned)).toEqual(ls.keys.map((k) => k.planned));
    // Every request of the remote run is one of the schedule's: totals (all but reachability) = the probes' count.
    expect(remote.result.report.totals.requests).toBe(rs.actual.requests + rs.actual.unkeyed);
    // As long as the local run, in windows: the pre-flight of old opened every key's window before the probes, a
    // whole window more (the margin is for a busy machine: 0.3 window is 1.8 real s here). A probe taken again on a
    // fresh window, as either run may on a busy machine and reports it did (schedule.retaken: a burst split across two
    // windows, a count whose window rolled over), costs a window of its own: allowed, one a retake.
    expect(rs.actual.windows).toBeGreaterThan(1);
    const retakes = [rs, ls].flatMap((s) => s.retaken ?? []).reduce((n, r) => n + r.why.length, 0);
    expect(Math.abs(rs.actual.windows - ls.actual.windows)).toBeLessThanOrEqual(0.3 + retakes);
    // The day: unknown from minute-window headers, said once, with nothing sent to learn it.
    expect(remote.said.filter((l) => /remaining quota is unknown/.test(l))).toEqual([
      "  today's remaining quota is unknown (free#1 (…cdef)'s first answer: its rate-limit headers describe the minute window); nothing is sent to learn it, and each plan's requests fit in its keys' full daily quotas",
    ]);
    // Each wait of a window says what it is for.
    expect(remote.logged).toContainEqual(
      expect.stringMatching(
        /^free#2 \(…cdef\): waiting \d s for its window to restart \(restore \[free\]: is the quota back\?\)$/,
      ),
    );
    expect(remote.logged).toContainEqual(
      expect.stringMatching(
        /^free#1 \(…cdef\): waiting \d s for its 429's Retry-After to end \(retry-after-honest \[free\]\)$/,
      ),
    );
  });
});
