/**
 * The reproduction scripts against the reference server's faults, part 2 of 2 (split so that vitest runs the parts
 * in parallel), and the faults whose defect a replay cannot show: no script, a reason and the probe to re-run.
 */
import { describe, it } from 'vitest';
import { CHECKS, type CheckId } from '../../checks/catalogue.js';
import { FAULT_MATRIX } from '../../checks/fault-matrix.js';
import type { Report } from '../../report/schema.js';
import type { FaultName } from '../../reference-server/faults.js';
import { REPRO_KEYS, reproductionsIn, reproRun, reproSuite, runScript } from '../../testing/repro-suite.js';
import { sampleReport } from '../../testing/sample-report.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderRepro, reproductionsOf } from './render.js';

reproSuite('reproductions (2/2)', [
  'invalid-keys-drain',
  'schema-drift',
  'list-envelope',
  'ignore-limit',
  'ignore-status-filter',
  'accept-invalid',
  'error-shape',
  'auth-bypass',
  'orders-no-auth',
  'orders-no-limit',
  'orders-missing',
]);

/**
 * Not replayable (docs/reproductions.md): a fleet's counters, an intermittent connection. `day-not-enforced` and
 * `slow` fail nothing in a compliance run; `non-atomic-counter`'s race shows only when its burst meets it (the fault
 * matrix's to show): its reason is held by the unit test of the recipes (recipes.test.ts).
 */
const NOT_REPLAYED: Partial<Record<FaultName, RegExp>> = {
  'per-instance': /^a fleet's counters/,
  flaky: /^an intermittent fault/,
};

describe.concurrent('faults a replay cannot show', () => {
  for (const [fault, why] of Object.entries(NOT_REPLAYED) as [FaultName, RegExp][]) {
    it(`${fault}: no script, the reason, and the probe to re-run`, { timeout: 120_000 }, async ({ expect }) => {
      const dir = mkdtempSync(join(tmpdir(), 'petload-repro-'));
      try {
        const { report, scripts } = await reproRun(fault, dir);
        for (const check of FAULT_MATRIX[fault]) {
          const repros = reproductionsIn(report, check);
          expect(repros.length, check).toBeGreaterThan(0);
          for (const r of repros) expect(r).toEqual({ kind: 'no-replay', why: expect.stringMatching(why) });
          expect([...scripts.keys()].filter((n) => n.startsWith(`${check}.`))).toEqual([]);
          for (const e of reproductionsOf(report, check))
            expect(e.rerun).toMatch(
              new RegExp(`^petload run compliance --probe [a-z-]+ (--plan free )?--time-scale 60 --fault ${fault}$`),
            );
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

/** A report of one failure of `check` on the free plan, seen on a 429 to the first key. */
function failureReport(check: CheckId): Report {
  const report = sampleReport();
  report.keys = REPRO_KEYS.map((k) => ({ label: k.label, plan: k.plan, sacrificial: false, limits: k.limits }));
  const evidence = { message: 'the defect', request: 'GET /pets?limit=1', key: REPRO_KEYS[0]!.label, status: 429 };
  const outcome = { plan: 'free' as const, status: 'fail' as const, counts: { passed: 0, failed: 1, skipped: 0 } };
  report.checks = [
    {
      id: check,
      title: CHECKS[check].title,
      severity: CHECKS[check].severity,
      ...outcome,
      byPlan: [{ ...outcome, evidence: [evidence], reasons: [], info: {} }],
    },
  ];
  return report;
}

/** The script of `failureReport(check)`, written to a folder removed when the test finishes: its path. */
function scriptOf(check: CheckId, onTestFinished: (fn: () => void) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'petload-repro-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, `${check}.free.sh`);
  writeFileSync(path, renderRepro(failureReport(check))[`${check}.free.sh`]!);
  return path;
}

/**
 * Recipes whose defect no fault fails alone. error-shape's 429 bodies lack their status, which the run reports as
 * contract.error-shape's (retry-after.error-body defers to it): the script of retry-after.error-body, written for a
 * failure of its own, shows it all the same. No fault keeps a key refused once its window has ended
 * (ratelimit.quota-restored: the corpus's HAProxy does, on real minutes): its script passes on the compliant server.
 */
const WITHOUT_A_FAULT: readonly { check: CheckId; shownBy: FaultName | null }[] = [
  { check: 'retry-after.error-body', shownBy: 'error-shape' },
  { check: 'ratelimit.quota-restored', shownBy: null },
];

describe.concurrent('recipes without a fault of their own', () => {
  for (const { check, shownBy } of WITHOUT_A_FAULT) {
    const title = shownBy === null ? 'no fault shows it' : `exit 1 against ${shownBy}`;
    it(`${check}: ${title}, exit 0 against the compliant server`, async ({ expect, onTestFinished }) => {
      const path = scriptOf(check, onTestFinished);
      const [faulty, fixed] = await Promise.all([
        shownBy === null ? null : runScript(path, [shownBy]),
        runScript(path, []),
      ]);
      if (faulty !== null) expect(faulty.code, faulty.output).toBe(1);
      expect(fixed.code, fixed.output).toBe(0);
      expect(fixed.output).toMatch(/^not reproduced: /m);
    });
  }
});

/**
 * A key the target does not take (another target's, a typo, a banned key) answers 401 or 403 to every step: nothing
 * can be judged, and a script that called that "not reproduced" would call a defect fixed. It exits 2, naming the
 * variable, against the faulty server and the compliant one alike.
 */
describe.concurrent('a key the target refuses', () => {
  for (const check of ['ratelimit.enforced', 'ratelimit.headers-present'] as const) {
    it(`${check}: exit 2, the variable named`, async ({ expect, onTestFinished }) => {
      const path = scriptOf(check, onTestFinished);
      const wrongKey = (secret: string) => `${secret}-not-this-target`;
      const [faulty, fixed] = await Promise.all([
        runScript(path, ['limit-not-enforced', 'error-shape'], { keyOf: wrongKey }),
        runScript(path, [], { keyOf: wrongKey }),
      ]);
      for (const run of [faulty, fixed]) {
        expect(run.code, run.output).toBe(2);
        expect(run.output).toMatch(/could not run: the target refused the key in PETLOAD_KEY_\w+ \(401 or 403\)/);
      }
    });
  }
});

/**
 * A PETLOAD_TARGET that is not the API's base (the host alone, without /v1: the usual slip) answers GET /pets 404,
 * which the interface never does: nothing can be judged, and a script that judged that answer as any other would call
 * a defect fixed or show one that is not there. It exits 2 and says what PETLOAD_TARGET must be, on the faulty server
 * and the compliant one alike, whether its first request is one (headers-present) or a burst (enforced's send).
 */
describe.concurrent('a target without /v1', () => {
  for (const check of ['ratelimit.enforced', 'ratelimit.headers-present'] as const) {
    it(`${check}: exit 2, PETLOAD_TARGET named`, async ({ expect, onTestFinished }) => {
      const path = scriptOf(check, onTestFinished);
      const targetOf = (url: string) => url.replace(/\/v1$/, '');
      const [faulty, fixed] = await Promise.all([
        runScript(path, ['limit-not-enforced', 'error-shape'], { targetOf }),
        runScript(path, [], { targetOf }),
      ]);
      for (const run of [faulty, fixed]) {
        expect(run.code, run.output).toBe(2);
        expect(run.output).toMatch(
          /could not run: \S+\/pets\S* answered 404: set PETLOAD_TARGET to the API's base URL/,
        );
      }
    });
  }
});

/**
 * A 429 that asks for more than two minutes (retry-after-ms: Retry-After in milliseconds, read as seconds; a day's
 * quota spent, a ban) would hold the script in its sleep for an hour or a day: it does not wait, cannot tell (exit 2).
 */
it('retry-after.honest: a Retry-After of more than two minutes is not waited (exit 2), no hour-long sleep', async ({
  expect,
  onTestFinished,
}) => {
  const path = scriptOf('retry-after.honest', onTestFinished);
  const run = await runScript(path, ['retry-after-ms']);
  expect(run.code, run.output).toBe(2);
  expect(run.output).toMatch(/^could not tell: it asks to wait \d+ s, more than the two minutes a replay waits/m);
});

/**
 * A wait that overshoots (a busy machine: the script is stopped for 8 real s while it waits Retry-After, on a 10x
 * clock) comes back once the refused window has ended, when the quota is back whatever Retry-After promised: against
 * retry-after-short (Retry-After half the window) that proves nothing, and the script says it cannot tell (exit 2)
 * rather than "not reproduced" (a false "fixed"). On the compliant server, whose Retry-After is the window's end,
 * coming back late leaves no doubt: exit 0.
 */
it('retry-after.honest: a wait that overshot the window cannot tell (exit 2), never "fixed"', async ({
  expect,
  onTestFinished,
}) => {
  const path = scriptOf('retry-after.honest', onTestFinished);
  const stall = { line: /as the answer asks/, ms: 8000 };
  const [faulty, fixed] = await Promise.all([
    runScript(path, ['retry-after-short'], { stall }),
    runScript(path, [], { stall }),
  ]);
  expect(faulty.code, faulty.output).toBe(2);
  expect(faulty.output).toMatch(/could not tell: it came once the refused window had ended/);
  expect(fixed.code, fixed.output).toBe(0);
});
