/**
 * One run of a scenario: set up the target, send (probes, then load phases), judge every exchange as it comes,
 * evaluate thresholds, and write every report — also when the run is interrupted or aborted.
 */
import { setMaxListeners } from 'node:events';
import { describeLimits, layerFigures, type PlanName } from '../api/plans.js';
import type { Severity } from '../checks/catalogue.js';
import { parseThreshold, thresholdCheckId, type Threshold } from '../checks/thresholds.js';
import { ABORTED_UNJUDGED, evaluateThreshold, thresholdMessage } from '../checks/threshold-eval.js';
import type { LoadSection, Scenario } from '../config/scenario.js';
import { describeFocus, type Focus, type Focused, focusScenario, isFocused } from '../config/focus.js';
import { createRedactor, type Redactor } from '../config/keys-file.js';
import type { ApiKey } from '../core/api-key.js';
import { collectNotes, createRunEvents, type RunEvents } from '../core/run-events.js';
import { PetloadError } from '../core/errors.js';
import type { HttpClient } from '../http/exchange.js';
import type { Outcome } from '../checks/ledger.js';
import { assertReachable } from '../http/reachability.js';
import { probesInOrder } from '../probes/index.js';
import { runLoad, type LoadOutcome } from '../executors/run-load.js';
import { finalizeRun, type Failure } from './finalize.js';
import { createRunContext, probeContextOf, type RunContext } from './run-context.js';
import type { ProbeProgress, ProgressStats } from '../core/progress.js';
import type { MetricsSnapshot } from '../metrics/recorder.js';
import { loadSentNone } from '../metrics/traffic.js';
import { reportKey } from '../report/key-limits.js';
import type { Report } from '../report/schema.js';
import { MAX_IN_FLIGHT } from '../probes/in-flight.js';
import { describeDuration, describeEstimate, describeKeySpend, estimateRequests, type Estimate } from './estimate.js';
import { runSchedule, type ScheduleOutcome, type StepWait } from './run-schedule.js';
import { loadStartLines, scheduleLines, scheduleReport } from './schedule-report.js';
import { createQuotaGate } from './quota-gate.js';
import { externalTarget, startEmbeddedTarget, type Target } from './target.js';
import { lookWithV1 } from './base-look.js';
import { watchTarget } from './target-sanity.js';
import { prepareShard, shardScenario, type PreparedShard } from '../shard/partition.js';
import { shardInfo, type ShardSpec } from '../shard/spec.js';
import { waitUntil } from '../shard/start.js';
import { unfinishedNotice } from '../journal/previous.js';
import { startJournal, type Journal } from '../journal/writer.js';
import { VERSION } from './version.js';
import { isSpecialNetwork, resolveNetwork, type ResolvedNetwork, type RunNetwork } from './network.js';
import { describeProtocols } from '../http/network.js';
import { armDeadline, runDeadline } from './deadline.js';
import { type CleanupStack, withCleanup } from './cleanup.js';
import { isRemote, targetOf, type FlatTarget, type NoFlatTarget, type RunTarget } from './run-target.js';
import { planScope, type NotJudged, type PlanScope } from './plan-scope.js';
import { EMBEDDED_TIME_SCALE, REACHABILITY_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../core/defaults.js';
import { awaitLoadWindows, loadHolds, shortfallLines } from './load-start.js';
import { type Aborted, endingOf, Interrupted } from './run-ending.js';

/** A run's own settings, whatever its target. */
export interface RunSettings {
  /** A validated scenario (src/config/scenario.ts). */
  scenario: Scenario;
  /** The file it came from, for the report. */
  scenarioFile?: string;
  plans?: readonly PlanName[];
  /**
   * A partial run: a plan named (here or in the scenario's `plans:`) without a key is listed as not judged instead
   * of refusing the run (the scenario's `partial: true` asks the same; src/engine/plan-scope.ts).
   */
  partial?: boolean;
  /** Where the keys were read from, in the words of a refusal: `in the keys file k.json (--keys-file)`. */
  keysFrom?: string;
  /** Extra thresholds from the command line. */
  thresholds?: readonly string[];
  /**
   * Judge only these checks and run only these probes, and what judges them (`--check`, `--probe`;
   * src/config/focus.ts): every other check is out of scope. Absent or empty: the whole scenario.
   */
  focus?: Focus;
  reportDir: string;
  /** Request timeout, real ms. */
  timeoutMs?: number;
  /** The round trip to the target the schedule assumes, real ms (default 0: loopback; docs/schedule.md). */
  rttMs?: number;
  /** Real ms after which the run stops and reports (default: derived from its estimate, src/engine/deadline.ts). */
  deadlineMs?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Lines the user must see even when the log is quiet: what a run against a remote target will send. Default: log. */
  notice?: (line: string) => void;
  /** Called about once a second of real time during load phases. */
  onProgress?: (stats: ProgressStats) => void;
  /** Called as each probe starts and ends, per plan (replaces the log line per probe). */
  onProbe?: (progress: ProbeProgress) => void;
  /**
   * Subscribe sinks to the run's event stream before anything is emitted (src/core/run-events.ts): every event
   * of the run, its free text redacted. `log`, `notice`, `onProgress` and `onProbe` are listeners of it too.
   */
  subscribe?: (events: RunEvents) => void;
  /** A seam between assembling the report and validating it (src/engine/finalize.ts); tests force failures with it. */
  amendReport?: (report: Report) => Report;
  /** One shard of a sharded run (src/shard/): its keys, its share of the load and probes, a common start. */
  shard?: ShardSpec;
}

export type RunOptions = RunSettings &
  NoFlatTarget & {
    /** The embedded reference server (the default, `{ kind: 'embedded' }`) or an external target (./run-target.ts). */
    target?: RunTarget;
  };

/** @deprecated The flat form of earlier versions (`target: url`, `faults`, `targetClock`… beside `scenario`). */
export type FlatRunOptions = RunSettings & FlatTarget;

/** Run options as the run reads them: the target in its one form. */
type Run = RunSettings & { readonly target: RunTarget };

export interface RunResult {
  report: Report;
  exitCode: number;
  files: { json: string; junit: string; markdown: string; html: string } | null;
  /** What to do about an aborted run (the hint of the tool error that aborted it). */
  hint?: string;
  /** The report could not be assembled, validated or rendered (exit 4); what was saved, and where. */
  failure?: Failure;
}

/** How long in-flight requests may finish after an interrupt (real ms); then they are abandoned, unjudged. */
const DRAIN_MS = 2000;

/**
 * The end of the grace period of requests in flight: it aborts DRAIN_MS after the run's signal does (or after
 * start(), at the end of a run). The send path listens to it once for the whole run: when it fires, the client
 * abandons whatever it still has in flight or queued, and a request sent after it settles unsent (send-path.ts),
 * so nothing waits on a stalled target past it.
 */
function drainDeadline(signal: AbortSignal): { signal: AbortSignal; start(): void; dispose(): void } {
  const deadline = new AbortController();
  setMaxListeners(0, deadline.signal);
  let timer: NodeJS.Timeout | undefined;
  const start = () => {
    timer ??= setTimeout(() => deadline.abort(), DRAIN_MS);
  };
  signal.addEventListener('abort', start, { once: true });
  return {
    signal: deadline.signal,
    start,
    dispose: () => {
      signal.removeEventListener('abort', start);
      clearTimeout(timer);
    },
  };
}

/** Wait until nothing is in flight, or the deadline (which abandons what is still in flight: it then settles). */
async function drain(client: HttpClient, deadline: AbortSignal): Promise<void> {
  if (deadline.aborted) return;
  const aborted = new Promise<void>((resolve) => deadline.addEventListener('abort', () => resolve(), { once: true }));
  await Promise.race([client.idle(), aborted]);
}

/** One note per load phase and plan: what was offered and what became of it. */
function loadNotes(outcome: LoadOutcome): string[] {
  const lines = outcome.phases.flatMap((ph) =>
    ph.plans.map(
      (p) =>
        `load ${ph.label} [${p.plan}]: planned ${p.planned}, sent ${p.sent} (${p.retries} retries), accepted ${p.accepted}, refused ${p.refused}, other answers ${p.answered}, no answer ${p.failed}, held back by backoff ${p.heldBack}, dropped ${p.dropped}, gave up ${p.gaveUp}`,
    ),
  );
  for (const ph of outcome.phases)
    for (const s of ph.saturate ?? []) if (s.stopped) lines.push(`load ${ph.label} [${s.plan}]: ${s.stopped}`);
  if (outcome.suspectedBans.length > 0)
    lines.push(`suspected banned during the load: ${outcome.suspectedBans.join(', ')}`);
  if (outcome.stopped === 'max-requests') lines.push('the load stopped early: maxRequests was reached');
  return lines;
}

const DEFAULT_PLANS: readonly PlanName[] = ['free', 'pro', 'business'];

// At least as many as an exhaust keeps in flight across a long link (probes/in-flight.ts); opened only as needed.
const POOL_CONNECTIONS = Math.max(64, MAX_IN_FLIGHT);

/** The figures the run judged against, key by key (so a report says which limits it held the target to). */
function figuresNote(keys: readonly ApiKey[]): string {
  return `Figures judged: ${keys.map((k) => `${k.label} ${describeLimits(k.limits)}`).join('; ')}.`;
}

/** The plans the run judges, and those named without a key in a partial run (else a refusal: ./plan-scope.ts). */
function scopeOf(o: Run, scenario: Scenario, keys: readonly ApiKey[]): PlanScope {
  const where =
    o.keysFrom ?? (o.target.kind === 'external' ? "in the target's keys" : 'in the keys given to the embedded server');
  return planScope(keys, {
    flag: o.plans,
    scenario: scenario.plans,
    partial: o.partial === true || scenario.partial,
    where,
  });
}

/** A remote run's announcement, before anything is sent. */
function preamble(
  scenario: Scenario,
  url: string,
  plans: readonly PlanName[],
  keys: readonly ApiKey[],
  estimate: Estimate,
): string[] {
  return [
    `petload: ${scenario.name} against the remote target ${url}`,
    `  plans ${plans.join(', ')}; keys ${keys.map((k) => k.label).join(', ')}`,
    `  ${describeEstimate(estimate)}`,
    `  expected duration ${describeDuration(estimate)}`,
    ...describeKeySpend(estimate).map((l) => `    ${l}`),
    ...estimate.schedule.reasons.map((r) => `  slower than it could be: ${r}`),
    ...loadStartLines(estimate).map((l) => `  ${l}`),
    "  each key's daily quota left is read from the first answer on it, where its headers tell it; nothing is sent for it",
  ];
}

/**
 * The checks outside the focus that failed all the same on the focused traffic (a passive check, or another check
 * of a probe kept): not in the verdict, but never dropped silently.
 */
function outsideFailures(outcomes: readonly Outcome[], { inScope }: Focused): string[] {
  const failed = new Map<string, number>();
  for (const o of outcomes)
    if (o.failed > 0 && !(inScope as readonly string[]).includes(o.id))
      failed.set(o.id, (failed.get(o.id) ?? 0) + o.failed);
  return [...failed].map(
    ([id, n]) =>
      `outside the focus: ${id} failed ${n} time${n === 1 ? '' : 's'} on the focused run's traffic; run without --check and --probe to judge it`,
  );
}

/** The thresholds of the scenario and of the command line, parsed. */
function thresholdsOf(scenario: Scenario, o: Run): { expression: string; severity: Severity; parsed: Threshold }[] {
  return [
    ...scenario.thresholds,
    ...(o.thresholds ?? []).map((expression) => ({
      expression,
      severity: 'major' as const,
      parsed: parseThreshold(expression),
    })),
  ];
}

/** The target: the external one given (with its keys), else the embedded reference server; closed by `stack`. */
async function openTarget(t: RunTarget, o: Run, scenario: Scenario, stack: CleanupStack): Promise<Target> {
  if (t.kind === 'external') return stack.use(externalTarget(t.url, t.keys ?? [], t.clock));
  const embedded = await startEmbeddedTarget({
    timeScale: t.timeScale ?? scenario.timeScale ?? EMBEDDED_TIME_SCALE,
    faults: t.faults ?? [],
    windowReport: t.windowReport ?? 'tightest',
    countErrors: t.countErrors ?? false,
    ...(t.minuteLimiter ? { minuteLimiter: t.minuteLimiter } : {}),
    ...(t.instances ? { instances: t.instances } : {}),
    plans: o.plans ?? scenario.plans ?? DEFAULT_PLANS,
    keysPerPlan: scenario.keysPerPlan,
    sacrificial: scenario.requiresSacrificialKey,
    audit: scenario.requiresAuditKey,
    figures: layerFigures(scenario.planLimits, t.planFigures),
    ...(t.keys ? { keys: t.keys } : {}),
    ...(t.ban ? { ban: t.ban } : {}),
  });
  return stack.use(embedded);
}

/** How the target is reached: an external one's network, the embedded server's extra headers. */
const networkOf = (t: RunTarget): RunNetwork | undefined =>
  t.kind === 'external' ? t.network : t.headers ? { headers: t.headers } : undefined;

/** What a run needs before it sends: its scenario (a shard's share), target, plans, keys and notes so far. */
interface Setup {
  scenario: Scenario;
  target: Target;
  plans: PlanName[];
  /** Plans the scope named that the run does not judge (a partial run). */
  notJudged: NotJudged[];
  shard: PreparedShard | null;
  keys: readonly ApiKey[];
  /** When the run began sending (a shard: after waiting for --start-at). */
  begunAt: Date;
  redact: Redactor;
  /** The run's event stream, and the notes it has carried so far. */
  events: RunEvents;
  notes: { all(): string[] };
  /** The run's journal in its report directory (src/journal): closed after the report is written. */
  journal: Journal;
  /** How the target is reached, and the protocols its connections spoke so far. */
  network: ResolvedNetwork;
  /** A focused run's scope (src/config/focus.ts); null: the whole scenario. */
  focused: Focused | null;
}

/**
 * Start the run's journal (src/journal, docs/journal.md): what it measures, appended to its report directory as it
 * goes, so that `petload report --recover` can rebuild the report of a run that was killed. An unfinished journal
 * found there is set aside, not lost, and the run says so. A directory it cannot write stops the run before it sends.
 */
async function openJournal(
  o: Run,
  s: Pick<Setup, 'scenario' | 'target' | 'plans' | 'notJudged' | 'keys' | 'begunAt' | 'events' | 'focused'>,
): Promise<Journal> {
  const { scenario, target, events } = s;
  const journal = startJournal(events, o.reportDir, {
    tool: { name: 'petload', version: VERSION },
    ...describeRun(o, scenario, target),
    plans: s.plans,
    ...(s.notJudged.length > 0 ? { notJudged: s.notJudged } : {}),
    ...(s.focused
      ? {
          focus: { checks: [...s.focused.focus.checks], probes: [...s.focused.focus.probes] },
          outOfScope: s.focused.outOfScope,
        }
      : {}),
    keys: s.keys.map(reportKey),
    startedAt: s.begunAt.toISOString(),
    // A focused run judges no threshold: they are out of scope.
    thresholds: s.focused
      ? []
      : thresholdsOf(scenario, o).map((t) => ({ expression: t.expression, severity: t.severity })),
    ...(o.shard ? { shard: shardInfo(o.shard) } : {}),
  });
  if (journal.previous) {
    const text = unfinishedNotice(o.reportDir, journal.previous);
    events.emit({ type: 'log', text, notice: true });
    events.emit({ type: 'note', text: text.replace(/^petload: /, '') });
  }
  return journal;
}

/** The scenario and target as the report and the journal name them. */
function describeRun(o: Run, scenario: Scenario, target: Target) {
  return {
    scenario: {
      name: scenario.name,
      description: scenario.description,
      ...(o.scenarioFile ? { file: o.scenarioFile } : {}),
    },
    target: {
      url: target.url,
      embedded: target.embedded,
      timeScale: target.clock.scale,
      faults: [...target.faults],
      ...(target.variant ? { variant: target.variant } : {}),
    },
  };
}

/** The caller's listeners, as sinks of the run's events. */
function wireSinks(o: Run, events: RunEvents): void {
  const log = o.log;
  const notice = o.notice ?? log;
  if (log || notice) events.on('log', (e) => (e.notice ? notice : log)?.(e.text));
  if (o.onProgress) events.on('phase', (e) => o.onProgress!(e.progress));
  if (o.onProbe) events.on('probe', (e) => o.onProbe!(e.progress));
  o.subscribe?.(events);
}

/** Opens the run's target and journal (closed by `stack`) and its event stream. */
async function setUp(
  o: Run,
  { scenario, focused }: { scenario: Scenario; focused: Focused | null },
  startedAt: Date,
  stack: CleanupStack,
): Promise<Setup> {
  const network = resolveNetwork(networkOf(o.target), scenario);
  const target = await openTarget(o.target, o, scenario, stack);
  const { judged: plans, notJudged } = scopeOf(o, scenario, target.keys);
  const shard = o.shard ? prepareShard(probesInOrder(scenario.probes), target.keys, plans, o.shard) : null;
  const keys = shard?.keys ?? target.keys.filter((k) => plans.includes(k.plan));
  const redact = createRedactor(target.keys, network.secrets);
  const events = createRunEvents(redact);
  const notes = collectNotes(events);
  wireSinks(o, events);
  const late = o.shard?.startAt !== undefined ? (await waitUntil(o.shard.startAt, o.signal)).lateMs : 0;
  const begunAt = o.shard ? new Date() : startedAt;
  const journal = stack.use(
    await openJournal(o, { scenario, target, plans, notJudged, keys, begunAt, events, focused }),
  );
  for (const text of shard?.notes ?? []) events.emit({ type: 'note', text });
  if (late > 1000)
    events.emit({ type: 'note', text: `shard ${o.shard!.index} began ${(late / 1000).toFixed(1)} s after --start-at` });
  if (keys.length > 0) events.emit({ type: 'note', text: figuresNote(keys) });
  if (focused) events.emit({ type: 'note', text: `${describeFocus(focused)}.` });
  return { scenario, target, plans, notJudged, shard, keys, begunAt, redact, events, notes, journal, network, focused };
}

/** Refuse a run that cannot be judged or must not start: no key for the plans, no sacrificial key when needed. */
function checkKeys({ scenario, plans, keys, target }: Setup): void {
  if (keys.length === 0) {
    throw new PetloadError(
      'E_NO_KEYS',
      `no key for the plans to judge (${plans.join(', ') || 'none'}); the keys file has ${target.keys.length} key(s)`,
    );
  }
  if (scenario.requiresSacrificialKey && !keys.some((k) => k.sacrificial)) {
    throw new PetloadError(
      'E_SAFETY',
      `scenario ${scenario.name} needs a key marked "sacrificial": true; none of the keys is`,
    );
  }
  if (scenario.requiresAuditKey && !keys.some((k) => k.audit)) {
    throw new PetloadError(
      'E_SAFETY',
      `scenario ${scenario.name} needs a key marked "audit": true for each plan it audits: the audit spends the key's whole day; none of the keys is`,
    );
  }
}

/** Every probe of the scenario, on each plan it runs on (a shard: its share), as the schedule lays them out. */
async function runProbes(setup: Setup, run: RunContext, planned: Estimate): Promise<ScheduleOutcome> {
  const { plans, events } = setup;
  const ctx = probeContextOf(run, {
    note: (text) => events.emit({ type: 'note', text }),
    log: (text) => events.emit({ type: 'log', text, notice: false }),
  });
  // One progress event per probe and plan as the schedule starts and ends it (the console's line per plan).
  const steps = planned.schedule.steps;
  const probeTotal = (plan: PlanName | null) => steps.filter((st) => st.plan === plan).length;
  const probeIndex = new Map<PlanName | null, number>();
  const onStep = events.wants('probe')
    ? (probe: string, plan: PlanName | null, state: 'start' | 'done' | 'wait', wait?: StepWait) => {
        if (state === 'start') probeIndex.set(plan, (probeIndex.get(plan) ?? 0) + 1);
        const index = probeIndex.get(plan) ?? 0;
        const progress = { probe, plan, state, index, total: probeTotal(plan), perPlan: run.keyStates.perPlan() };
        // What a wait is for, and how long in real time, so that no display pauses without saying why.
        const realMs = wait ? Math.max(0, (wait.untilLocal - run.clock.now()) / run.clock.scale) : 0;
        events.emit({
          type: 'probe',
          progress: wait ? { ...progress, waiting: { who: wait.reason.who, why: wait.reason.for, realMs } } : progress,
        });
      }
    : undefined;
  return runSchedule(planned.schedule, ctx, plans, setup.scenario.probes, onStep);
}

/** Each key's standing (a `keys` event) about once a second of real time while anyone listens, and once at the end. */
function watchKeys(events: RunEvents, run: RunContext): () => void {
  if (!events.wants('keys')) return () => {};
  const emit = () => {
    const now = run.clock.now();
    const keys = run.keyStates.all().map((s) => ({
      label: s.key.label,
      plan: s.key.plan,
      sent: s.sent,
      refused: s.refused,
      heldBack: s.blockedUntil > now,
      suspectedBan: s.suspectedBan,
    }));
    events.emit({ type: 'keys', keys });
  };
  const timer = setInterval(emit, 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    emit();
  };
}

/**
 * The run's figures, their load's phases named even when they sent nothing: the report then never reads as a run
 * without load (metrics/traffic.ts, trafficWords).
 */
function withLoadPhases(snapshot: MetricsSnapshot, load: LoadOutcome | undefined): MetricsSnapshot {
  if (!load || !snapshot.traffic) return snapshot;
  const names = [...new Set([...snapshot.traffic.load, ...load.phases.map((ph) => ph.label)])];
  return { ...snapshot, traffic: { ...snapshot.traffic, load: names } };
}

/** The load section, with a progress line about once a second; its outcome goes into the notes. */
async function runLoadSection(setup: Setup, run: RunContext, load: LoadSection): Promise<LoadOutcome> {
  const { clock } = run;
  const { events } = setup;
  // From what was sent before the load (the probes): the first line's rate is the load's, not the run's so far.
  let last = { sent: run.metrics.progress().requests, at: clock.monotonic() };
  const outcome = await runLoad(
    run.loadContext({
      progress: (p) => {
        if (!events.wants('phase')) return;
        const m = run.metrics.progress();
        const now = clock.monotonic();
        // Per real second: run-clock ms are `scale` times shorter than real ones.
        const rate = now > last.at ? ((m.requests - last.sent) * 1000 * clock.scale) / (now - last.at) : 0;
        last = { sent: m.requests, at: now };
        const counts = { sent: m.requests, rate, s2xx: m.s2xx, s4xx: m.s4xx, s429: m.s429, p99Ms: m.p99 };
        const progress = { ...p, ...counts, timeScale: clock.scale };
        events.emit({ type: 'phase', progress });
      },
      log: (text) => events.emit({ type: 'log', text, notice: false }),
    }),
    load,
  );
  for (const text of loadNotes(outcome)) events.emit({ type: 'note', text });
  // A phase that sent nothing, or far below its plan, says so and why: in the report and on the console.
  for (const text of shortfallLines(outcome)) {
    events.emit({ type: 'note', text });
    events.emit({ type: 'log', text: `petload: ${text}`, notice: true });
  }
  return outcome;
}

/** Before the load: wait until no key of the load is held by a probe's deliberate 429 (./load-start.ts). */
async function startLoadOnFreeKeys(setup: Setup, run: RunContext, planned: Estimate, signal: AbortSignal) {
  const holds = loadHolds(run.keyStates, setup.keys, run.clock.now(), planned.schedule);
  await awaitLoadWindows(run.clock, holds, signal, (text) => {
    setup.events.emit({ type: 'note', text });
    setup.events.emit({ type: 'log', text, notice: false });
  });
}

/** Is anything answering at the target? Then, for an external one, the header line on how it was reached. */
async function reachable(o: Run, setup: Setup, signal: AbortSignal): Promise<void> {
  const { target, network, events } = setup;
  const protocols = await assertReachable(target.url, o.timeoutMs ?? REACHABILITY_TIMEOUT_MS, signal, network.client);
  for (const p of protocols) network.protocols.add(p);
  // The embedded server is always plain HTTP/1.1 on loopback: nothing to say.
  if (protocols.length === 0 || target.embedded) return;
  events.emit({ type: 'log', text: network.describe(protocols), notice: isSpecialNetwork(networkOf(o.target)) });
}

/** What report.json's target says of the network: the protocols spoken and the proxy (credentials hidden). */
function networkOfReport(setup: Setup): { protocol?: 'HTTP/1.1' | 'HTTP/2' | 'HTTP/1.1 and HTTP/2'; proxy?: string } {
  const protocol = describeProtocols([...setup.network.protocols]);
  return {
    ...(protocol !== undefined ? { protocol } : {}),
    ...(setup.network.proxy !== undefined ? { proxy: setup.network.proxy } : {}),
  };
}

/** What a run did, as the report needs it. */
interface RunRecord {
  readonly setup: Setup;
  readonly run: RunContext;
  readonly thresholdSpecs: ReturnType<typeof thresholdsOf>;
  readonly planned: Estimate | undefined;
  readonly scheduled: ScheduleOutcome | undefined;
  readonly aborted: Aborted | undefined;
  readonly load: LoadOutcome | undefined;
}

/** Judge the thresholds on the run's metrics, assemble the report, and write every file of it. */
async function report(o: Run, sent: RunRecord): Promise<RunResult> {
  const { setup, run, thresholdSpecs, aborted } = sent;
  const { scenario, target, redact, events } = setup;
  const snapshot = withLoadPhases(run.metrics.snapshot(), sent.load);
  const schedule = sent.planned && sent.scheduled ? scheduleReport(sent.planned, sent.scheduled) : undefined;
  if (schedule) {
    events.emit({ type: 'note', text: schedule.note });
    events.emit({ type: 'log', text: schedule.note, notice: false });
  }
  const thresholds = thresholdSpecs.map((t) => {
    const checkId = thresholdCheckId(t.parsed) as `threshold.${string}`;
    const r = evaluateThreshold(t.parsed, snapshot);
    const severity = t.severity;
    const judged = { expression: t.expression, checkId, severity, observed: r.observed, unit: r.unit, ok: r.ok };
    // A run aborted before the traffic a rule is about: nothing to judge, and no failure to add to the abort.
    if (aborted && r.observed === null) {
      run.ledger.skip(checkId, null, ABORTED_UNJUDGED);
      return { ...judged, notJudged: ABORTED_UNJUDGED };
    }
    // No data because the load's phases sent nothing: the failure says so (the notes say why).
    const why =
      r.observed === null && loadSentNone(snapshot) ? '; the load sent no request: see the notes for why' : '';
    run.ledger.judge(checkId, null, r.ok, () => `${thresholdMessage(t.expression, r)}${why}`);
    return judged;
  });
  for (const p of run.path.client.protocols()) setup.network.protocols.add(p);
  if (setup.focused)
    for (const text of outsideFailures(run.ledger.all(), setup.focused)) events.emit({ type: 'note', text });
  const described = describeRun(o, scenario, target);
  const input = {
    ...described,
    target: { ...described.target, ...networkOfReport(setup) },
    plans: setup.plans,
    ...(setup.notJudged.length > 0 ? { notJudged: setup.notJudged } : {}),
    keys: setup.keys,
    startedAt: setup.begunAt,
    endedAt: new Date(),
    outcomes: run.ledger.all(),
    thresholds,
    thresholdSeverity: new Map(thresholds.map((t) => [t.checkId, t.severity])),
    metrics: snapshot,
    notes: setup.notes.all(),
    ...(schedule ? { schedule: schedule.report } : {}),
    ...(aborted ? { aborted: { reason: aborted.reason, exitCode: aborted.exitCode } } : {}),
    ...(setup.focused ? { scope: setup.focused } : {}),
  };
  // What the caller prints comes from the report too: it gets the redacted one, as the files do.
  const done = await finalizeRun(input, {
    reportDir: o.reportDir,
    redact,
    amendReport: (r) => {
      const withShard = o.shard ? { ...r, shard: shardInfo(o.shard) } : r;
      return o.amendReport ? o.amendReport(withShard) : withShard;
    },
  });
  const result = { ...done, ...(aborted?.hint ? { hint: aborted.hint } : {}) };
  events.emit({
    type: 'ended',
    verdict: result.report.verdict,
    exitCode: result.exitCode,
    ...(result.report.abortReason !== undefined ? { reason: result.report.abortReason } : {}),
    files: result.files,
    summary: result.report.summary,
  });
  return result;
}

/**
 * What stops a run besides the caller's signal: a halt of its own, when its first answers show that the target is
 * not the API (target-sanity.ts), or a key's first answer that the run would use up the key's day (quota-gate.ts,
 * a remote target only). `signal` is the run's: the caller's or the halt.
 */
function guardsOf(o: Run, { target, scenario, events, keys, network }: Setup) {
  const halt = new AbortController();
  let halted: PetloadError | null = null;
  const stop = (e: PetloadError) => {
    halted ??= e;
    halt.abort();
  };
  // After a wrong base: one look at the base with /v1 added, with the key that got the 404.
  const look = async (label: string) => {
    const key = keys.find((k) => k.label === label);
    const options = { timeoutMs: o.timeoutMs ?? REACHABILITY_TIMEOUT_MS, network: network.client };
    return key ? lookWithV1(target.url, key, o.signal ? { ...options, signal: o.signal } : options) : null;
  };
  const sanity = target.embedded ? null : watchTarget(target.url, stop, look);
  const t = o.target.kind === 'external' ? o.target : null;
  const remote = isRemote(o.target);
  // The plan audit spends its keys' days by design (requiresAuditKey): that is what it is run for.
  const allow = t?.allowQuotaExhaustion === true || scenario.requiresAuditKey;
  const say = (text: string) => events.emit({ type: 'log', text, notice: true });
  const note = (text: string) => events.emit({ type: 'note', text });
  const quota = remote ? createQuotaGate({ allow, say, note, stop }) : null;
  const signal = o.signal ? AbortSignal.any([o.signal, halt.signal]) : halt.signal;
  return { signal, halted: () => halted, sanity, quota, remote };
}

/**
 * Runs one scenario and writes its reports. `options.target` is the embedded reference server (the default) or an
 * external target; the flat form of earlier versions is still read (FlatRunOptions, deprecated).
 */
export function runScenario(options: RunOptions | FlatRunOptions): Promise<RunResult> {
  const o: Run = { ...options, target: targetOf(options) };
  // Whatever ends the run (its report, a tool error, a failure to set up), what it opened is closed by the stack.
  return withCleanup((stack) => runWith(o, stack));
}

/** What the send phase did before it returned or threw: the estimate, what the schedule and the load did. */
interface Sent {
  /** What it threw (absent: it ran to its end). */
  readonly thrown?: { readonly error: unknown };
  readonly planned?: Estimate;
  readonly scheduled?: ScheduleOutcome;
  /** What the load section did, when it ran to its end. */
  readonly load?: LoadOutcome;
}

/** The run's guards and its context, opened onto `stack`. */
function openRun(o: Run, setup: Setup, stack: CleanupStack) {
  const { target, plans, keys, redact, events, scenario } = setup;
  const bound = runDeadline(o.signal ?? new AbortController().signal);
  stack.defer(() => bound.dispose());
  const guards = guardsOf({ ...o, signal: bound.signal }, setup);
  const { signal, halted, sanity, quota } = guards;
  const deadline = drainDeadline(signal);
  stack.defer(() => deadline.dispose());
  // As many connections as requests may be in flight: a request queued in the pool would leave at a time
  // the backoff did not choose. Requests are not cancelled by an interrupt: they get until the drain deadline.
  const run = createRunContext({
    baseUrl: target.url,
    clock: target.clock,
    keys,
    plans,
    redact,
    events,
    connections: Math.max(POOL_CONNECTIONS, scenario.load?.maxInFlight ?? 0),
    timeoutMs: o.timeoutMs ?? REQUEST_TIMEOUT_MS,
    network: setup.network.client,
    signal,
    stopped: () => halted() ?? new Interrupted(),
    requestSignal: deadline.signal,
    ...(sanity ? { onExchange: sanity.observe } : {}),
    ...(quota ? { gate: quota } : {}),
  });
  stack.use(run);
  return { bound, guards, deadline, run };
}

async function runWith(o: Run, stack: CleanupStack): Promise<RunResult> {
  const startedAt = new Date();
  // A focus first (its probes and load), then a shard's share of what is left.
  const focused = isFocused(o.focus) ? focusScenario(o.scenario, o.focus) : null;
  const whole = focused?.scenario ?? o.scenario;
  const scenario = o.shard ? shardScenario(whole, o.shard) : whole;
  // A focused run judges no threshold: they are out of scope.
  const thresholdSpecs = focused ? [] : thresholdsOf(scenario, o);
  const setup = await setUp(o, { scenario, focused }, startedAt, stack);
  const { bound, guards, deadline, run } = openRun(o, setup, stack);
  const { signal, halted } = guards;
  const stopKeys = watchKeys(setup.events, run);
  let sent: Sent;
  try {
    sent = await send(o, setup, run, { bound, guards });
  } finally {
    run.finish();
    stopKeys();
  }
  const ending = endingOf({
    ...(sent.thrown ? { thrown: sent.thrown } : {}),
    halt: halted(),
    deadline: bound.fired(),
    signalAborted: signal.aborted,
    everyKeyBanned: run.keyStates.all().every((k) => k.suspectedBan),
    redact: setup.redact,
  });
  const aborted = ending.kind === 'aborted' ? ending.aborted : undefined;
  if (aborted?.note) setup.events.emit({ type: 'note', text: aborted.note });
  // Nothing should be in flight by now; should something be, it gets the same grace as after an interrupt. The
  // rest (client, target, journal, deadlines) is closed by the stack, after the report.
  deadline.start();
  await drain(run.path.client, deadline.signal);
  if (ending.kind === 'tool-error') throw ending.error;
  const { planned, scheduled, load } = sent;
  return await report(o, { setup, run, thresholdSpecs, planned, scheduled, aborted, load });
}

/**
 * The send phase: announce, estimate, arm the deadline, check the target, run the probes and the load. Returns
 * what it did, and what it threw if it could not go on (endingOf decides what that means for the run).
 */
async function send(
  o: Run,
  setup: Setup,
  run: RunContext,
  { bound, guards }: Pick<ReturnType<typeof openRun>, 'bound' | 'guards'>,
): Promise<Sent> {
  const { scenario } = setup;
  const { signal } = guards;
  let planned: Estimate | undefined;
  let scheduled: ScheduleOutcome | undefined;
  let load: LoadOutcome | undefined;
  const done = () => ({
    ...(planned ? { planned } : {}),
    ...(scheduled ? { scheduled } : {}),
    ...(load ? { load } : {}),
  });
  try {
    planned = announce(o, setup, bound, guards);
    // The reachability check waits as long as a request may (--timeout), 5 s by default.
    await reachable(o, setup, signal);
    if (signal.aborted) throw new Interrupted();
    scheduled = await runProbes(setup, run, planned);
    if (scenario.load && !signal.aborted) {
      await startLoadOnFreeKeys(setup, run, planned, signal);
      if (!signal.aborted) load = await runLoadSection(setup, run, scenario.load);
    }
    return done();
  } catch (error) {
    return { ...done(), thrown: { error } };
  }
}

/** Before anything is sent: the keys checked, the run announced and estimated, its deadline armed. */
function announce(
  o: Run,
  setup: Setup,
  bound: ReturnType<typeof openRun>['bound'],
  guards: ReturnType<typeof openRun>['guards'],
): Estimate {
  const { scenario, target, plans, keys, events } = setup;
  const { quota, remote } = guards;
  checkKeys(setup);
  events.emit({
    type: 'started',
    scenario: scenario.name,
    target: target.url,
    plans,
    keys: keys.map((k) => ({ label: k.label, plan: k.plan })),
    at: setup.begunAt.toISOString(),
  });
  const planned = estimateRequests(scenario, keys, plans, {
    scale: target.clock.scale,
    ...(o.rttMs !== undefined ? { rttMs: o.rttMs } : {}),
    ...(setup.shard ? { runs: setup.shard.runsProbe } : {}),
  });
  const steps = planned.schedule.steps.map(({ probe, plan, at, ends }) => ({ probe, plan, at, ends }));
  events.emit({ type: 'planned', durationMs: planned.durationMs, scale: planned.scale, steps });
  if (remote) {
    for (const text of preamble(scenario, target.url, plans, keys, planned))
      events.emit({ type: 'log', text, notice: true });
    events.emit({ type: 'note', text: `Before the run: ${describeEstimate(planned)}.` });
    quota?.expect(planned, keys);
  } else {
    // Not announced (a local target), but the plan is known all the same: it goes to the log.
    for (const text of scheduleLines(planned)) events.emit({ type: 'log', text, notice: false });
  }
  const judged = plans.filter((p) => keys.some((k) => k.plan === p));
  armDeadline(bound, planned, { load: scenario.load, plans: judged }, events, o.deadlineMs);
  return planned;
}
