/**
 * Child process entry: `petload report --recover DIR` as the CLI runs it (recoverReport: read the journal, add it
 * up, write report.json, junit.xml, summary.md and report.html) for each folder in turn, in one fresh process, each
 * timed from the call to the files written (module loading aside, which the CLI start figure measures; the first
 * call also pays for compiling the recovery's code, a few hundred ms at most).
 */
import { join } from 'node:path';
import { recoverReport } from '../../src/engine/recover.js';
import { emitResult } from '../lib/child-protocol.js';

export interface RecoverJob {
  dirs: string[];
}

export interface RecoverResult {
  seconds: number;
  requests: number;
  intervals: number;
  coveredS: number;
}

const job = JSON.parse(process.argv[2] ?? '') as RecoverJob;
const results: RecoverResult[] = [];
for (const dir of job.dirs) {
  const t0 = performance.now();
  const r = await recoverReport(dir, { out: join(dir, 'recovered') });
  results.push({
    seconds: (performance.now() - t0) / 1000,
    requests: r.report.totals.requests,
    intervals: r.journal.intervals,
    coveredS: r.journal.coveredMs / 1000,
  });
}
emitResult(results);
