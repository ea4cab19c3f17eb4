/**
 * Zod fields shared by the scenario's schema (src/config/scenario.ts) and the phase schemas each executor owns
 * (src/executors/*.ts): durations and rates are strings parsed here, so that the rest of the code works on
 * milliseconds and `Rate` values.
 */
import * as z from 'zod';
import { DURATION_EXPECTED, parseDuration } from './duration.js';
import { RATE_EXPECTED, parseRate } from './rate.js';

/** A string field parsed by `parse`, whose thrown message (`expected …, found …`) becomes the issue. */
export function parsedString<T>(parse: (text: string) => T, expected: string) {
  return z.string({ error: expected }).transform((text, ctx): T => {
    try {
      return parse(text);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  });
}

/** A duration above zero, in run-clock milliseconds. */
export const DurationField = parsedString(parseDuration, `expected ${DURATION_EXPECTED}`).refine(
  (ms) => ms > 0,
  'expected a duration above zero',
);

export const RateField = parsedString(parseRate, `expected ${RATE_EXPECTED}`);

/** A whole number from 1 to `max`. */
export const Count = (max: number) => z.number().int().min(1).max(max);
