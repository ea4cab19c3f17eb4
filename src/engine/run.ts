/**
 * One run of a scenario: set up the target, send (probes, then load phases), judge every exchange as it comes,
 * evaluate thresholds, and write every report — also when the run is interrupted or aborted.
 */
import { setMaxListeners } from 'node:events';
import { PLAN_NAMES, type PlanLimits, type PlanName } from '../api/plans.js';
import type { Severity } from '../checks/catalogue.js';
import { Ledger } from '../checks/ledger.js';
import { createObserver } from '../checks/observer.js';
import { evaluateThreshold, parseThreshold, thresholdCheckId, type Threshold } from '../checks/thresholds.js';
import type { Scenario } from '../config/scenario.js';
import { createRedactor, type ApiKey } from '../config/keys-file.js';
import { PetloadError, isPetloadError, EXIT } from '../errors.js';
import { createHttpClient } from '../http/client.js';
import type { Exchange, HttpClient, RequestSpec } from '../http/exchange.js';
import { assertReachable } from '../http/reachability.js';
import { createMetrics } from '../metrics/recorder.js';
import { writeReports } from '../outputs/write.js';
import type { ProbeContext } from '../probes/context.js';
import { probesInOrder } from '../probes/index.js';
import { Refusals } from '../probes/window.js';
import type { FaultName } from '../server/faults.js';
import type { WindowReport } from '../server/limiter.js';
import { runLoad, type LoadOutcome } from '../executors/run-load.js';
import { buildReport } from './build-report.js';
import type { ProgressStats } from './progress.js';
import { KeyStates } from './key-state.js';
import type { Report } from './report-schema.js';
import { externalTarget, startEmbeddedTarget, type Target } from './target.js';

export interface RunOptions {
  /** A validated scenario (src/config/scenario.ts). */
  scenario: Scenario;
  /** The file it came from, for the report. */
  scenarioFile?: string;
  /** External base URL; absent: the embedded reference server. */
  target?: string;
  /** Keys for an external target (from the keys file or the environment). */
  keys?: readonly ApiKey[];
  timeScale?: number;
  faults?: readonly FaultName[];
  windowReport?: WindowReport;
  countErrors?: boolean;
  plans?: readonly PlanName[];
  /** Extra thresholds from the command line. */
  thresholds?: readonly string[];
  reportDir: string;
  /** Request timeout, real ms. */
  timeoutMs?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Called about once a second of real time during load phases. */
  onProgress?: (stats: ProgressStats) => void;
}

export interface RunResult {
  report: Report;
  exitCode: number;
  files: { json: string; junit: string; markdown: string; html: string } | null;
}

/** Thrown by send() once the run is interrupted, to unwind probes and executors at once. */
class Interrupted extends Error {}

/** How long in-flight requests may finish after an interrupt (real ms). */
const DRAIN_MS = 2000;

async function drain(client: HttpClient | null, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (client && client.inFlight() > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/** One note per load phase and plan: what was offered and what became of it. */
function loadNotes(outcome: LoadOutcome): string[] {
  const lines = outcome.phases.flatMap((ph) =>
    ph.plans.map(
      (p) =>
        `load phase ${ph.index} (${ph.label}) [${p.plan}]: planned ${p.planned}, sent ${p.sent} (${p.retries} retries), accepted ${p.accepted}, refused ${p.refused}, other answers ${p.answered}, no answer ${p.failed}, held back by backoff ${p.heldBack}, dropped ${p.dropped}, gave up ${p.gaveUp}`,
    ),
  );
  if (outcome.suspectedBans.length > 0) lines.push(`suspected banned during the load: ${outcome.suspectedBans.join(', ')}`);
  if (outcome.stopped === 'max-requests') lines.push('the load stopped early: maxRequests was reached');
  return lines;
}

const DEFAULT_PLANS: readonly PlanName[] = ['free', 'pro', 'business'];
const POOL_CONNECTIONS = 64;

function plansOf(o: RunOptions, keys: readonly ApiKey[]): PlanName[] {
  const wanted = o.plans ?? o.scenario.plans;
  const have = new Set(keys.map((k) => k.plan));
  if (wanted) return PLAN_NAMES.filter((p) => wanted.includes(p));
  return PLAN_NAMES.filter((p) => have.has(p));
}

export async function runScenario(o: RunOptions): Promise<RunResult> {
  const log = o.log ?? (() => {});
  const startedAt = new Date();
  const scenario = o.scenario;
  const thresholdSpecs: { expression: string; severity: Severity; parsed: Threshold }[] = [
    ...scenario.thresholds,
    ...(o.thresholds ?? []).map((expression) => ({ expression, severity: 'major' as const, parsed: parseThreshold(expression) })),
  ];

  const embeddedPlans = o.plans ?? scenario.plans ?? DEFAULT_PLANS;
  const target: Target = o.target
    ? externalTarget(o.target, o.keys ?? [])
    : await startEmbeddedTarget({
        timeScale: o.timeScale ?? scenario.timeScale ?? 60,
        faults: o.faults ?? [],
        windowReport: o.windowReport ?? 'tightest',
        countErrors: o.countErrors ?? false,
        plans: embeddedPlans,
        keysPerPlan: scenario.keysPerPlan,
        sacrificial: scenario.requiresSacrificialKey,
      });
  const plans = plansOf(o, target.keys);
  const keys = target.keys.filter((k) => plans.includes(k.plan));
  const redact = createRedactor(target.keys);
  const clock = target.clock;
  const ledger = new Ledger(redact);
  const notes: string[] = [];
  const planLimits = new Map<PlanName, PlanLimits>();
  for (const k of keys) if (!planLimits.has(k.plan)) planLimits.set(k.plan, k.limits);
  const observer = createObserver({ ledger, plans: planLimits, clockScale: clock.scale });
  const metrics = createMetrics({ clock, startMono: clock.monotonic() });
  const keyStates = new KeyStates(keys);
  const internal = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, internal.signal]) : internal.signal;
  // Every request in flight listens to the run's signal: a burst has more than the default 10 listeners.
  setMaxListeners(0, signal);
  let aborted: { reason: string; exitCode: number } | undefined;
  let client: HttpClient | null = null;
  let loadOutcome: LoadOutcome | undefined;

  const record = (spec: RequestSpec, ex: Exchange) => {
    // A request cancelled before it reached the wire was never sent: nothing to judge or measure.
    if (ex.error?.kind === 'aborted') return;
    observer.observe(ex);
    metrics.record(ex);
    if (spec.auth.kind === 'key') keyStates.noteResponse(spec.auth.key, ex);
  };
  const noteSent = (spec: RequestSpec) => {
    if (spec.auth.kind === 'key') keyStates.noteSent(spec.auth.key, clock.now());
  };

  try {
    if (keys.length === 0) {
      throw new PetloadError('E_NO_KEYS', `no key for the plans to judge (${plans.join(', ') || 'none'}); the keys file has ${target.keys.length} key(s)`);
    }
    if (scenario.requiresSacrificialKey && !keys.some((k) => k.sacrificial)) {
      throw new PetloadError('E_SAFETY', `scenario ${scenario.name} needs a key marked "sacrificial": true; none of the keys is`);
    }
    await assertReachable(target.url);
    const holdBack = (label: string) => keyStates.blockedNow(label, clock.now());
    // As many connections as requests may be in flight: a request queued in the pool would leave at a time
    // the backoff did not choose.
    const connections = Math.max(POOL_CONNECTIONS, scenario.load?.maxInFlight ?? 0);
    const c = createHttpClient({ baseUrl: target.url, clock, connections, timeoutMs: o.timeoutMs ?? 10_000, holdBack });
    client = c;
    const ctx: ProbeContext = {
      clock,
      ledger,
      keyStates,
      signal,
      refusals: new Refusals(),
      async send(spec) {
        if (signal.aborted) throw new Interrupted();
        if (spec.auth.kind === 'key' && keyStates.get(spec.auth.key).suspectedBan) {
          throw new PetloadError('E_INTERNAL', `a probe tried to send on ${spec.auth.key.label}, which is suspected banned`);
        }
        noteSent(spec);
        // In-flight requests are not cancelled by an interrupt: they finish (bounded by the drain below).
        const ex = await c.send(spec);
        record(spec, ex);
        return ex;
      },
      async sendSimultaneous(specs) {
        if (signal.aborted) throw new Interrupted();
        const burst = createHttpClient({ baseUrl: target.url, clock, connections: specs.length, timeoutMs: o.timeoutMs ?? 10_000, holdBack });
        try {
          specs.forEach(noteSent);
          const exs = await Promise.all(specs.map((s) => burst.send(s)));
          exs.forEach((ex, i) => record(specs[i]!, ex));
          return exs;
        } finally {
          await burst.close();
        }
      },
      note: (t) => notes.push(redact(t)),
      log: (t) => log(redact(t)),
    };

    for (const probe of probesInOrder(scenario.probes)) {
      for (const plan of probe.perPlan ? plans : [null]) {
        if (signal.aborted) break;
        const t0 = performance.now();
        await probe.run(ctx, plan);
        log(`probe ${probe.name}${plan ? ` [${plan}]` : ''} done in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
      }
    }
    if (scenario.load && !signal.aborted) {
      let last = { sent: 0, at: clock.monotonic() };
      loadOutcome = await runLoad(
        {
          clock,
          signal,
          ledger,
          keyStates,
          plans,
          keys,
          baseUrl: target.url,
          send: ctx.send,
          sendSimultaneous: ctx.sendSimultaneous,
          inFlight: () => c.inFlight(),
          dropped: (n) => metrics.dropped(n),
          progress: (p) => {
            if (!o.onProgress) return;
            const m = metrics.progress();
            const now = clock.monotonic();
            const rate = now > last.at ? ((m.requests - last.sent) * 1000) / (now - last.at) : 0;
            last = { sent: m.requests, at: now };
            o.onProgress({ ...p, sent: m.requests, rate, s2xx: m.s2xx, s4xx: m.s4xx, s429: m.s429, p99Ms: m.p99 });
          },
          log: (t) => log(redact(t)),
        },
        scenario.load,
      );
      notes.push(...loadNotes(loadOutcome));
    }
    if (keyStates.all().every((s) => s.suspectedBan)) {
      aborted = { reason: 'every key is suspected banned', exitCode: EXIT.aborted };
    }
  } catch (e) {
    if (e instanceof Interrupted) {
      aborted = { reason: 'interrupted', exitCode: EXIT.interrupted };
    } else if (!isPetloadError(e) || (e.code !== 'E_TARGET_UNREACHABLE' && e.code !== 'E_KEY_BANNED')) {
      await client?.close();
      await target.close();
      throw e;
    } else {
      aborted = { reason: e.message, exitCode: e.exitCode };
      log(`aborted: ${e.message}`);
    }
  } finally {
    observer.finish();
  }
  if (!aborted && o.signal?.aborted) aborted = { reason: 'interrupted', exitCode: EXIT.interrupted };
  await drain(client, DRAIN_MS);
  await client?.close();
  await target.close();

  const snapshot = metrics.snapshot();
  const thresholds = thresholdSpecs.map((t) => {
    const checkId = thresholdCheckId(t.parsed);
    const r = evaluateThreshold(t.parsed, snapshot);
    const severity = t.severity;
    ledger.judge(checkId as `threshold.${string}`, null, r.ok, () => `${t.expression}: observed ${r.observed ?? 'no data'}${r.unit}`);
    return { expression: t.expression, checkId, severity, observed: r.observed, unit: r.unit, ok: r.ok };
  });
  const report = buildReport({
    scenario: { name: scenario.name, description: scenario.description, ...(o.scenarioFile ? { file: o.scenarioFile } : {}) },
    target: {
      url: target.url,
      embedded: target.embedded,
      timeScale: clock.scale,
      faults: [...target.faults],
      ...(target.variant ? { variant: target.variant } : {}),
    },
    plans,
    keys,
    startedAt,
    endedAt: new Date(),
    outcomes: ledger.all(),
    thresholds,
    thresholdSeverity: new Map(thresholds.map((t) => [t.checkId, t.severity])),
    metrics: snapshot,
    notes,
    ...(aborted ? { aborted } : {}),
  });
  const files = await writeReports(report, o.reportDir, { redact });
  return { report, exitCode: report.exitCode, files };
}
