/**
 * report.json, the canonical record of a run (schemaVersion 1). Every other format is rendered from it,
 * `petload report` re-renders from it and `petload merge` combines several. Documented in docs/reports.md.
 * It never holds an API key: keys appear only as labels.
 */
import * as z from 'zod';
import { PLAN_NAMES } from '../api/plans.js';
import { SEVERITIES } from './severity.js';

export const REPORT_SCHEMA_VERSION = 1;

/** A shard's place in a sharded run (src/shard/spec.ts makes it from --shard). */
export const ShardInfoSchema = z.object({
  /** The run every shard belongs to; `petload merge` refuses shards of different runs. */
  runId: z.string(),
  /** How many shards the run has. */
  count: z.number().int().min(1),
  /** This shard's index, 0..count-1; absent on the merged report of the whole run. */
  index: z.number().int().min(0).optional(),
  /** When every shard began its phases (ISO time), if the run was given --start-at. */
  startAt: z.string().optional(),
});
export type ShardInfo = z.infer<typeof ShardInfoSchema>;

/** The probe schedule before and after (src/engine/schedule-report.ts fills it). */
const ScheduleSide = z.object({
  /** Real milliseconds. */
  durationMs: z.number(),
  /** The same, in minute windows of the target's clock. */
  windows: z.number(),
  /** Probe requests on keys, and without a valid key. */
  requests: z.number().int(),
  unkeyed: z.number().int(),
});

export const ScheduleReportSchema = z.object({
  planned: ScheduleSide,
  actual: ScheduleSide,
  keys: z.array(z.object({ label: z.string(), planned: z.number().int(), actual: z.number().int() })),
  fastestKeysPerPlan: z.number().int(),
  reasons: z.array(z.string()),
  /**
   * Steps that took part of their work again beyond the plan (a window that rolled over during a count, a burst split
   * across two windows): what they planned and sent, keys and none, and why (absent in reports of older versions).
   */
  retaken: z
    .array(
      z.object({
        probe: z.string(),
        plan: z.enum(PLAN_NAMES).nullable(),
        keys: z.array(z.string()),
        planned: z.number().int(),
        actual: z.number().int(),
        why: z.array(z.string()),
      }),
    )
    .optional(),
});
export type ScheduleReport = z.infer<typeof ScheduleReportSchema>;

export const EvidenceSchema = z.object({
  message: z.string(),
  request: z.string().optional(),
  key: z.string().optional(),
  status: z.number().int().nullable().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  tag: z.string().optional(),
});

export const Counts = z.object({ passed: z.number().int(), failed: z.number().int(), skipped: z.number().int() });
export const CheckStatusSchema = z.enum(['pass', 'fail', 'skip']);

const PlanOutcome = z.object({
  plan: z.enum(PLAN_NAMES).nullable(),
  status: CheckStatusSchema,
  counts: Counts,
  evidence: z.array(EvidenceSchema),
  /** Why the check was skipped (when status is skip), or why some responses were not judged. */
  reasons: z.array(z.string()),
  /** The check's measured facts: their shape is declared per check id (src/report/check-info.ts; read with `infoOf`). */
  info: z.record(z.string(), z.unknown()),
  /**
   * Present when a probe that judges the check on the plan ended early because of what the target did (refusals
   * after a promised wait, server errors, silence): the checks that own that behaviour and fail for it; empty when
   * no check could be named (docs/attribution.md). Absent in reports of older versions.
   */
  cutShort: z.array(z.string()).optional(),
});

export const CheckResultSchema = z.object({
  id: z.string(),
  title: z.string(),
  severity: z.enum(SEVERITIES),
  status: CheckStatusSchema,
  counts: Counts,
  /** One entry per plan the check was judged for (plan null: judged without a plan, e.g. missing key). */
  byPlan: z.array(PlanOutcome),
});

export const LatencySummary = z.object({
  count: z.number().int(),
  min: z.number(),
  mean: z.number(),
  p50: z.number(),
  p90: z.number(),
  p95: z.number(),
  p99: z.number(),
  p999: z.number(),
  max: z.number(),
});

export const OperationMetrics = z.object({
  /** Operation id (listPets, createPet, getPet, listOrders) or `other`. */
  operation: z.string(),
  count: z.number().int(),
  statusCounts: z.record(z.string(), z.number().int()),
  /** Milliseconds, measured from the intended send time (no coordinated omission). */
  latency: LatencySummary,
  /** Milliseconds, measured from the actual send time. */
  serviceTime: LatencySummary,
  /**
   * Encoded HDR histograms (compressed base64, microseconds): `all`, `serviceTime`, per status class (2xx, 4xx, 429,
   * 5xx, error) and per status code (`201`, `400`: the keys of statusCounts; absent in reports of older versions).
   */
  histograms: z.record(z.string(), z.string()),
});

/**
 * Whose traffic the run's per-operation figures describe (absent in reports of older versions, whose `operations`
 * mix every request: read them as the load's). `measured` is the class of `operations` and `timeline`: the load's
 * when any load phase sent, else the probes' (a compliance run: its latency is the probes'). `load` names the
 * phases that sent, `probes` the probes that did.
 */
export const TrafficSchema = z.object({
  measured: z.enum(['load', 'probes']),
  load: z.array(z.string()),
  probes: z.array(z.string()),
});
export type TrafficReport = z.infer<typeof TrafficSchema>;

export const TimelineBucket = z.object({
  /** Bucket start, ms since the run started, on the run clock (scaled like the target's clock). */
  t: z.number(),
  sent: z.number().int(),
  s2xx: z.number().int(),
  s4xx: z.number().int(),
  s429: z.number().int(),
  s5xx: z.number().int(),
  errors: z.number().int(),
  p99: z.number().nullable(),
});

export const KeyTimeline = z.object({
  key: z.string(),
  plan: z.enum(PLAN_NAMES),
  /** [t ms since start, Remaining, Limit], downsampled to a bounded size. */
  remaining: z.array(z.tuple([z.number(), z.number(), z.number()])),
  /**
   * [t ms since start, Retry-After seconds or null, the wait the same answer's Reset gives in seconds (Reset less
   * Date, on the server's clock) or null] for every 429 (bounded; the third is absent in reports of older versions).
   */
  refusals: z.array(z.tuple([z.number(), z.number().nullable(), z.number().nullable().optional()])),
});

export const ThresholdResult = z.object({
  expression: z.string(),
  checkId: z.string(),
  severity: z.enum(SEVERITIES),
  observed: z.number().nullable(),
  unit: z.string(),
  ok: z.boolean(),
  /** Why it was not judged (ok is then false and its check skipped): an aborted run that had no data for it. */
  notJudged: z.string().optional(),
});

/** The figures of the plan table, in its order (src/report/plan-table.ts derives it; docs/reports.md). */
export const PLAN_TABLE_FIGURES = [
  'per-minute limit',
  'per-day limit',
  'algorithm',
  'what counts',
  'Retry-After',
  'ban',
] as const;
export type PlanTableFigure = (typeof PLAN_TABLE_FIGURES)[number];

/** A cell of the plan table: held (its check passed), not held (failed), not measured (skipped or absent). */
export const PLAN_CELL_STATUSES = ['held', 'not held', 'not measured'] as const;
export type PlanCellStatus = (typeof PLAN_CELL_STATUSES)[number];

export const PlanRowSchema = z.object({
  figure: z.enum(PLAN_TABLE_FIGURES),
  /** What the plan sells (its figures, or what the interface states); null where it states nothing. */
  sold: z.string().nullable(),
  /** What the run measured: the figure, or what failed; null when nothing was. */
  measured: z.string().nullable(),
  status: z.enum(PLAN_CELL_STATUSES),
  /** The check that judged the cell (its outcome for the plan is in `checks`). */
  check: z.string(),
  /** More: the evidence of a cell not held, the reason of one not measured, how a figure was read. */
  detail: z.string().nullable(),
});
export type PlanRow = z.infer<typeof PlanRowSchema>;

/** The figures a plan's keys were judged against, with the keys that had them (usually one entry per plan). */
export const SoldFiguresSchema = z.object({
  perMinute: z.number(),
  perDay: z.number(),
  keys: z.array(z.string()),
});
export type SoldFigures = z.infer<typeof SoldFiguresSchema>;

/** Per plan: sold against measured, figure by figure. */
export const PlanTableSchema = z.array(
  z.object({ plan: z.enum(PLAN_NAMES), sold: z.array(SoldFiguresSchema), rows: z.array(PlanRowSchema) }),
);
export type PlanTable = z.infer<typeof PlanTableSchema>;

/** A plan's measured admission against the figure sold (src/report/admission.ts). */
export const AdmissionSchema = z.object({
  plan: z.enum(PLAN_NAMES),
  window: z.enum(['minute', 'day']),
  /** Requests accepted within the window from a fresh start. */
  accepted: z.number().int(),
  sold: z.number().int(),
  /** (accepted - sold) / sold, in percent, one decimal. */
  excessPercent: z.number(),
  /** The tolerance declared for the plan (0 when none). */
  tolerancePercent: z.number(),
  /** The count met no refusal within its bound: the limiter accepts at least this many. */
  atLeast: z.boolean(),
  within: z.boolean(),
});
export type Admission = z.infer<typeof AdmissionSchema>;

/** A key's judged figures (report.json's `keys[].limits`). */
export const KeyLimitsSchema = z.object({
  perMinute: z.number(),
  perDay: z.number(),
  /** The over-admission declared for an approximate limiter, in percent of the figure (absent: none declared). */
  tolerancePercent: z.number().optional(),
});
export type KeyLimits = z.infer<typeof KeyLimitsSchema>;

export const ReportSchema = z.object({
  schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
  tool: z.object({ name: z.literal('petload'), version: z.string() }),
  scenario: z.object({ name: z.string(), description: z.string().optional(), file: z.string().optional() }),
  target: z.object({
    url: z.string(),
    embedded: z.boolean(),
    timeScale: z.number(),
    faults: z.array(z.string()),
    variant: z.record(z.string(), z.string()).optional(),
    /** The protocol the run's connections spoke (absent: none was made, or a report of an older version). */
    protocol: z.enum(['HTTP/1.1', 'HTTP/2', 'HTTP/1.1 and HTTP/2']).optional(),
    /** The forward proxy the run went through, its credentials hidden (absent: direct). */
    proxy: z.string().optional(),
  }),
  plans: z.array(z.enum(PLAN_NAMES)),
  keys: z.array(
    z.object({
      label: z.string(),
      plan: z.enum(PLAN_NAMES),
      sacrificial: z.boolean(),
      /** The figures the run judged the key against (absent in reports of older versions: src/report/legacy.ts). */
      limits: KeyLimitsSchema.optional(),
    }),
  ),
  /**
   * Plans the run's scope named (`--plan`, the scenario's `plans:`) that it did not judge, each with why: a partial
   * run, asked for (docs/scenarios.md, "Scope"). Absent: every plan named was judged.
   */
  notJudged: z.array(z.object({ plan: z.enum(PLAN_NAMES), reason: z.string() })).optional(),
  /**
   * What the run was asked to judge (`petload run --check ID --probe NAME`, src/config/focus.ts): the checks and
   * probes named. Absent: the whole scenario.
   */
  focus: z.object({ checks: z.array(z.string()), probes: z.array(z.string()) }).optional(),
  /**
   * The checks not judged because they lie outside the focus (catalogue ids, and the scenario's thresholds by their
   * ids): not in `checks`, not counted in `summary`, not in the verdict. Absent: no focus.
   */
  outOfScope: z.array(z.string()).optional(),
  startedAt: z.string(),
  endedAt: z.string(),
  durationMs: z.number(),
  verdict: z.enum(['pass', 'fail', 'aborted']),
  exitCode: z.number().int(),
  abortReason: z.string().optional(),
  summary: z.object({
    checks: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    warnings: z.number().int(),
    skipped: z.number().int(),
  }),
  checks: z.array(CheckResultSchema),
  thresholds: z.array(ThresholdResult),
  totals: z.object({
    requests: z.number().int(),
    dropped: z.number().int(),
    transportErrors: z.number().int(),
    statusCounts: z.record(z.string(), z.number().int()),
    rps: z.number(),
  }),
  /** Per operation, the traffic `traffic.measured` names: the load's, or the probes' in a run without load. */
  operations: z.array(OperationMetrics),
  /** What the traffic classes are (absent in reports of older versions: `operations` then holds every request). */
  traffic: TrafficSchema.optional(),
  /** The probes' traffic per operation, when `operations` is the load's and probes sent (histograms included). */
  probeOperations: z.array(OperationMetrics).optional(),
  timeline: z.object({ bucketMs: z.number(), buckets: z.array(TimelineBucket) }),
  keyTimelines: z.array(KeyTimeline),
  /** Facts the run measured where the interface is silent (e.g. "limit=101 is clamped"). */
  notes: z.array(z.string()),
  /** A shard of a sharded run (its index), or the merged report of one (no index). Absent: an ordinary run. */
  shard: ShardInfoSchema.optional(),
  /** The probe schedule: planned against actual duration and requests (absent in reports of older versions). */
  schedule: ScheduleReportSchema.optional(),
  /**
   * The plan table: per plan, what was sold against what the run measured, each cell linked to the check that
   * judged it (absent in reports of older versions; `plans` above is the list of plans judged).
   */
  planTable: PlanTableSchema.optional(),
  /** Each plan's measured admission against the figure sold (absent in reports of older versions). */
  admission: z.array(AdmissionSchema).optional(),
});

export type Report = z.infer<typeof ReportSchema>;
export type CheckResult = z.infer<typeof CheckResultSchema>;
export type OperationMetricsT = z.infer<typeof OperationMetrics>;
