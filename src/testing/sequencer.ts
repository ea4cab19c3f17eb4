/**
 * The order in which vitest starts the test files: the ones that wait on real clocks, real servers and a browser
 * (`*.int.test.ts`, `*.browser.test.ts`, test/conformance/, bench/) before the unit tests, each group in vitest's
 * own order (the longest first once vitest has timed them; on a fresh clone, which has no timings, the largest
 * first). A fresh clone otherwise starts some of the minute-long conformance files last, and the suite waits for
 * them at its end: the unit tests, which take milliseconds, are better spent filling the gaps.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A file that waits: a real clock, a server, a browser or a bench run. */
const WAITS = /\.(int|browser)\.test\.ts$|[\\/]test[\\/]conformance[\\/]|[\\/]bench[\\/]/;

export const waits = (file: string): boolean => WAITS.test(file);

/** The files that wait, then the others, each group in the order given. */
export function waitingFirst<T>(files: readonly T[], path: (f: T) => string): T[] {
  return [...files.filter((f) => waits(path(f))), ...files.filter((f) => !waits(path(f)))];
}

export default class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return waitingFirst(await super.sort(files), (f) => f.moduleId);
  }
}
