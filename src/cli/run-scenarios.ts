/**
 * What `petload run` does once its flags are checked (src/cli/run.ts, which imports this file only when the
 * command runs): loads the scenarios, the keys and the plans file, then either prints the dry run or runs each
 * scenario in turn with the progress board, Ctrl-C handling, the summary and the job summary, and gives the
 * exit code of the worst run.
 */
import { dirname, join } from 'node:path';
import { layerFigures, PUBLISHED_FIGURES, type PlanFigures } from '../api/plans.js';
import { loadKeyEntries, parseKeyEntriesText, resolveKeys, type KeyEntry } from '../config/keys-file.js';
import { focusScenario } from '../config/focus.js';
import { loadScenario } from '../config/load-scenario.js';
import { applyOverrides } from '../config/overrides.js';
import { loadPlansFile } from '../config/plan-figures.js';
import { createRedactor } from '../config/redactor.js';
import type { Scenario } from '../config/scenario.js';
import type { ApiKey } from '../core/api-key.js';
import { ERRORS, EXIT, isPetloadError, PetloadError } from '../core/errors.js';
import type { ProbeProgress } from '../core/progress.js';
import type { RunOptions, RunResult } from '../engine/run.js';
import { isRemote, type RunTarget } from '../engine/run-target.js';
import { planScope } from '../engine/plan-scope.js';
import { type ShardSpec, shardSpecFrom } from '../shard/spec.js';
import { type RunSinks, startRunSinks } from './run-sinks.js';
import { networkFor } from './network-flags.js';
import type { RunNetwork } from '../engine/network.js';
import { appendGithubSummary } from './github-summary.js';
import { consoleColumns } from './columns.js';
import { createPlanBoard, type PlanBoard } from './plan-board.js';
import { createProgressReporter, type ProgressReporter, type ProgressStats, type ProgressStream } from './progress.js';
import { failureLines } from './failure-lines.js';
import type { RunFlags } from './run-flags.js';

/** A keys source, validated; its figures are resolved per scenario (resolveKeys). */
export interface KeySource {
  readonly name: string;
  readonly entries: readonly KeyEntry[];
  /** Where a plan's key was expected, in the words of a refusal: `in the keys file k.json (--keys-file)`. */
  readonly where: string;
}

/** The keys file of --keys-file. */
const keysFileSource = (path: string): KeySource => ({
  name: path,
  entries: loadKeyEntries(path),
  where: `in the keys file ${path} (--keys-file)`,
});

/** Keys for an external target: --keys-file, else PETLOAD_KEYS_FILE, else PETLOAD_KEYS (the JSON itself). */
export function keySourceFromEnvironment(file: string | undefined, env: NodeJS.ProcessEnv): KeySource {
  if (file) return keysFileSource(file);
  const path = env.PETLOAD_KEYS_FILE;
  if (path)
    return {
      name: path,
      entries: loadKeyEntries(path),
      where: `in the keys file ${path} (named by PETLOAD_KEYS_FILE: a file or a mounted secret)`,
    };
  if (env.PETLOAD_KEYS)
    return {
      name: 'PETLOAD_KEYS',
      entries: parseKeyEntriesText(env.PETLOAD_KEYS, 'PETLOAD_KEYS'),
      where: 'in the keys JSON of the environment variable PETLOAD_KEYS',
    };
  throw new PetloadError(
    'E_NO_KEYS',
    'a run against --target needs keys: give --keys-file F, or set PETLOAD_KEYS_FILE or PETLOAD_KEYS',
  );
}

/**
 * The figures of a scenario's run: published, then the scenario's planLimits, then the plans file; a key's
 * own figures win over all of them (resolveKeys).
 */
export function runFigures(scenario: Scenario, plansFile: PlanFigures | undefined): PlanFigures {
  return layerFigures(PUBLISHED_FIGURES, scenario.planLimits, plansFile);
}

const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/** A run's report folder: --report-dir (its scenario's folder inside it with several), else reports/<stamp>-<name>/. */
export function reportDirFor(base: string | undefined, scenario: string, many: boolean, started: Date): string {
  if (base === undefined) return join('reports', `${stamp(started)}-${scenario}`);
  return many ? join(base, scenario) : base;
}

/** Which exit code wins over several runs: interrupted > internal error (4) > aborted > fail > pass. */
const severityOfExit = (code: number) =>
  code === EXIT.interrupted
    ? 5
    : code === EXIT.internal
      ? 4
      : code === EXIT.aborted
        ? 3
        : code === EXIT.fail
          ? 2
          : code === 0
            ? 0
            : 1;

/** Everything the runs need that is read before the first one starts. */
interface RunInputs {
  readonly scenarios: readonly { readonly arg: string; readonly scenario: Scenario }[];
  readonly shard: ShardSpec | null;
  readonly keysOf: ReadonlyMap<Scenario, ApiKey[] | undefined>;
  /** Where the keys were read from, for the refusal of a plan without one (undefined: the embedded server's own). */
  readonly keysFrom: string | undefined;
  readonly plansFile: PlanFigures | undefined;
  /** Whole keys hidden, for everything printed. */
  readonly redactWhole: (text: string) => string;
  readonly remote: boolean;
  /** Each scenario's network: proxy, CA, client certificate, HTTP/2, its headers and the flags'. */
  readonly networkOf: ReadonlyMap<Scenario, RunNetwork>;
}

/** Scenarios with their overrides, the shard, every scenario's keys: any error in them is an error now. */
function readInputs(flags: RunFlags): RunInputs {
  const { target } = flags;
  const url = target.kind === 'external' ? target.url : undefined;
  const scenarios = flags.scenarios.map((s) => ({
    arg: s,
    scenario: applyOverrides(loadScenario(s), flags.overrides),
  }));
  // A focus outside a scenario (--check, --probe) stops the command before any run sends (exit 2).
  if (flags.focus) for (const { scenario } of scenarios) focusScenario(scenario, flags.focus);
  const shard = shardSpecFrom(flags.shard, {
    scenario: scenarios[0]!.scenario.name,
    target: url,
    scenarios: scenarios.length,
    env: process.env,
  });
  // --keys-file without --target: the embedded server serves those keys (PETLOAD_KEYS_FILE/PETLOAD_KEYS only
  // ever name a remote target's keys, so a variable set for CI never changes what the embedded server serves).
  const keySource =
    url !== undefined
      ? keySourceFromEnvironment(flags.keysFile, process.env)
      : flags.keysFile !== undefined
        ? keysFileSource(flags.keysFile)
        : undefined;
  const plansFile = flags.plansFile !== undefined ? loadPlansFile(flags.plansFile) : undefined;
  // Every scenario's keys resolved before anything runs: a figure missing for one of them is an error now.
  const keysOf = new Map(
    scenarios.map(({ scenario }) => [
      scenario,
      keySource ? resolveKeys(keySource.entries, keySource.name, runFigures(scenario, plansFile)) : undefined,
    ]),
  );
  // Every plan each scenario names has a key, or the command stops before any run sends (a partial run excepted).
  for (const { scenario } of scenarios) {
    const keys = keysOf.get(scenario);
    const partial = flags.partial || scenario.partial;
    if (keys && keySource)
      planScope(keys, { flag: flags.plans, scenario: scenario.plans, partial, where: keySource.where });
  }
  const networkOf = new Map(
    scenarios.map(({ arg, scenario }) => [scenario, networkFor(flags.network, scenario, arg, process.env)]),
  );
  const headerSecrets = [...networkOf.values()].flatMap((n) =>
    (n.headers ?? []).filter((h) => h.secret).map((h) => ({ text: h.value, name: `header ${h.name}` })),
  );
  const redactWhole = createRedactor(
    [...keysOf.values()].flatMap((k) => k ?? []),
    headerSecrets,
  ).whole;
  const remote = isRemote(target);
  return { scenarios, shard, keysOf, keysFrom: keySource?.where, plansFile, redactWhole, remote, networkOf };
}

/** Where the run talks to the user on stderr: the progress board, log lines and notices. */
interface RunConsole {
  readonly stream: ProgressStream;
  readonly board: PlanBoard;
  /** A log line (none with --quiet). */
  readonly log: (line: string) => void;
  /** A line printed even with --quiet. */
  readonly notice: (line: string) => void;
}

function createRunConsole(quiet: boolean): RunConsole {
  // Progress while probes run (one line per plan) and during load phases, on stderr; log lines are printed above
  // it. Redrawn in place only on a terminal: plain lines in CI, or when stdout or stderr is not a terminal.
  const live = process.stderr.isTTY === true && process.stdout.isTTY === true && !process.env.CI;
  const stream = {
    write: (t: string) => process.stderr.write(t),
    isTTY: live,
    columns: process.stderr.columns,
  };
  const board = createPlanBoard(stream);
  const log = quiet ? () => {} : (line: string) => board.log(line);
  const notice = (line: string) => board.log(line);
  return { stream, board, log, notice };
}

/** --dry-run: each scenario's schedule and what it spends, sending nothing. */
async function printDryRuns(flags: RunFlags, inputs: RunInputs): Promise<void> {
  const { dryRunLines } = await import('../engine/dry-run.js');
  const { target } = flags;
  for (const { scenario } of inputs.scenarios) {
    const keys = inputs.keysOf.get(scenario);
    const lines = dryRunLines({
      scenario,
      ...(target.kind === 'external' ? { target: target.url } : {}),
      ...(keys ? { keys } : {}),
      ...(flags.plans ? { plans: flags.plans } : {}),
      figures: layerFigures(scenario.planLimits, inputs.plansFile),
      ...(target.kind === 'embedded' && target.timeScale !== undefined ? { timeScale: target.timeScale } : {}),
      ...(flags.rttMs !== undefined ? { rttMs: flags.rttMs } : {}),
      remote: inputs.remote,
      partial: flags.partial,
      ...(inputs.keysFrom !== undefined ? { keysFrom: inputs.keysFrom } : {}),
      ...(flags.focus ? { focus: flags.focus } : {}),
    });
    process.stdout.write(`${lines.map(inputs.redactWhole).join('\n')}\n`);
  }
}

/**
 * Ctrl-C or SIGTERM: the first stops new requests (the controller), the second exits at once. Returns the
 * function that removes the handlers.
 */
function handleSignals(controller: AbortController): () => void {
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`\n${sig} again: exiting now, without waiting for requests in flight or writing reports\n`);
      process.exit(EXIT.interrupted);
    }
    process.stderr.write(
      `\n${sig}: stopping new requests, finishing those in flight, writing reports (again to exit now)\n`,
    );
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** A scenario's target: the command's, with the scenario's keys, the plans file and the scenario's network. */
function runTarget(flags: RunFlags, inputs: RunInputs, scenario: Scenario): RunTarget {
  const keys = inputs.keysOf.get(scenario);
  const network = inputs.networkOf.get(scenario);
  const { target } = flags;
  if (target.kind === 'external') return { ...target, ...(keys ? { keys } : {}), ...(network ? { network } : {}) };
  return {
    ...target,
    ...(keys ? { keys } : {}),
    ...(inputs.plansFile ? { planFigures: inputs.plansFile } : {}),
    ...(network?.headers ? { headers: network.headers } : {}),
  };
}

/** The run's event listeners: the sinks' (--live, --metrics-port), and the plan board's count of requests. */
function subscribeOf(
  quiet: boolean,
  out: RunConsole & { subscribe: RunSinks['subscribe'] },
): Pick<RunOptions, 'subscribe'> {
  if (quiet) return out.subscribe ? { subscribe: out.subscribe } : {};
  return {
    subscribe: (events) => {
      out.subscribe?.(events);
      events.on('keys', (e) => out.board.keys(e.keys));
    },
  };
}

/** One scenario's options for the engine, from the flags and what was read before the runs. */
function scenarioRunOptions(
  flags: RunFlags,
  inputs: RunInputs,
  run: { arg: string; scenario: Scenario; reportDir: string; signal: AbortSignal },
  out: RunConsole & { progress: ProgressReporter; subscribe: RunSinks['subscribe'] },
): RunOptions {
  const { arg, scenario } = run;
  return {
    scenario,
    ...(arg.includes('/') || arg.endsWith('.yaml') || arg.endsWith('.yml') ? { scenarioFile: arg } : {}),
    target: runTarget(flags, inputs, scenario),
    ...(flags.plans ? { plans: flags.plans } : {}),
    ...(flags.focus ? { focus: flags.focus } : {}),
    ...(flags.partial ? { partial: true } : {}),
    ...(inputs.keysFrom !== undefined ? { keysFrom: inputs.keysFrom } : {}),
    ...(inputs.shard ? { shard: inputs.shard } : {}),
    ...(flags.thresholds ? { thresholds: flags.thresholds } : {}),
    ...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
    ...(flags.rttMs !== undefined ? { rttMs: flags.rttMs } : {}),
    reportDir: run.reportDir,
    signal: run.signal,
    ...subscribeOf(flags.quiet, out),
    log: out.log,
    notice: out.notice,
    ...(flags.quiet
      ? {}
      : {
          onProbe: (p: ProbeProgress) => out.board.probe(p),
          onProgress: (p: ProgressStats) => {
            out.board.end();
            out.progress.update(p);
          },
        }),
  };
}

/** Where a scenario's reports go: --report-dir, a shard's own folder, or reports/<stamp>-<scenario>/. */
function reportDirOf(flags: RunFlags, inputs: RunInputs, scenario: Scenario): string {
  const { shard } = inputs;
  return shard && flags.reportDir === undefined
    ? join('reports', shard.runId, `shard-${shard.index}`)
    : reportDirFor(flags.reportDir, scenario.name, inputs.scenarios.length > 1, new Date());
}

/** The lines announcing a run (a remote target's run is announced by the engine, with more to say). */
function announce(flags: RunFlags, inputs: RunInputs, scenario: Scenario, log: (line: string) => void): void {
  const { shard } = inputs;
  const against = flags.target.kind === 'external' ? flags.target.url : 'the embedded reference server';
  if (!inputs.remote) log(`petload: ${scenario.name} against ${against}`);
  if (shard)
    log(
      `petload: shard ${shard.index} of ${shard.count} of run ${shard.runId}${shard.startAt !== undefined ? `, beginning at ${new Date(shard.startAt).toISOString()}` : ''}`,
    );
}

/** What a finished run prints: its summary (or what could not be assembled), an abort's line and hint. */
function reportResult(
  result: RunResult,
  inputs: RunInputs,
  out: RunConsole,
  render: typeof import('../outputs/console.js').renderConsoleSummary,
): void {
  if (result.failure) {
    for (const line of failureLines(result.failure)) out.notice(line);
  } else {
    const columns = consoleColumns();
    const summary = render(result.report, {
      color: process.stdout.isTTY === true,
      ...(result.files ? { files: result.files } : {}),
      ...(columns !== undefined ? { columns } : {}),
    });
    // The report's free text is redacted already; whole keys once more, as in every report file.
    process.stdout.write(`${inputs.redactWhole(summary)}\n`);
  }
  // An aborted run is also a tool error: one line and a hint on stderr, even with --quiet (also a run that stopped
  // itself with exit 2: a key's day that it would have used up).
  const abortedByTool = result.report.verdict === 'aborted' && result.exitCode !== EXIT.interrupted;
  if (!result.failure && (abortedByTool || result.exitCode === EXIT.internal)) {
    out.notice(
      `petload: ${result.report.abortReason ?? 'the run was aborted'}\n  hint: ${result.hint ?? (result.exitCode === EXIT.internal ? ERRORS.E_INTERNAL.hint : 'See the report.')}`,
    );
  }
}

/**
 * --baseline: the run compared with its scenario's baseline, compare.* written beside its report. Returns the
 * run's exit code, or 1 when the run passed but regressed, or 2 when the baseline cannot be compared with it.
 */
async function compareWithBaseline(
  flags: RunFlags & { baseline: string },
  result: RunResult,
  out: RunConsole,
): Promise<number> {
  if (!result.files || result.report.verdict === 'aborted') return result.exitCode;
  const [{ baselineFor, compareAndWrite }, { compareConsole }] = await Promise.all([
    import('./compare-files.js'),
    import('../drift/console.js'),
  ]);
  const name = result.report.scenario.name;
  try {
    const baseline = await baselineFor(flags.baseline, name);
    if (baseline === null) {
      out.notice(`petload: no report of scenario ${name} under ${flags.baseline}: nothing to compare with`);
      return result.exitCode;
    }
    const dir = dirname(result.files.json);
    const written = await compareAndWrite(baseline, result.report, {}, dir, flags.githubSummaryFlag, dir);
    if (written.summaryProblem) out.notice(written.summaryProblem);
    process.stdout.write(`${compareConsole(written.comparison, { color: process.stdout.isTTY === true })}\n`);
    return written.comparison.regressed && result.exitCode === 0 ? 1 : result.exitCode;
  } catch (e) {
    if (!isPetloadError(e)) throw e;
    out.notice(`petload: --baseline: ${e.message}`);
    return severityOfExit(EXIT.usage) > severityOfExit(result.exitCode) ? EXIT.usage : result.exitCode;
  }
}

/** Runs every scenario in turn until one is interrupted; returns the exit code of the worst. */
async function runEach(
  flags: RunFlags,
  inputs: RunInputs,
  out: RunConsole & { subscribe: RunSinks['subscribe'] },
  signal: AbortSignal,
): Promise<number> {
  // Loaded here, not at start-up: the engine brings undici, autocannon and the metrics.
  const [{ runScenario }, { renderConsoleSummary }] = await Promise.all([
    import('../engine/run.js'),
    import('../outputs/console.js'),
  ]);
  const { githubSummary, baseline } = flags;
  const progress = createProgressReporter(out.stream);
  let worst = 0;
  for (const { arg, scenario } of inputs.scenarios) {
    if (signal.aborted) break;
    const reportDir = reportDirOf(flags, inputs, scenario);
    announce(flags, inputs, scenario, out.log);
    const result = await runScenario(
      scenarioRunOptions(flags, inputs, { arg, scenario, reportDir, signal }, { ...out, progress }),
    );
    out.board.end();
    progress.done();
    reportResult(result, inputs, out, renderConsoleSummary);
    if (githubSummary !== null && result.files) {
      const failed = await appendGithubSummary(githubSummary, result.files.markdown);
      if (failed !== null) out.notice(failed);
    }
    const code =
      baseline !== undefined ? await compareWithBaseline({ ...flags, baseline }, result, out) : result.exitCode;
    if (severityOfExit(code) > severityOfExit(worst)) worst = code;
  }
  return worst;
}

/** `petload run`, after its flags' checks: the exit code of the whole command. */
export async function runScenarios(flags: RunFlags): Promise<number> {
  const inputs = readInputs(flags);
  const out = createRunConsole(flags.quiet);
  if (flags.dryRun) {
    await printDryRuns(flags, inputs);
    return 0;
  }
  // Sinks first: a port in use stops the command before anything is sent.
  const sinks = await startRunSinks(flags.sinks, out.notice);
  const controller = new AbortController();
  const removeSignalHandlers = handleSignals(controller);
  let worst: number;
  try {
    worst = await runEach(flags, inputs, { ...out, subscribe: sinks.subscribe }, controller.signal);
  } finally {
    removeSignalHandlers();
    await sinks.close();
  }
  // Interrupted is 130, even when the signal came after the last run had sent everything.
  return controller.signal.aborted ? EXIT.interrupted : worst;
}
