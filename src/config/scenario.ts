/**
 * The scenario format (YAML; documented in docs/scenarios.md, "Scenario format"). Strict objects: an unknown key
 * is an error, never ignored. Durations and rates are strings parsed by the fields of src/core/fields.ts, so
 * that the rest of the code works on milliseconds and `Rate` values. The load section and each phase's schema
 * belong to the executors (src/executors/load-schema.ts). Loading, locating issues and freezing: load-scenario.ts.
 */
import * as z from 'zod';
import { PLAN_NAMES } from '../api/plans.js';
import { SEVERITIES } from '../checks/catalogue.js';
import { parseThreshold } from '../checks/thresholds.js';
import { Count } from '../core/fields.js';
import type { DeepReadonly } from '../core/readonly.js';
import { LoadSchema } from '../executors/load-schema.js';
import { PROBE_REGISTRY } from '../probes/index.js';
import { DEFAULT_PROBES, PROBE_NAMES } from '../probes/names.js';
import { HeadersSchema } from './headers.js';
import { PlanFiguresSchema } from './plan-figures.js';

export type { BackoffSettings, LoadSection, OperationMix, Phase } from '../executors/load-schema.js';

/** A list whose items must differ: a repeated plan or probe is a mistake, not a request to run it twice. */
function distinct<T extends z.ZodType<string>>(item: T, what: string) {
  return z.array(item).superRefine((items, ctx) => {
    items.forEach((v, i) => {
      if (items.indexOf(v) !== i)
        ctx.addIssue({ code: 'custom', path: [i], message: `expected each ${what} once, found "${v}" again` });
    });
  });
}

const ThresholdEntry = z
  .union([z.string(), z.strictObject({ expression: z.string(), severity: z.enum(SEVERITIES).default('major') })], {
    error: 'expected a threshold expression such as "p(95) < 250ms", or {expression, severity}',
  })
  .transform((entry, ctx) => {
    const { expression, severity } =
      typeof entry === 'string' ? { expression: entry, severity: 'major' as const } : entry;
    try {
      return { expression, severity, parsed: parseThreshold(expression) };
    } catch (e) {
      // parseThreshold's message names the expression, the column, what was expected and what was found.
      ctx.addIssue({
        code: 'custom',
        path: typeof entry === 'string' ? [] : ['expression'],
        message: (e as Error).message,
      });
      return z.NEVER;
    }
  });

const Probes = z
  .union([z.literal('all'), distinct(z.enum(PROBE_NAMES), 'probe')], {
    error: `expected all or a list of probe names (${PROBE_NAMES.join(', ')})`,
  })
  .transform((p) => (p === 'all' ? [...DEFAULT_PROBES] : p))
  .default([]);

/** The scenario's flag that promises a key marked as a probe's needs ask (`window: 'sacrificial' | 'audit'`). */
const MARKED_KEY_FLAG = { sacrificial: 'requiresSacrificialKey', audit: 'requiresAuditKey' } as const;

export const ScenarioSchema = z
  .strictObject({
    name: z
      .string({ error: 'expected a name such as at-limit' })
      .regex(
        /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
        'expected a name of lower-case letters, digits and dashes, such as at-limit',
      ),
    description: z
      .string({ error: 'expected a description (one line of text)' })
      .min(1, 'expected a non-empty description'),
    /** The plans to judge; absent: every plan that has a key. Each needs a key, unless `partial` (docs/scenarios.md). */
    plans: distinct(z.enum(PLAN_NAMES), 'plan').min(1).optional(),
    /** A partial run: a plan of `plans` (or --plan) without a key is listed as not judged instead of refusing the run. */
    partial: z.boolean().default(false),
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
    load: LoadSchema.optional(),
    thresholds: z.array(ThresholdEntry).default([]),
    /** Refuse to run without a key marked sacrificial. */
    requiresSacrificialKey: z.boolean().default(false),
    /** Refuse to run without a key marked for the audit: the plan audit spends a key's whole day. */
    requiresAuditKey: z.boolean().default(false),
    /** Extra headers of every request (./headers.ts): a value, or { secretEnv: VAR } for a secret. */
    headers: HeadersSchema.optional(),
  })
  .superRefine((s, ctx) => {
    if (s.probes.length === 0 && s.load === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'expected probes, load or both, found neither (such a scenario would do nothing)',
      });
    }
    // A probe that needs a marked key says so in its needs: the scenario must say it will give one.
    s.probes.forEach((name, i) => {
      const need = PROBE_REGISTRY[name].needs;
      if (need.window !== 'sacrificial' && need.window !== 'audit') return;
      const flag = MARKED_KEY_FLAG[need.window];
      if (s[flag] || s.probes.indexOf(name) !== i) return;
      ctx.addIssue({
        code: 'custom',
        path: ['probes', i],
        message: `expected ${flag}: true with the ${name} probe (${need.because}), found the ${name} probe without it`,
      });
    });
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

export type Scenario = DeepReadonly<z.output<typeof ScenarioSchema>>;
export type ScenarioThreshold = Scenario['thresholds'][number];
