/**
 * What `petload rerun` does (./rerun.ts declares it): reads the report, chooses what to judge again
 * (src/drift/rerun.ts), prints that list, runs the report's scenario focused on those checks (`petload run --check`,
 * src/config/focus.ts) on their plans against the report's target with today's keys, then compares the new report
 * with the old and writes rerun.json and rerun.md beside it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckId } from '../checks/catalogue.js';
import { selectFocus } from '../config/focus.js';
import { loadScenario } from '../config/load-scenario.js';
import { PROBE_REGISTRY } from '../probes/index.js';
import type { ProbeName } from '../probes/names.js';
import type { Scenario } from '../config/scenario.js';
import { EXIT, PetloadError } from '../core/errors.js';
import { compareRerun, type RerunSelection, rerunSelection } from '../drift/rerun.js';
import { type RerunRecord, rerunConsole, rerunMarkdown, runOf, selectionLines } from '../drift/rerun-text.js';
import { readReportFile } from '../outputs/read.js';
import { writeFileAtomic } from '../outputs/write.js';
import type { Report } from '../report/schema.js';
import { reportPathOf } from './compare-files.js';
import { appendGithubSummary, githubSummaryFile } from './github-summary.js';
import type { RerunArgs } from './rerun-args.js';
import { parseRunFlags } from './run-flags.js';
import { reportDirFor, runScenarios } from './run-scenarios.js';

/** The scenario the report ran: its file when it names one, else the shipped scenario of its name. */
function scenarioOf(report: Report): { arg: string; scenario: Scenario } {
  const arg = report.scenario.file ?? report.scenario.name;
  try {
    return { arg, scenario: loadScenario(arg) };
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new PetloadError('E_USAGE', `the report's scenario ${arg} cannot be loaded: ${why}`, {
      hint: 'Run from the folder the report was made in, so that its scenario file is found again.',
    });
  }
}

/** Whether the scenario has a judge for a check: the run's focus would keep something for it. */
const judgesOf =
  (scenario: Scenario) =>
  (id: CheckId): boolean =>
    !('outside' in selectFocus(scenario, { checks: [id], probes: [] }));

/** How many requests a probe sends without a valid key. */
function unkeyedOf(probe: ProbeName): number {
  const needs = PROBE_REGISTRY[probe].needs;
  return 'unkeyed' in needs ? (needs.unkeyed ?? 0) : 0;
}

/**
 * The probe to run besides the focus: a check judged without a plan is judged on the answers to requests without a
 * valid key, so when one is chosen and the focus keeps no probe that sends such requests, the scenario's probe that
 * sends the fewest of them.
 */
function unkeyedProbe(scenario: Scenario, selection: RerunSelection): ProbeName[] {
  if (!selection.chosen.some((c) => c.plan === null)) return [];
  const focused = selectFocus(scenario, { checks: selection.checks, probes: [] });
  if ('outside' in focused || focused.scenario.probes.some((p) => unkeyedOf(p) > 0)) return [];
  const senders = scenario.probes.filter((p) => unkeyedOf(p) > 0).sort((a, b) => unkeyedOf(a) - unkeyedOf(b));
  return senders.slice(0, 1);
}

/** The embedded server's variant as the report records it, as run's flags. */
function variantFlags(variant: Record<string, string> | undefined): Record<string, string> {
  const v = variant ?? {};
  return {
    ...(v.windowReport !== undefined ? { 'window-report': v.windowReport } : {}),
    ...(v.countErrors !== undefined ? { 'count-errors': v.countErrors } : {}),
    ...(v.banThreshold !== undefined ? { 'ban-threshold': v.banThreshold } : {}),
    ...(v.banSeconds !== undefined ? { 'ban-seconds': v.banSeconds } : {}),
  };
}

/** The target of the re-run, as run's flags: --target, else the report's (its URL, or the embedded server again). */
function targetFlags(args: RerunArgs, report: Report): Record<string, unknown> {
  if (args.target !== undefined) return { target: args.target };
  if (!report.target.embedded) {
    if (args.fault !== undefined || args['time-scale'] !== undefined)
      throw new PetloadError(
        'E_USAGE',
        `--fault and --time-scale apply to the embedded reference server only; this report's target is ${report.target.url}`,
      );
    return { target: report.target.url };
  }
  return {
    fault: args.fault ?? report.target.faults,
    'time-scale': args['time-scale'] ?? String(report.target.timeScale),
    ...variantFlags(report.target.variant),
  };
}

/** `petload run`'s argv for the re-run: the report's scenario, plans and target, focused on the checks chosen. */
function runArgv(
  args: RerunArgs,
  report: Report,
  run: { arg: string; scenario: Scenario; selection: RerunSelection; reportDir: string },
) {
  const { selection } = run;
  const network = ['header', 'header-secret', 'ca', 'client-cert', 'client-key', 'http2'] as const;
  return {
    scenarios: [run.arg],
    ...targetFlags(args, report),
    plan: [...selection.plans],
    check: [...selection.checks],
    probe: unkeyedProbe(run.scenario, selection),
    'report-dir': run.reportDir,
    ...Object.fromEntries(network.filter((n) => args[n] !== undefined).map((n) => [n, args[n]])),
    ...(args['keys-file'] !== undefined ? { 'keys-file': args['keys-file'] } : {}),
    ...(args['plans-file'] !== undefined ? { 'plans-file': args['plans-file'] } : {}),
    ...(args.timeout !== undefined ? { timeout: args.timeout } : {}),
    ...(args.quiet ? { quiet: true } : {}),
    ...(args['dry-run'] ? { 'dry-run': true } : {}),
    ...(args['allow-quota-exhaustion'] ? { 'allow-quota-exhaustion': true } : {}),
    ...(args['github-summary'] !== undefined ? { 'github-summary': args['github-summary'] } : {}),
    ...(args.key !== undefined ? { key: args.key } : {}),
  };
}

/** rerun.json and rerun.md beside the new report; rerun.md appended to the job summary when there is one. */
async function writeRerun(record: RerunRecord, dir: string, githubSummary: boolean | undefined): Promise<void> {
  const hint = 'Give a directory petload can write to (--report-dir DIR).';
  await writeFileAtomic(join(dir, 'rerun.json'), `${JSON.stringify(record, null, 2)}\n`, hint);
  await writeFileAtomic(join(dir, 'rerun.md'), rerunMarkdown(record), hint);
  const summary = githubSummaryFile(githubSummary, process.env);
  const problem = summary === null ? null : await appendGithubSummary(summary, join(dir, 'rerun.md'));
  if (problem !== null) process.stderr.write(`${problem}\n`);
}

/** `petload rerun`: the exit code of the whole command. */
export async function rerun(args: RerunArgs): Promise<number> {
  if (!existsSync(args.report))
    throw new PetloadError('E_USAGE', `${args.report}: no such file or directory`, {
      hint: 'Give the report.json of a run, or the folder it is in (petload run --report-dir DIR writes DIR/report.json).',
    });
  const path = reportPathOf(args.report);
  const before = readReportFile(path);
  const { arg, scenario } = scenarioOf(before);
  const selection = rerunSelection(before, judgesOf(scenario));
  const then = runOf(path, before);
  process.stdout.write(`${selectionLines(selection, then).join('\n')}\n`);
  if (selection.checks.length === 0) {
    process.stdout.write('petload rerun: nothing to judge again: the report has no failure and no skip to look at\n');
    return 0;
  }
  const reportDir = args['report-dir'] ?? reportDirFor(undefined, `${scenario.name}-rerun`, false, new Date());
  const flags = parseRunFlags(runArgv(args, before, { arg, scenario, selection, reportDir }), process.env);
  const code = await runScenarios(flags);
  if (flags.dryRun || (code !== 0 && code !== EXIT.fail)) return code;
  const now = readReportFile(join(reportDir, 'report.json'));
  const record: RerunRecord = {
    scenario: before.scenario.name,
    before: then,
    now: runOf(join(reportDir, 'report.json'), now),
    chosen: selection.chosen,
    left: selection.left,
    ...compareRerun(before, now, selection),
  };
  await writeRerun(record, reportDir, args['github-summary']);
  process.stdout.write(rerunConsole(record, { color: process.stdout.isTTY === true }));
  process.stdout.write(`Re-run compared in ${reportDir}/: rerun.json, rerun.md\n`);
  return record.exitCode;
}
