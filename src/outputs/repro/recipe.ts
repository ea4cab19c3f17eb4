/** What a recipe is: a failed check on one plan (read from report.json alone) to the steps that show its defect. */
import type { Failure } from './failure.js';
import type { Reproduction } from './steps.js';

export type Recipe = (f: Failure) => Reproduction;
