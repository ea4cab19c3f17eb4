/**
 * Test-only: a realistic report made by the real pipeline (Ledger, metrics recorder, thresholds, buildReport)
 * from synthetic exchanges, deterministic for a seed. Two keys (free and pro); the free key runs out of quota
 * and gets 429s with Retry-After; a critical check fails with evidence, a minor one fails (a warning), one is
 * skipped with a reason, one records info facts; one threshold passes and one fails.
 */
import type { OperationId } from '../api/operations.js';
import { CHECK_IDS } from '../checks/catalogue.js';
import { Ledger } from '../checks/ledger.js';
import { parseThreshold, thresholdCheckId } from '../checks/thresholds.js';
import { evaluateThreshold } from '../checks/threshold-eval.js';
import { parseKeys } from '../config/keys-file.js';
import type { ApiKey } from '../core/api-key.js';
import { buildReport } from '../engine/build-report.js';
import type { Clock } from '../core/clock.js';
import type { Report } from '../report/schema.js';
import type { Exchange, HeaderMap } from '../http/exchange.js';
import { createMetrics, type MetricsSnapshot } from '../metrics/recorder.js';
import { createPrng } from '../reference-server/prng.js';
import { MINUTE_MS } from '../api/plans.js';

export const SAMPLE_KEYS: readonly ApiKey[] = parseKeys(
  {
    keys: [
      { key: 'sk_free_sample_0123456789abcd', plan: 'free' },
      { key: 'sk_pro_sample_9876543210wxyz', plan: 'pro' },
    ],
  },
  'sample keys',
);

export interface SampleOptions {
  seed?: number;
  /** Exchanges over one minute of the run clock, alternating between the two keys. */
  requests?: number;
  scenario?: string;
  startedAt?: string;
  /** A text (e.g. a key) planted in evidence, headers, body, reasons, info and notes, for redaction tests. */
  leak?: string;
  /** The two keys (a free one, then a pro one); default SAMPLE_KEYS. */
  keys?: readonly [ApiKey, ApiKey];
}

export interface SampleRun {
  report: Report;
  /** The latencies recorded per operation, in microseconds, as the histograms received them. */
  latencies: Record<string, number[]>;
}

/** What every exchange of the sample draws on: the seeded generator, and each key's requests so far. */
interface SampleState {
  readonly random: () => number;
  readonly n: number;
  readonly epoch: number;
  readonly leak: string;
  readonly keys: readonly ApiKey[];
  readonly used: Map<ApiKey, number>;
}

interface SampleExchange {
  readonly key: ApiKey;
  readonly operation: OperationId;
  readonly ex: Exchange;
  /** Its latency in whole microseconds. */
  readonly micros: number;
  readonly refused: boolean;
}

function sampleHeaders(s: SampleState, key: ApiKey, count: number, t: number, refused: boolean, i: number): HeaderMap {
  const limit = key.limits.perMinute;
  const resetS = Math.floor((s.epoch + MINUTE_MS) / 1000);
  const headers: HeaderMap = {
    'content-type': 'application/json',
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(Math.max(0, limit - count)),
    // The free key's server sends Reset in milliseconds (fault reset-in-ms): the failing check below.
    'x-ratelimit-reset': String(key.plan === 'free' ? resetS * 1000 : resetS),
  };
  if (refused) headers['retry-after'] = String(Math.max(1, Math.ceil((MINUTE_MS - t) / 1000)));
  if (s.leak && i === 0) headers['www-authenticate'] = `Bearer realm="${s.leak}"`;
  return headers;
}

/** The i-th exchange: the keys alternate, the operations are a seeded mix, a key past its minute's limit gets 429. */
function sampleExchange(s: SampleState, i: number): SampleExchange {
  const key = s.keys[i % 2]!;
  const t = Math.floor((i * MINUTE_MS) / s.n);
  const r = s.random();
  const operation: OperationId = r < 0.6 ? 'listPets' : r < 0.85 ? 'createPet' : 'getPet';
  const count = (s.used.get(key) ?? 0) + 1;
  s.used.set(key, count);
  const refused = count > key.limits.perMinute;
  const status = refused
    ? 429
    : operation === 'createPet'
      ? 201
      : operation === 'getPet' && s.random() < 0.3
        ? 404
        : 200;
  // Whole microseconds, so that the test can rebuild the same histogram from these numbers.
  const micros = refused
    ? 300 + Math.floor(s.random() * 700)
    : Math.floor(2000 * Math.exp(s.random() * 2.5) + s.random() * 1000);
  const latencyMs = micros / 1000;
  const headers = sampleHeaders(s, key, count, t, refused, i);
  const body =
    status === 429
      ? '{"code":"rate_limited","message":"Too many requests","status":429}'
      : '[{"id":1,"name":"Rex","categoryId":2}]';
  const ex: Exchange = {
    seq: i,
    operation,
    method: operation === 'createPet' ? 'POST' : 'GET',
    path: operation === 'getPet' ? `/pets/${1000 + i}` : operation === 'listPets' ? '/pets?limit=20' : '/pets',
    auth: 'valid',
    keyLabel: key.label,
    plan: key.plan,
    requestBody: operation === 'createPet' ? '{"name":"Rex","categoryId":2}' : null,
    status,
    headers,
    body: { kind: 'json', value: null, excerpt: s.leak && i === 0 ? `${body} ${s.leak}` : body },
    error: null,
    timing: { intended: t, sent: t + 0.1, headers: t + latencyMs * 0.8, done: t + latencyMs },
    localTime: s.epoch + t + latencyMs,
    overlapped: false,
    tag: 'constant-rate',
  };
  return { key, operation, ex, micros, refused };
}

/** The checks each exchange passes, and the failing ratelimit.reset-is-timestamp of the free key. */
function judgeSample(ledger: Ledger, { key, operation, ex, refused }: SampleExchange, leak: string, i: number): void {
  ledger.pass('contract.transport', key.plan);
  ledger.pass('ratelimit.headers-present', key.plan);
  if (operation === 'listPets' && ex.status === 200) ledger.pass('list.schema', key.plan);
  if (refused) ledger.pass('retry-after.present', key.plan);
  if (key.plan === 'free') {
    const message = `X-RateLimit-Reset ${ex.headers['x-ratelimit-reset']} looks like Unix milliseconds, not seconds${leak && i === 0 ? ` (${leak})` : ''}`;
    ledger.fail('ratelimit.reset-is-timestamp', key.plan, message, ex);
  } else {
    ledger.pass('ratelimit.reset-is-timestamp', key.plan);
  }
}

/** The run's other outcomes: a failure without evidence, a skip with a reason, info facts. */
function recordOtherOutcomes(ledger: Ledger, leak: string): void {
  ledger.fail('auth.challenge', null, '401 without a WWW-Authenticate header');
  ledger.skip(
    'ratelimit.key-isolation',
    'free',
    `needs two keys of the free plan; the keys file has one${leak ? ` ${leak}` : ''}`,
  );
  ledger.info('ratelimit.what-counts', 'pro', 'counted', ['200', '201']);
  ledger.info('ratelimit.what-counts', 'pro', 'notCounted', ['400', '404']);
  if (leak) ledger.info('ratelimit.what-counts', 'pro', leak, leak);
  ledger.pass('ratelimit.what-counts', 'pro');
}

/** One threshold that passes and one that fails, judged on the metrics as a run judges them. */
function sampleThresholds(ledger: Ledger, snapshot: MetricsSnapshot) {
  return ['p(95) < 250ms', 'rate(429) < 1%'].map((expression) => {
    const parsed = parseThreshold(expression);
    const checkId = thresholdCheckId(parsed);
    const r = evaluateThreshold(parsed, snapshot);
    ledger.judge(checkId, null, r.ok, () => `${parsed.expression}: observed ${r.observed ?? 'no data'}${r.unit}`);
    return {
      expression: parsed.expression,
      checkId,
      severity: 'major' as const,
      observed: r.observed,
      unit: r.unit,
      ok: r.ok,
    };
  });
}

export function sampleRun(opts: SampleOptions = {}): SampleRun {
  const scenario = opts.scenario ?? 'compliance';
  const startedAt = new Date(opts.startedAt ?? '2030-01-01T00:00:00.000Z');
  const epoch = startedAt.getTime();
  const leak = opts.leak ?? '';
  const keys = opts.keys ?? SAMPLE_KEYS;
  const state: SampleState = {
    random: createPrng(opts.seed ?? 1),
    n: opts.requests ?? 240,
    epoch,
    leak,
    keys,
    used: new Map(),
  };
  let nowMono = 0;
  const clock: Clock = { scale: 1, now: () => epoch + nowMono, monotonic: () => nowMono, sleep: async () => undefined };
  const metrics = createMetrics({ clock, startMono: 0 });
  const ledger = new Ledger();
  const latencies: Record<string, number[]> = {};

  for (let i = 0; i < state.n; i++) {
    const sample = sampleExchange(state, i);
    (latencies[sample.operation] ??= []).push(sample.micros);
    nowMono = sample.ex.timing.done;
    metrics.record(sample.ex);
    judgeSample(ledger, sample, leak, i);
  }
  recordOtherOutcomes(ledger, leak);

  const snapshot = metrics.snapshot();
  const thresholds = sampleThresholds(ledger, snapshot);
  const report = buildReport({
    scenario: { name: scenario, description: 'Sample run for the report tests' },
    target: {
      url: 'http://127.0.0.1:45678/v1',
      embedded: true,
      timeScale: 60,
      faults: ['reset-in-ms'],
      variant: { windowReport: 'tightest', countErrors: 'no' },
    },
    plans: ['free', 'pro'],
    keys,
    startedAt,
    endedAt: new Date(epoch + MINUTE_MS),
    outcomes: ledger.all(),
    thresholds,
    thresholdSeverity: new Map(thresholds.map((t) => [t.checkId, t.severity])),
    metrics: snapshot,
    notes: ['limit=101 is clamped to 100', ...(leak ? [`note mentioning ${leak}`] : [])],
  });
  return { report, latencies };
}

/** The counts line of the sample report: every catalogue check and the two thresholds, 6 passed, 2 failed, 1 warning. */
export const SAMPLE_COUNTS = (() => {
  const checks = CHECK_IDS.length + 2;
  return {
    checks,
    passed: 6,
    failed: 2,
    warnings: 1,
    skipped: checks - 9,
    line: `${checks} checks: 6 passed, 2 failed, 1 warning, ${checks - 9} skipped`,
  };
})();

export function sampleReport(opts: SampleOptions = {}): Report {
  return sampleRun(opts).report;
}

/**
 * The sample report with ratelimit.quota-restored on free skipped for `reason`, its probe cut short with no owner
 * failed (`cutShort: []`): a check that fails the run, shown in a section of its own. The check, to change further.
 */
export function cutShortReport(reason: string): { report: Report; check: Report['checks'][number] } {
  const report: Report = structuredClone(sampleReport());
  const check = report.checks.find((x) => x.id === 'ratelimit.quota-restored')!;
  check.status = 'skip';
  const counts = { passed: 0, failed: 0, skipped: 1 };
  check.byPlan = [{ plan: 'free', status: 'skip', counts, evidence: [], reasons: [reason], info: {}, cutShort: [] }];
  return { report, check };
}
