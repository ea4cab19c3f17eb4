/**
 * The typed `info` of every check that records facts (report.json's `checks[].byPlan[].info`): one zod schema per
 * check id, declared here and re-exported by the catalogue (src/checks/catalogue.ts). Readers (the plan table,
 * admission, compare, trend, merge) read a check's facts through `infoOf`, never through the wording of a note.
 *
 * The schemas are built on first use (`petload report` starts without them). A fact a report holds in another shape
 * (a report of an older version, or one edited by hand) is left out of what `infoOf` returns, not an error; the
 * facts a run writes are held to the schemas exactly by `infoProblems` (src/report/check-info.test.ts and the
 * runs of src/engine/plan-figures.int.test.ts).
 */
import * as z from 'zod';
import type { CheckResult } from './schema.js';

type Outcome = CheckResult['byPlan'][number];

function build() {
  const n = z.number();
  const s = z.string();
  const strings = z.record(z.string(), s);
  return {
    'ratelimit.enforced': z
      .strictObject({
        /** Why the count was taken against another figure than the plan's (for people). */
        limit: s,
        /** The Limit the target announces, counted against instead of the plan's figure (absent: the plan's). */
        announcedLimit: n,
        /** What made a fleet over-admit (several counters answering each key). */
        cause: s,
        /** The requests accepted within a minute from a fresh start, against the figure sold (`admission`). */
        admission: z.strictObject({
          accepted: n,
          sold: n,
          spanSeconds: n.optional(),
          /** The declared tolerance, as a fraction (0.05 for 5%; absent: none). */
          tolerance: n.optional(),
          /** The count met no refusal: the limiter accepts at least this many. */
          atLeast: z.boolean().optional(),
        }),
      })
      .partial(),
    'ratelimit.no-over-admission': z
      .strictObject({ limit: s, announcedLimit: n, note: s, repeatedRemaining: s })
      .partial(),
    'ratelimit.day-enforced': z
      .strictObject({
        dayLimitSold: n,
        acceptedInDay: n,
        minuteRefusals: n,
        retryAfterS: n.nullable(),
        dayEnd: s.nullable(),
        tolerance: n,
      })
      .partial(),
    /** The limiter's shape and figures, as words and numbers in text (`limit`, `burst`, `refillPerSecond`...). */
    'ratelimit.algorithm': z
      .strictObject({ shape: s, limit: s, burst: s, refillPerSecond: s, spacing: s, counters: s, evidence: s })
      .partial(),
    /** Status code (or label) -> `counted`, `not counted`, `not measured: ...`, or what else is known of it. */
    'ratelimit.what-counts': z.record(z.string(), z.union([s, z.array(s)])),
    'ban.probe': z
      .strictObject({
        knocks: n,
        refusalsKnockedInside: n,
        knocksWithoutAnswer: n,
        knocksUntilChange: n,
        banThreshold: n,
        banStatus: n.nullable(),
        banCode: s.nullable(),
        banRetryAfterSeconds: n.nullable(),
        banRateLimitHeaders: z.boolean(),
        pollsFollowingBan: n,
        banEnded: z.boolean(),
        banDurationSeconds: n.nullable(),
        banDurationUncertaintySeconds: n.nullable(),
        banDurationClock: s,
        answerAfterBan: s,
        recovered: z.boolean(),
        recoveryStatus: n.nullable(),
      })
      .partial(),
    'create.returns-pet': z.strictObject({ statusWhenOmitted: s }).partial(),
    /** Query parameter tried -> what became of it. */
    'list.limit-out-of-range': strings,
    'list.invalid-status': strings,
    'deprecation.announced': z.strictObject({ headers: s }).partial(),
    /** Load phase -> what the backoff's record came to. */
    'backoff.no-ban': z.record(
      z.string(),
      z.looseObject({
        accepted: n,
        refused: n,
        heldBack: n,
        maxAcceptedInAMinuteWindow: z.union([n, s]),
        suspectedBans: z.array(s),
        throughput: s,
      }),
    ),
    /** Saturate phase -> its measurement. */
    'load.capacity': z.record(
      z.string(),
      z.looseObject({ plan: s, key: s, connections: n, requests: n, requestsPerSecond: n }),
    ),
  };
}

type Schemas = ReturnType<typeof build>;
/** The checks whose info is declared. */
export type InfoCheckId = keyof Schemas;
/** A check's info facts, as its schema declares them. */
export type CheckInfo<I extends InfoCheckId> = z.infer<Schemas[I]>;

/** The keys a check's info may have (any key for a check whose info is a record). */
export type InfoKey<I extends InfoCheckId> = keyof CheckInfo<I> & string;
/** The value a check's info key holds. */
export type InfoValue<I extends InfoCheckId, K extends InfoKey<I>> = Exclude<CheckInfo<I>[K], undefined>;

let built: Schemas | undefined;

/** Each declared check's info schema (built on first use). */
export function checkInfoSchemas(): Schemas {
  built ??= build();
  return built;
}

export function hasDeclaredInfo(id: string): id is InfoCheckId {
  return Object.hasOwn(checkInfoSchemas(), id);
}

/** What of `info` the schema accepts: all of it, else field by field (entry by entry of a record). */
function lenient(schema: z.ZodType, info: Record<string, unknown>): Record<string, unknown> {
  const whole = schema.safeParse(info);
  if (whole.success) return whole.data as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(info)) {
    const field =
      schema instanceof z.ZodObject
        ? (schema.shape as Record<string, z.ZodType | undefined>)[k]
        : schema instanceof z.ZodRecord
          ? (schema.valueType as z.ZodType)
          : undefined;
    const r = field?.safeParse(v);
    if (r?.success && r.data !== undefined) out[k] = r.data;
  }
  return out;
}

/**
 * A check's typed info for one plan's outcome: the facts its schema declares, parsed (an absent outcome, or facts of
 * another shape, read as none).
 */
export function infoOf<I extends InfoCheckId>(id: I, outcome: Pick<Outcome, 'info'> | undefined): CheckInfo<I> {
  if (outcome === undefined) return {} as CheckInfo<I>;
  return lenient(checkInfoSchemas()[id], outcome.info) as CheckInfo<I>;
}

/**
 * Where a report's info facts stray from their checks' declared schemas (a check that records info without a
 * schema, or a fact of another shape): empty for every report a run of this version writes.
 */
export function infoProblems(checks: readonly Pick<CheckResult, 'id' | 'byPlan'>[]): string[] {
  const out: string[] = [];
  for (const c of checks) {
    for (const o of c.byPlan) {
      if (Object.keys(o.info).length === 0) continue;
      if (!hasDeclaredInfo(c.id)) {
        out.push(`${c.id} records info but declares no schema for it`);
        continue;
      }
      const r = checkInfoSchemas()[c.id].safeParse(o.info);
      if (!r.success)
        out.push(`${c.id} (${o.plan ?? 'no plan'}): ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)}`);
    }
  }
  return out;
}
