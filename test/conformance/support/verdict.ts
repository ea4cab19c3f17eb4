/**
 * The corpus's verdict tables and how a run is held against one. A table gives, for every check id of the
 * catalogue, the status petload must report (pass, fail or skip) and why, and the exit code. petload runs
 * through its public entry (the CLI), and its report is compared check by check.
 */
import { mkdtempSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CheckId } from '../../../src/checks/catalogue.js';
import type { Report } from '../../../src/report/schema.js';
import { readReportJson, runCli, STACK_LINE, type CliResult } from '../../../src/testing/cli.js';

/** The corpus's scenario of the probes that need no wait for a fresh window (scenarios/no-wait.yaml). */
export const NO_WAIT = join(import.meta.dirname, '..', 'scenarios', 'no-wait.yaml');

export type Expected = readonly ['pass' | 'fail' | 'skip', string];

export interface VerdictTable {
  exitCode: number;
  /** Every check of the catalogue: the status petload must give, and why (hand-derived). */
  checks: Record<CheckId, Expected>;
}

export interface PetloadRun extends CliResult {
  report: Report;
  dir: string;
}

/**
 * `petload run <scenario> --target URL --keys-file F --report-dir D`, bounded in time. The reports go into a
 * new folder beside the keys file (the test's scratch folder, removed with it).
 */
export async function runPetload(
  url: string,
  keysFile: string,
  scenario = 'compliance',
  killAfterMs = 180_000,
): Promise<PetloadRun> {
  const dir = mkdtempSync(join(dirname(keysFile), 'report-'));
  const r = await runCli(['run', scenario, '--target', url, '--keys-file', keysFile, '--report-dir', dir], {
    killAfterMs,
  });
  if (STACK_LINE.test(r.stderr) || STACK_LINE.test(r.stdout))
    throw new Error(`petload printed a stack trace:\n${r.stderr}`);
  let report: Report;
  try {
    report = readReportJson(dir);
  } catch (e) {
    throw new Error(`no valid report.json (exit ${r.code}): ${(e as Error).message}\n${r.stderr}\n${r.stdout}`);
  }
  return { ...r, report, dir };
}

/** The report's status of each check, as `id: status` (the form the table is compared in). */
export const statusesOf = (report: Report): Record<string, string> =>
  Object.fromEntries(report.checks.filter((c) => !c.id.startsWith('threshold.')).map((c) => [c.id, c.status]));

export const statusesOfTable = (table: VerdictTable): Record<string, string> =>
  Object.fromEntries(Object.entries(table.checks).map(([id, [status]]) => [id, status]));

/** For a failure message: the first evidence or reason of each check that differs from the table. */
export function explainDifferences(report: Report, table: VerdictTable): string {
  const lines: string[] = [];
  for (const c of report.checks) {
    const want = table.checks[c.id as CheckId];
    if (!want || want[0] === c.status) continue;
    const detail = c.byPlan
      .flatMap((p) => [...p.evidence.map((e) => JSON.stringify(e).slice(0, 400)), ...p.reasons])
      .slice(0, 3);
    lines.push(`${c.id}: petload says ${c.status}, the table ${want[0]} (${want[1]})\n    ${detail.join('\n    ')}`);
  }
  return lines.join('\n');
}

/** The run held against the table: check by check (with the evidence of each difference), then the exit code. */
export function expectVerdict(
  run: PetloadRun,
  table: VerdictTable,
  expect: (actual: unknown, message?: string) => { toEqual(v: unknown): void; toBe(v: unknown): void },
): void {
  expect(statusesOf(run.report), explainDifferences(run.report, table)).toEqual(statusesOfTable(table));
  expect(run.code, run.stderr).toBe(table.exitCode);
}
