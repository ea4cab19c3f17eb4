/**
 * Plan figures as data: the schema of a plan's figures (shared by the plans file, a scenario's `planLimits`
 * and a keys file entry), and the plans file (`--plans-file`), JSON or YAML:
 *
 *   plans:
 *     pro: { perMinute: 600 }                     # either figure or both; the other keeps its value
 *     enterprise: { perMinute: 5000, perDay: 2000000 }
 *     business: { tolerance: 5% }                  # an approximate limiter: over-admission accepted, in %
 *
 * Errors name the file, the path in it (`plans.pro.perMinute`), what was expected and what was found.
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import * as z from 'zod';
import { PLAN_NAMES, type PlanFigures, type PlanName } from '../api/plans.js';
import { PetloadError } from '../core/errors.js';
import { formatIssues } from '../core/zod-issues.js';

const Figure = (what: string) =>
  z
    .number({ error: `expected a whole number of requests ${what} above 0` })
    .int(`expected a whole number of requests ${what} above 0`)
    .positive(`expected a whole number of requests ${what} above 0`);

export const PerMinute = Figure('per minute');
export const PerDay = Figure('per day');

const TOLERANCE_MESSAGE = 'expected a percentage from 0% to 100%, such as "5%"';

/** A declared tolerance, `"5%"`, as a fraction (0.05). */
export const Tolerance = z
  .string({ error: TOLERANCE_MESSAGE })
  .regex(/^\d{1,3}(\.\d{1,2})?\s?%$/, TOLERANCE_MESSAGE)
  .transform((t) => Number(t.replace('%', '').trim()) / 100)
  .refine((f) => f <= 1, TOLERANCE_MESSAGE);

/** One plan's figures: either or both, and the tolerance declared for an approximate limiter. */
export const Figures = z
  .strictObject({ perMinute: PerMinute.optional(), perDay: PerDay.optional(), tolerance: Tolerance.optional() })
  .superRefine((f, ctx) => {
    if (f.perMinute === undefined && f.perDay === undefined && f.tolerance === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'expected perMinute, perDay, tolerance or several of them, found none',
      });
    }
  });

/** Figures for some plans, by plan name. */
export const PlanFiguresSchema = z.strictObject(
  Object.fromEntries(PLAN_NAMES.map((p) => [p, Figures.optional()])) as Record<PlanName, z.ZodOptional<typeof Figures>>,
);

export const PlansFile = z.strictObject({ plans: PlanFiguresSchema });

/** Plans files are small; a bigger file is a mistake. */
const MAX_BYTES = 100_000;

/** Parse the text of a plans file (JSON or YAML). `source` names it in messages. */
export function parsePlansText(text: string, source: string): PlanFigures {
  const doc = parseDocument(text.startsWith('\uFEFF') ? text.slice(1) : text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new PetloadError(
      'E_PLANS_FILE',
      `${source}: not valid JSON or YAML: ${doc.errors[0]!.message.split('\n')[0]}`,
    );
  }
  let input: unknown;
  try {
    input = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new PetloadError('E_PLANS_FILE', `${source}: not valid YAML: ${(e as Error).message}`);
  }
  if (input === null || input === undefined) {
    throw new PetloadError(
      'E_PLANS_FILE',
      `${source}: invalid plans file\n  (top level): expected a mapping with plans, found an empty document`,
    );
  }
  const res = PlansFile.safeParse(input);
  if (!res.success) {
    const lines = formatIssues(res.error, input, () => false, PlansFile);
    throw new PetloadError('E_PLANS_FILE', `${source}: invalid plans file\n  ${lines.join('\n  ')}`);
  }
  return res.data.plans;
}

export function loadPlansFile(path: string): PlanFigures {
  let text: string;
  try {
    if (readFileSync(path).byteLength > MAX_BYTES) {
      throw new PetloadError(
        'E_PLANS_FILE',
        `${path}: expected a plans file of at most ${MAX_BYTES} bytes, found a bigger file`,
      );
    }
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof PetloadError) throw e;
    throw new PetloadError(
      'E_PLANS_FILE',
      `${path}: cannot read plans file (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  return parsePlansText(text, path);
}
