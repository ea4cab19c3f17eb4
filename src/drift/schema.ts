/**
 * compare.json, what `petload compare` finds between two report.json files (schemaVersion 1), and the options
 * that steer it. Documented in docs/compare.md. Like report.json, it never holds an API key: keys appear in
 * reports only as labels, and nothing here reads more than a report holds.
 */
import * as z from 'zod';
import { PLAN_NAMES } from '../api/plans.js';
import { PERCENTILE_LADDER } from '../outputs/html-charts.js';
import { CheckStatusSchema } from '../report/schema.js';
import { SEVERITIES } from '../report/severity.js';

export const COMPARE_SCHEMA_VERSION = 1;

/** The latency figures compared per operation, as named in report.json's latency summaries. */
export const PERCENTILES = ['p50', 'p90', 'p99', 'max'] as const;
export type PercentileName = (typeof PERCENTILES)[number];

/** The percentiles of the charts' latency spectrum: report.html's ladder (100 is the maximum). */
export const SPECTRUM_PERCENTILES = PERCENTILE_LADDER;

/** A rise that counts as large: both relative (0.2 = +20 %) and absolute (milliseconds). */
export const ThresholdSchema = z.strictObject({
  relative: z.number().min(0),
  absoluteMs: z.number().min(0),
});
export type Threshold = z.infer<typeof ThresholdSchema>;

/** Thresholds per percentile; null turns a percentile's judgement off. */
const ThresholdSetSchema = z.strictObject({
  p50: ThresholdSchema.nullable().optional(),
  p90: ThresholdSchema.nullable().optional(),
  p99: ThresholdSchema.nullable().optional(),
  max: ThresholdSchema.nullable().optional(),
});
export type ThresholdSet = z.infer<typeof ThresholdSetSchema>;

export const DEFAULT_THRESHOLDS: Readonly<Record<PercentileName, Threshold | null>> = {
  p50: null,
  p90: null,
  p99: { relative: 0.2, absoluteMs: 5 },
  max: null,
};

/** What the caller may set; every field has a default (docs/compare.md). */
export const CompareOptionsSchema = z.strictObject({
  /** Compare reports of different scenarios or targets (else a usage error naming both). */
  allowDifferent: z.boolean().default(false),
  /** Significance level of the exceedance test of each judged percentile. */
  alpha: z.number().gt(0).lt(1).default(0.01),
  /**
   * Breadth a latency regression needs besides its p-value: the probability that a current request is slower
   * than a baseline one by more than the smallest absolute threshold of the operation (5 ms by default). The
   * requests of one run are not independent samples (a stall or a busy machine slows a run of them at once), so a
   * p-value alone calls two clean runs different; this keeps a regression to a shift of most of the requests.
   */
  minSuperiority: z.number().min(0).max(1).default(0.9),
  /** Fewer requests than this on either side: the operation's latency is shown, not judged. */
  minSamples: z.number().int().min(2).default(10),
  /** Which histogram: latency from the intended send time (`all`), or service time from the actual send. */
  histogram: z.enum(['all', 'serviceTime']).default('all'),
  /** Thresholds per percentile for every operation (over DEFAULT_THRESHOLDS). */
  thresholds: ThresholdSetSchema.default({}),
  /** Thresholds per operation and percentile, over `thresholds`. */
  operations: z.record(z.string(), ThresholdSetSchema).default({}),
});
export type CompareOptionsInput = z.input<typeof CompareOptionsSchema>;
export type CompareOptions = z.output<typeof CompareOptionsSchema>;

const Plan = z.enum(PLAN_NAMES);
/** A check's status for one plan, or `absent` when the report has no such check or plan. */
export const SideStatusSchema = z.union([CheckStatusSchema, z.literal('absent')]);
export type SideStatus = z.infer<typeof SideStatusSchema>;

/** One run of the two. */
export const RunRefSchema = z.object({
  scenario: z.string(),
  /** The target's identity: its URL, or `embedded` for the embedded reference server (whose port changes). */
  target: z.string(),
  url: z.string(),
  faults: z.array(z.string()),
  timeScale: z.number(),
  startedAt: z.string(),
  endedAt: z.string(),
  durationMs: z.number(),
  verdict: z.enum(['pass', 'fail', 'aborted']),
  exitCode: z.number().int(),
  toolVersion: z.string(),
  plans: z.array(Plan),
  requests: z.number().int(),
  /** Requests per real second over the whole run. */
  rps: z.number(),
  dropped: z.number().int(),
  transportErrors: z.number().int(),
  /** The shards of a merged sharded run (index absent), or the one shard this report is (index given). */
  shard: z.object({ runId: z.string(), count: z.number().int(), index: z.number().int().nullable() }).nullable(),
  /** A focused run's focus as its flags (`--check ratelimit.enforced`); absent: the whole scenario. */
  focus: z.string().optional(),
});
export type RunRef = z.infer<typeof RunRefSchema>;

/** One check for one plan in both runs. */
export const CheckChangeSchema = z.object({
  id: z.string(),
  title: z.string(),
  severity: z.enum(SEVERITIES),
  plan: Plan.nullable(),
  baseline: SideStatusSchema,
  current: SideStatusSchema,
  /** What each run said: the first evidence's message of a failure, the reasons of a skip; null otherwise. */
  baselineDetail: z.string().nullable(),
  currentDetail: z.string().nullable(),
  failed: z.object({ baseline: z.number().int(), current: z.number().int() }),
});
export type CheckChange = z.infer<typeof CheckChangeSchema>;

export const ChecksDiffSchema = z.object({
  /** Failing now, not failing (or not there) before. */
  newlyFailing: z.array(CheckChangeSchema),
  /** Failing before, passing now. */
  fixed: z.array(CheckChangeSchema),
  /** Skipped (or not judged for the plan) now, judged before. */
  newlySkipped: z.array(CheckChangeSchema),
  /** Passing now, skipped (or not there) before. */
  newlyPassing: z.array(CheckChangeSchema),
  /** Failing in both. */
  stillFailing: z.array(CheckChangeSchema),
  /** Check-plan pairs with the same status in both: how many. */
  unchanged: z.object({ passing: z.number().int(), skipped: z.number().int() }),
  /**
   * The checks out of scope of either run (a focused run's `outOfScope`): not compared, neither gone nor skipped.
   * Absent in compare.json files of older versions, and when neither run was focused.
   */
  outOfScope: z.array(z.string()).optional(),
});
export type ChecksDiff = z.infer<typeof ChecksDiffSchema>;

/** What one run showed of a plan's rate-limit contract (read from report.json; docs/compare.md lists where). */
export const ContractSideSchema = z.object({
  /** Distinct X-RateLimit-Limit values the plan's keys were sent, ascending. */
  limitsSeen: z.array(z.number()),
  /** The per-minute and per-day figures the run judged the plan's keys against (null when not recorded). */
  figures: z
    .object({
      perMinute: z.number(),
      perDay: z.number(),
      /** The tolerance the plan declares, in percent (absent: none). */
      tolerancePercent: z.number().optional(),
    })
    .nullable(),
  /** Statuses of the checks that judge the contract (ratelimit.*, retry-after.*, ban.probe) for the plan. */
  checks: z.record(z.string(), SideStatusSchema),
  /** The limiter's shape (ratelimit.algorithm): its facts when judged, else why not. */
  algorithm: z.object({
    status: SideStatusSchema,
    shape: z.string().nullable(),
    limit: z.string().nullable(),
    evidence: z.string().nullable(),
    reason: z.string().nullable(),
  }),
  /** Which responses lower Remaining (ratelimit.what-counts): status -> fact. */
  whatCounts: z.record(z.string(), z.string()),
  /** The 429s the plan's keys got, and their Retry-After in seconds (dates made delays); null = unusable. */
  retryAfter: z.object({
    refusals: z.number().int(),
    unusable: z.number().int(),
    minSeconds: z.number().nullable(),
    medianSeconds: z.number().nullable(),
    maxSeconds: z.number().nullable(),
  }),
  /** The ban probe's measured facts (ban.probe info) when it measured a ban; null otherwise. */
  ban: z.record(z.string(), z.unknown()).nullable(),
  /** The plan's measured admission against the figure sold (report.json's `admission`), in words; [] when none. */
  admission: z.array(z.string()),
});
export type ContractSide = z.infer<typeof ContractSideSchema>;

/** One thing that differs: a field and its two values as text. */
export const DriftSchema = z.object({ field: z.string(), baseline: z.string(), current: z.string() });
export type Drift = z.infer<typeof DriftSchema>;

/**
 * A promise figure of a plan (Retry-After against Reset, accepted per minute or per day, the ban's threshold and
 * length) as both runs measured it, and whether it moved beyond its noise (then a regression).
 */
export const PromiseFigureSchema = z.object({
  figure: z.string(),
  baseline: z.string(),
  current: z.string(),
  /** The noise it was judged against, in words: what a move must exceed to be drift. */
  noise: z.string(),
  drift: z.boolean(),
});
export type PromiseFigure = z.infer<typeof PromiseFigureSchema>;

export const PlanContractSchema = z.object({
  plan: Plan,
  baseline: ContractSideSchema.nullable(),
  current: ContractSideSchema.nullable(),
  drifts: z.array(DriftSchema),
  /** The promise figures both runs measured (absent in older compare.json files). */
  promises: z.array(PromiseFigureSchema).optional(),
});
export type PlanContract = z.infer<typeof PlanContractSchema>;

export const OperationSideSchema = z.object({
  count: z.number().int(),
  p50: z.number(),
  p90: z.number(),
  p99: z.number(),
  max: z.number(),
  /** Requests per real second: the operation's share of the run's rate. */
  rps: z.number(),
  /** Share of requests answered 5xx or not at all (transport errors), 0..1. */
  errorRate: z.number(),
});
export type OperationSide = z.infer<typeof OperationSideSchema>;

export const PercentileChangeSchema = z.object({
  percentile: z.enum(PERCENTILES),
  baselineMs: z.number(),
  currentMs: z.number(),
  changeMs: z.number(),
  /** current / baseline - 1; null when the baseline is 0. */
  changeRatio: z.number().nullable(),
  /** The threshold it is judged by; null: shown, not judged. */
  threshold: ThresholdSchema.nullable(),
  /** Rose past both parts of the threshold. */
  large: z.boolean(),
  /**
   * The exceedance test (null when the operation is not judged): current requests above the baseline's value at
   * this percentile, how many one distribution would give on average, and the one-sided p-value of that many.
   */
  exceedance: z.object({ above: z.number().int(), expected: z.number(), p: z.number() }).nullable(),
  /** Large, significant (exceedance p < alpha) and broad (test.broad): a regression. */
  regression: z.boolean(),
});
export type PercentileChange = z.infer<typeof PercentileChangeSchema>;

export const ShiftTestSchema = z.object({
  /** Which histogram was tested (`all` or `serviceTime`). */
  histogram: z.string(),
  /** Mann-Whitney U of the current run against the baseline, with tie and continuity correction. */
  n1: z.number().int(),
  n2: z.number().int(),
  u: z.number(),
  z: z.number(),
  /** Two-sided p-value. */
  p: z.number(),
  /** Effect size: P(current request slower than a baseline one) + half P(equal), 0..1 (Mann-Whitney U / n1 n2). */
  superiority: z.number(),
  /** The breadth condition's margin: the smallest absolute part of the operation's judged thresholds (ms). */
  marginMs: z.number(),
  /** P(current request slower than a baseline one by more than marginMs) + half P(by exactly that). */
  superiorityBeyondMargin: z.number(),
  /**
   * The same breadth within the kind of answer (status class: 2xx, 4xx, 429, 5xx, error) that holds most of the
   * operation's requests on both sides, when it does (at least half of each side, minSamples each); null when none
   * does, or for the service-time histogram (kept for every request only). Absent in older compare.json files.
   */
  mainKind: z
    .object({ status: z.string(), n1: z.number().int(), n2: z.number().int(), superiorityBeyondMargin: z.number() })
    .nullable()
    .optional(),
  /**
   * The same breadth within each status code answered at least minSamples times on both sides (report.json's
   * per-code histograms; a report of an older version has them only for `429` and `error`). Absent in older
   * compare.json files.
   */
  statuses: z
    .array(
      z.object({ status: z.string(), n1: z.number().int(), n2: z.number().int(), superiorityBeyondMargin: z.number() }),
    )
    .optional(),
  /**
   * Most requests are slower by more than the margin, not a few: superiorityBeyondMargin, the main kind's or one
   * status code's is at least minSuperiority (a slowdown every answer of a code carries is broad even when the
   * refusals of another code, of its class or not, are not).
   */
  broad: z.boolean(),
  /** Kolmogorov-Smirnov distance between the two distributions, and its p-value (shown, not used to judge). */
  ksD: z.number(),
  ksP: z.number(),
  /** `slower` or `faster` when p < alpha; `same` otherwise. */
  direction: z.enum(['slower', 'faster', 'same']),
});
export type ShiftTest = z.infer<typeof ShiftTestSchema>;

/**
 * One status code of an operation answered at least minSamples times in both runs: its median before and after, the
 * Mann-Whitney p-value and A(+margin) within the code, and whether every answer of it became slower.
 */
export const StatusChangeSchema = z.object({
  status: z.string(),
  n1: z.number().int(),
  n2: z.number().int(),
  baselineP50: z.number(),
  currentP50: z.number(),
  changeMs: z.number(),
  changeRatio: z.number().nullable(),
  p: z.number(),
  superiorityBeyondMargin: z.number(),
  /** The median rose past the threshold, the code's answers are slower (p < alpha) and broadly so. */
  regression: z.boolean(),
});
export type StatusChange = z.infer<typeof StatusChangeSchema>;

export const OperationDriftSchema = z.object({
  operation: z.string(),
  baseline: OperationSideSchema.nullable(),
  current: OperationSideSchema.nullable(),
  /** Null when the operation is missing on a side, or has fewer requests than minSamples. */
  test: ShiftTestSchema.nullable(),
  percentiles: z.array(PercentileChangeSchema),
  /** Per status code, where both runs answered it often enough (absent in older compare.json files). */
  statuses: z.array(StatusChangeSchema).optional(),
  /**
   * The latency spectrum of each side for the charts (ms at SPECTRUM_PERCENTILES, as report.html draws it);
   * null for a side without the histogram.
   */
  spectrum: z.object({ baseline: z.array(z.number()).nullable(), current: z.array(z.number()).nullable() }),
  regression: z.boolean(),
  /** Why the operation was not judged, when it was not. */
  note: z.string().nullable(),
});
export type OperationDrift = z.infer<typeof OperationDriftSchema>;

export const RegressionSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('latency'),
    operation: z.string(),
    percentile: z.enum(PERCENTILES),
    baselineMs: z.number(),
    currentMs: z.number(),
    changeMs: z.number(),
    changeRatio: z.number().nullable(),
    /** The exceedance test's p-value for this percentile. */
    p: z.number(),
    superiority: z.number(),
    /** The breadth: P(current slower by more than the margin). */
    superiorityBeyondMargin: z.number(),
    message: z.string(),
  }),
  z.object({
    kind: z.literal('status'),
    operation: z.string(),
    status: z.string(),
    baselineMs: z.number(),
    currentMs: z.number(),
    changeMs: z.number(),
    /** Mann-Whitney's p-value within the status code. */
    p: z.number(),
    superiorityBeyondMargin: z.number(),
    message: z.string(),
  }),
  z.object({
    kind: z.literal('promise'),
    plan: Plan,
    figure: z.string(),
    baseline: z.string(),
    current: z.string(),
    message: z.string(),
  }),
  z.object({
    kind: z.literal('check'),
    id: z.string(),
    plan: Plan.nullable(),
    severity: z.enum(SEVERITIES),
    title: z.string(),
    message: z.string(),
  }),
]);
export type Regression = z.infer<typeof RegressionSchema>;

export const CompareSchema = z.object({
  schemaVersion: z.literal(COMPARE_SCHEMA_VERSION),
  baseline: RunRefSchema,
  current: RunRefSchema,
  /** What differs between the two runs' settings (scenario, target, faults, time scale, plans, shards, tool). */
  differences: z.array(z.string()),
  /** The options in force, every default filled in. */
  options: CompareOptionsSchema,
  /** Any latency regression, promise drift, or newly failing check of severity critical or major. */
  regressed: z.boolean(),
  regressions: z.array(RegressionSchema),
  checks: ChecksDiffSchema,
  contract: z.array(PlanContractSchema),
  operations: z.array(OperationDriftSchema),
  /**
   * Whose traffic each run's latency describes (`load`, `probes` in a run without load, `all` for a report of an
   * older version), and whether latency was compared: only between runs of the same class. Absent in older files.
   */
  latencyTraffic: z
    .object({
      baseline: z.enum(['load', 'probes', 'all']),
      current: z.enum(['load', 'probes', 'all']),
      compared: z.boolean(),
    })
    .optional(),
});
export type Comparison = z.infer<typeof CompareSchema>;
