/**
 * The journal's format (docs/journal.md): `journal.ndjson` in the report directory, one JSON object per line,
 * append-only. A `head` line first (what identifies the run), then one `interval` line per flush that had
 * activity (about a second of real time each: counts, histogram deltas, check events, notes), and an `end` line
 * when the run finished without being killed. Every line is parsed with these schemas; a line of another version
 * or kind is refused.
 */
import * as z from 'zod';
import { PLAN_NAMES } from '../api/plans.js';
import { Counts, ReportSchema, ShardInfoSchema } from '../report/schema.js';
import { SEVERITIES } from '../report/severity.js';

export const JOURNAL_FILE = 'journal.ndjson';
/**
 * 2: past the report timeline's first buckets, an interval line may span several intervals (a long run's roll-up,
 * rollup.ts), and the seconds of the span under way are in the tail files (tail.ts). 1: a line per interval.
 */
export const JOURNAL_SCHEMA_VERSION = 2;
/** The versions this petload reads. */
export const READABLE_JOURNAL_VERSIONS = [1, 2] as const;

const Plan = z.enum(PLAN_NAMES);

/** What identifies the run: written once, first, before anything is sent. Labels only, never a key. */
export const JournalHeadSchema = z.object({
  type: z.literal('head'),
  schemaVersion: z.union([z.literal(1), z.literal(2)]),
  tool: z.object({ name: z.literal('petload'), version: z.string() }),
  scenario: ReportSchema.shape.scenario,
  target: ReportSchema.shape.target,
  plans: z.array(Plan),
  /** A partial run's plans not judged (absent: none, or a journal of an older version). */
  notJudged: ReportSchema.shape.notJudged,
  /** A focused run's focus and the checks out of its scope (absent: the whole scenario, or an older journal). */
  focus: ReportSchema.shape.focus,
  outOfScope: ReportSchema.shape.outOfScope,
  keys: ReportSchema.shape.keys,
  /** ISO time the run began sending (its report's startedAt). */
  startedAt: z.string(),
  /** The run's thresholds, judged again on what the journal holds when a report is recovered from it. */
  thresholds: z.array(z.object({ expression: z.string(), severity: z.enum(SEVERITIES) })),
  /** Real milliseconds between flushes. */
  intervalMs: z.number().positive(),
  shard: ShardInfoSchema.optional(),
});
export type JournalHead = z.infer<typeof JournalHeadSchema>;
/** What the run gives the journal; the writer adds the type, version and interval. */
export type JournalHeadInput = Omit<JournalHead, 'type' | 'schemaVersion' | 'intervalMs'>;

/** A check event as the run's stream carried it (already redacted). */
export const JournalCheckSchema = z.object({
  id: z.string(),
  plan: Plan.nullable(),
  status: z.enum(['pass', 'fail', 'skip']),
  counts: Counts,
  message: z.string().optional(),
});
export type JournalCheck = z.infer<typeof JournalCheckSchema>;

/** `[plan, operation, status, n]`: n exchanges of that plan and operation answered with that status (null: none). */
export const CountRowSchema = z.tuple([
  Plan.nullable(),
  z.string().nullable(),
  z.number().int().nullable(),
  z.number().int().positive(),
]);
export type CountRow = z.infer<typeof CountRowSchema>;

/**
 * What happened in one interval (or, in a long run, in a span of them, rolled up): deltas, never totals, so that
 * recovery sums them.
 */
export const JournalIntervalSchema = z.object({
  type: z.literal('interval'),
  /** Real ms since the journal began: the interval is [from, to). */
  from: z.number(),
  to: z.number(),
  counts: z.array(CountRowSchema),
  /**
   * Latency (from the intended send time, real µs), HDR histograms encoded as in report.json (compressed base64),
   * by operation (`other` when none) and status class (`2xx`, `4xx`, `429`, `5xx`, `error`, ...).
   */
  latency: z.record(z.string(), z.record(z.string(), z.string())),
  /** Service time (from the actual send) by operation, when the run's stream carries it. */
  serviceTime: z.record(z.string(), z.string()).optional(),
  checks: z.array(JournalCheckSchema),
  notes: z.array(z.string()),
});
export type JournalInterval = z.infer<typeof JournalIntervalSchema>;

/** The run ended without being killed: its report was written (verdict set), or it stopped on a tool error. */
export const JournalEndSchema = z.object({
  type: z.literal('end'),
  /** Real ms since the journal began. */
  at: z.number(),
  /** The report's verdict and exit code; null when the run wrote no report (a tool error). */
  verdict: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  reason: z.string().optional(),
});
export type JournalEnd = z.infer<typeof JournalEndSchema>;

export const JournalLineSchema = z.discriminatedUnion('type', [
  JournalHeadSchema,
  JournalIntervalSchema,
  JournalEndSchema,
]);
export type JournalLine = z.infer<typeof JournalLineSchema>;
