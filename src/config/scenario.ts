/**
 * The scenario format (YAML; documented in README.md, "Scenario format"). Strict objects: an unknown key
 * is an error, never ignored. Durations and rates are strings parsed here, so that the rest of the code
 * works on milliseconds and `Rate` values. Loading, locating issues and freezing: load-scenario.ts.
 */
import { z } from 'zod';
import { OPERATION_IDS, type OperationId } from '../api/operations.js';
import { PLAN_NAMES, type PlanLimits } from '../api/plans.js';
import { SEVERITIES } from '../checks/catalogue.js';
import { parseThreshold } from '../checks/thresholds.js';
import type { ExecutorName } from '../executors/names.js';
import { DEFAULT_PROBES, PROBE_NAMES } from '../probes/names.js';
import { DURATION_EXPECTED, parseDuration } from '../core/duration.js';
import { PlanFiguresSchema } from './plan-figures.js';
import { RATE_EXPECTED, parseRate } from '../core/rate.js';

/** A string field parsed by `parse`, whose thrown message (`expected …, found …`) becomes the issue. */
function parsedString<T>(parse: (text: string) => T, expected: string) {
  return z.string({ error: expected }).transform((text, ctx): T => {
    try {
      return parse(text);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  });
}

/** A list whose items must differ: a repeated plan or probe is a mistake, not a request to run it twice. */
function distinct<T extends z.ZodType<string>>(item: T, what: string) {
  return z.array(item).superRefine((items, ctx) => {
    items.forEach((v, i) => {
      if (items.indexOf(v) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `expected each ${what} once, found "${v}" again` });
    });
  });
}

const Duration = parsedString(parseDuration, `expected ${DURATION_EXPECTED}`).refine(
  (ms) => ms > 0,
  'expected a duration above zero',
);
const RateField = parsedString(parseRate, `expected ${RATE_EXPECTED}`);
const Count = (max: number) => z.number().int().min(1).max(max);

/**
 * How many requests a burst sends: a number, or the plan's per-minute limit plus K (of which a shard of a
 * sharded run sends its share: src/shard/partition.ts).
 */
export type BurstSize =
  | { readonly kind: 'count'; readonly count: number }
  | { readonly kind: 'limit'; readonly plus: number; readonly shard?: { readonly index: number; readonly count: number } };

const BURST_EXPECTED = 'expected a number of requests, or "limit" or "limit+K" (the plan\'s per-minute limit plus K)';

function parseBurstSize(text: string): BurstSize {
  const m = /^limit\s*(?:\+\s*(\d+))?$/.exec(text.trim());
  if (m) return { kind: 'limit', plus: Number(m[1] ?? 0) };
  const near = /^\s*[a-z]+\s*\+\s*(\d+)\s*$/i.exec(text);
  throw new Error(`${BURST_EXPECTED}, found ${JSON.stringify(text)}${near ? ` (did you mean "limit+${near[1]}"?)` : ''}`);
}

/** The number of requests of a burst for a plan with the given limits. */
export function resolveBurstSize(size: BurstSize, limits: PlanLimits): number {
  if (size.kind === 'count') return size.count;
  const total = limits.perMinute + size.plus;
  const s = size.shard;
  return s === undefined ? total : Math.floor(total / s.count) + (s.index < total % s.count ? 1 : 0);
}

const BurstRequests = z.union(
  [Count(10_000).transform((count): BurstSize => ({ kind: 'count', count })), parsedString(parseBurstSize, BURST_EXPECTED)],
  { error: BURST_EXPECTED },
);

/** One schema per executor, keyed by its public name (src/executors/names.ts): none missing, none extra. */
const PHASES = {
  'constant-rate': z.strictObject({ executor: z.literal('constant-rate'), rate: RateField, duration: Duration }),
  'ramping-rate': z.strictObject({
    executor: z.literal('ramping-rate'),
    stages: z.array(z.strictObject({ rate: RateField, duration: Duration })).min(1),
  }),
  concurrency: z.strictObject({ executor: z.literal('concurrency'), workers: Count(10_000), duration: Duration }),
  burst: z.strictObject({ executor: z.literal('burst'), requests: BurstRequests }),
  saturate: z.strictObject({ executor: z.literal('saturate'), connections: Count(1000), duration: Duration }),
} as const satisfies Record<ExecutorName, z.ZodType>;

const Phase = z.discriminatedUnion('executor', [
  PHASES['constant-rate'],
  PHASES['ramping-rate'],
  PHASES.concurrency,
  PHASES.burst,
  PHASES.saturate,
]);

const Weight = z.number().min(0).default(0);
/** Operation weights. Given, an operation left out weighs 0; not given, the default mix. */
const Mix = z
  .strictObject({ listPets: Weight, createPet: Weight, getPet: Weight } satisfies Record<OperationId, z.ZodType>)
  .refine((m) => OPERATION_IDS.some((op) => m[op] > 0), 'expected at least one weight above zero')
  .default({ listPets: 80, createPet: 15, getPet: 5 });

const Backoff = z
  .strictObject({
    enabled: z.boolean().default(true),
    base: Duration.default(500),
    cap: Duration.default(30_000),
    maxTries: Count(100).default(6),
  })
  .refine((b) => b.base <= b.cap, { path: ['cap'], message: 'expected cap to be at least base' })
  .prefault({});

const Load = z.strictObject({
  mix: Mix,
  /** Share of getPet requests sent for ids never created. */
  unknownGetShare: z.number().min(0).max(1).default(0.1),
  /** Concurrent requests at most; open-model sends beyond it are dropped (and counted). */
  maxInFlight: Count(10_000).default(64),
  backoff: Backoff,
  phases: z.array(Phase).min(1),
  /** A hard cap on the requests of the whole load section. */
  maxRequests: Count(100_000_000).optional(),
});

const ThresholdEntry = z
  .union(
    [z.string(), z.strictObject({ expression: z.string(), severity: z.enum(SEVERITIES).default('major') })],
    { error: 'expected a threshold expression such as "p(95) < 250ms", or {expression, severity}' },
  )
  .transform((entry, ctx) => {
    const { expression, severity } = typeof entry === 'string' ? { expression: entry, severity: 'major' as const } : entry;
    try {
      return { expression, severity, parsed: parseThreshold(expression) };
    } catch (e) {
      // parseThreshold's message names the expression, the column, what was expected and what was found.
      ctx.addIssue({ code: 'custom', path: typeof entry === 'string' ? [] : ['expression'], message: (e as Error).message });
      return z.NEVER;
    }
  });

const Probes = z
  .union([z.literal('all'), distinct(z.enum(PROBE_NAMES), 'probe')], {
    error: `expected all or a list of probe names (${PROBE_NAMES.join(', ')})`,
  })
  .transform((p) => (p === 'all' ? [...DEFAULT_PROBES] : p))
  .default([]);

export const ScenarioSchema = z
  .strictObject({
    name: z.string({ error: 'expected a name such as at-limit' }).regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'expected a name of lower-case letters, digits and dashes, such as at-limit'),
    description: z.string({ error: 'expected a description (one line of text)' }).min(1, 'expected a non-empty description'),
    /** The plans to judge; absent: every plan that has a key. */
    plans: distinct(z.enum(PLAN_NAMES), 'plan').min(1).optional(),
    /** Default time scale of the embedded server's clock (the CLI's --time-scale wins). */
    timeScale: z.number().positive().max(100_000).optional(),
    /** Keys per plan the embedded server makes. */
    keysPerPlan: Count(50).default(1),
    /**
     * Figures of whole plans for this run (either or both of perMinute and perDay), over the published ones;
     * a plans file (--plans-file) wins over them, a key's own figures over both. See docs/plans.md.
     */
    planLimits: PlanFiguresSchema.optional(),
    probes: Probes,
    load: Load.optional(),
    thresholds: z.array(ThresholdEntry).default([]),
    /** Refuse to run without a key marked sacrificial. */
    requiresSacrificialKey: z.boolean().default(false),
  })
  .superRefine((s, ctx) => {
    if (s.probes.length === 0 && s.load === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'expected probes, load or both, found neither (such a scenario would do nothing)' });
    }
    if (s.probes.includes('ban') && !s.requiresSacrificialKey) {
      ctx.addIssue({
        code: 'custom',
        path: ['probes', s.probes.indexOf('ban')],
        message: 'expected requiresSacrificialKey: true with the ban probe (it may get its key banned), found the ban probe without it',
      });
    }
    // Two spellings of one rule would be one check id (threshold.<normalised expression>).
    s.thresholds.forEach((t, i) => {
      const first = s.thresholds.findIndex((u) => u.parsed.expression === t.parsed.expression);
      if (first !== i) {
        ctx.addIssue({
          code: 'custom',
          path: ['thresholds', i],
          message: `expected each threshold once, found ${JSON.stringify(t.expression)}, the same rule as thresholds[${first}]`,
        });
      }
    });
  });

/** Makes every nested object and list read-only in the type, as load-scenario.ts freezes them at run time. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer E)[]
    ? readonly DeepReadonly<E>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

export type Scenario = DeepReadonly<z.output<typeof ScenarioSchema>>;
export type LoadSection = NonNullable<Scenario['load']>;
export type Phase = LoadSection['phases'][number];
export type OperationMix = LoadSection['mix'];
export type BackoffSettings = LoadSection['backoff'];
export type ScenarioThreshold = Scenario['thresholds'][number];
