/**
 * Child process entry: `petload report --recover DIR` as the CLI runs it (recoverReport: read the journal, add it
 * up, write report.json, junit.xml, summary.md and report.html), in a fresh process, timed from the call to the
 * files written (module loading aside, which the CLI start figure measures).
 */
import { join } from 'node:path';
import { recoverReport } from '../../src/engine/recover.js';
import { emitResult } from '../lib/child-protocol.js';

export interface RecoverJob {
  dir: string;
}

export interface RecoverResult {
  seconds: number;
  requests: number;
  intervals: number;
  coveredS: number;
}

const job = JSON.parse(process.argv[2] ?? '') as RecoverJob;
const t0 = performance.now();
const r = await recoverReport(job.dir, { out: join(job.dir, 'recovered') });
const seconds = (performance.now() - t0) / 1000;
const result: RecoverResult = {
  seconds,
  requests: r.report.totals.requests,
  intervals: r.journal.intervals,
  coveredS: r.journal.coveredMs / 1000,
};
emitResult(result);
