/**
 * Test helper: the reproduction scripts of a compliance run against each fault of the reference server, run with
 * `sh` and curl against fresh servers (src/outputs/repro/repro-*.int.test.ts, docs/reproductions.md).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it } from 'vitest';
import { FAULT_MATRIX } from '../checks/fault-matrix.js';
import { parseKeys } from '../config/keys-file.js';
import { loadScenario } from '../config/load-scenario.js';
import { runScenario } from '../engine/run.js';
import { keyVariable } from '../outputs/repro/failure.js';
import { reproductionOf } from '../outputs/repro/recipes.js';
import type { Reproduction } from '../outputs/repro/steps.js';
import { createReferenceServer } from '../reference-server/index.js';
import type { FaultName } from '../reference-server/faults.js';
import type { Report } from '../report/schema.js';

/** The clock of the runs that write the scripts (the compliance scenario's, as in the fault matrix). */
const TIME_SCALE = 60;
/**
 * The clock of the servers the scripts run against: slower, so that a script's own pace (a process per request
 * and per header read, on a busy machine) stays a small part of a window (3 s); told to the script by
 * PETLOAD_TIME_SCALE, as a user of another target would.
 */
const SCRIPT_TIME_SCALE = 20;
/**
 * Slower still for the scripts that judge a wait (the answer after Retry-After): what a busy machine adds to the wait
 * (a process per header read, per sleep) must stay short of the half a window retry-after-short takes off.
 */
const WAIT_TIME_SCALE = 10;
const WAITS: ReadonlySet<string> = new Set(['retry-after.honest', 'ratelimit.quota-restored']);

/** The clock a script's servers run on. */
const scaleOf = (script: string): number =>
  WAITS.has(basename(script).replace(/\.[^.]+\.sh$/, '')) ? WAIT_TIME_SCALE : SCRIPT_TIME_SCALE;

/** Three keys of the free plan: the compliance scenario's probes take a key each. */
export const REPRO_KEYS = parseKeys(
  {
    keys: [
      { key: 'repro-free-key-0001', plan: 'free' },
      { key: 'repro-free-key-0002', plan: 'free' },
      { key: 'repro-free-key-0003', plan: 'free' },
    ],
  },
  'repro test keys',
);

/**
 * The compliance run against the embedded server with the fault, on the free plan, its reports in `dir`: the report
 * and its scripts (name -> path).
 */
export async function reproRun(
  fault: FaultName,
  dir: string,
): Promise<{ report: Report; scripts: Map<string, string> }> {
  const { report } = await runScenario({
    scenario: loadScenario('compliance'),
    reportDir: dir,
    target: { kind: 'embedded', faults: [fault], keys: REPRO_KEYS, timeScale: TIME_SCALE },
    plans: ['free'],
  });
  const folder = join(dir, 'repro');
  const names = existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.sh')) : [];
  return { report, scripts: new Map(names.map((n) => [n, join(folder, n)] as const)) };
}

export interface ScriptRun {
  code: number | null;
  output: string;
}

/** `sh script` against a fresh reference server (with `faults`, the run's keys), as a user runs it. */
/** How a script is run beside its server. */
export interface ScriptOptions {
  /** The key it is given for a key of REPRO_KEYS (default: that key; another: a key the server lacks). */
  readonly keyOf?: (secret: string) => string;
  /** The PETLOAD_TARGET it is given for the server's base URL (default: that URL, ending in /v1). */
  readonly targetOf?: (url: string) => string;
  /**
   * A busy machine: once a line of its output matches `line`, the script is stopped (SIGSTOP) for `ms` real ms, as a
   * process the machine did not schedule (a sleep running then ends, and the script goes on only when resumed).
   */
  readonly stall?: { readonly line: RegExp; readonly ms: number };
}

export async function runScript(script: string, faults: FaultName[], opts: ScriptOptions = {}): Promise<ScriptRun> {
  const { keyOf = (secret: string) => secret, targetOf = (url: string) => url, stall } = opts;
  const scale = scaleOf(script);
  const server = await createReferenceServer({ faults, keys: REPRO_KEYS, timeScale: scale, port: 0 });
  try {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      PETLOAD_TARGET: targetOf(server.url),
      PETLOAD_TIME_SCALE: String(scale),
    };
    for (const k of REPRO_KEYS) env[keyVariable(k.label)] = keyOf(k.secret);
    // Asynchronous: the server answers on this process's event loop.
    const child = spawn('sh', [script], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let output = '';
    let stalled = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      if (stall === undefined || stalled || !stall.line.test(output)) return;
      stalled = true;
      child.kill('SIGSTOP');
      setTimeout(() => child.kill('SIGCONT'), stall.ms);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, output };
  } finally {
    await server.close();
  }
}

/** A failed check's reproductions in a report, per plan. */
export function reproductionsIn(report: Report, check: string): Reproduction[] {
  const c = report.checks.find((x) => x.id === check);
  return (c?.byPlan ?? [])
    .filter((o) => o.status === 'fail')
    .map((outcome) => reproductionOf({ report, check: c!, outcome }));
}

/** A check's outcome in words, for a failing assertion. */
function outcomeWords(report: Report, check: string): string {
  const c = report.checks.find((x) => x.id === check);
  return `${check}: ${c?.status ?? 'absent'} ${c?.byPlan.flatMap((o) => o.reasons).join('; ') ?? ''}`;
}

/**
 * The run of the fault, once more when a check of its row was skipped rather than failed: a probe that could not
 * judge on a busy machine ("the window changed during the sequence twice") is the run's to say, and the scripts
 * need the failure. A second run that judges no better fails the test.
 */
async function faultRun(fault: FaultName, dir: string): Promise<{ report: Report; scripts: Map<string, string> }> {
  const first = await reproRun(fault, dir);
  const skipped = FAULT_MATRIX[fault].some((id) => first.report.checks.find((c) => c.id === id)?.status === 'skip');
  return skipped ? reproRun(fault, dir) : first;
}

/**
 * For each fault: the compliance run writes a script for every check of its matrix row, and each script exits 1
 * against a fresh server with the fault and 0 against a fresh compliant one (same keys). Side by side: each mostly
 * waits on its scaled clock.
 */
export function reproSuite(title: string, faults: readonly FaultName[]): void {
  describe.concurrent(title, () => {
    for (const fault of faults) {
      it(`${fault}: each script shows the defect (exit 1) and passes once fixed (exit 0)`, {
        timeout: 120_000,
      }, async ({ expect, onTestFinished }) => {
        const dir = mkdtempSync(join(tmpdir(), 'petload-repro-'));
        // The test's own hook: tests run side by side.
        onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
        const { report, scripts } = await faultRun(fault, dir);
        const names = [...scripts.keys()].sort();
        // A script for every check the fault fails (on the free plan, or without a plan for the auth probe's).
        for (const check of FAULT_MATRIX[fault])
          expect(
            names.some((n) => n.startsWith(`${check}.`)),
            outcomeWords(report, check),
          ).toBe(true);
        const runs = await Promise.all(
          names.map(async (name) => {
            const path = scripts.get(name)!;
            const [faulty, fixed] = await Promise.all([runScript(path, [fault]), runScript(path, [])]);
            return { name, faulty, fixed };
          }),
        );
        for (const { name, faulty, fixed } of runs) {
          expect(faulty.code, `${name} against ${fault}:\n${faulty.output}`).toBe(1);
          expect(faulty.output, name).toMatch(/^DEFECT SHOWN: /m);
          expect(fixed.code, `${name} against the compliant server:\n${fixed.output}`).toBe(0);
          expect(fixed.output, name).toMatch(/^not reproduced: /m);
        }
      });
    }
  });
}
