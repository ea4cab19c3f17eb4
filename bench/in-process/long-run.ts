/**
 * Child process entry (run with --expose-gc): a long run simulated fast. The run's journal (startJournal, on a
 * manual clock) and its metrics (createMetrics) are fed `hours` of synthetic seconds of steady load, `perSecond`
 * exchanges each (a mix of operations, plans and statuses: listPets 200 mostly, getPet 200 and 404, createPet 201,
 * some 429s, a transport error now and then, latencies of a few to a few hundred ms), one flush per second, as fast
 * as the process goes. At each mark (e.g. 1 h and 24 h) it notes the memory after a full collection and the
 * journal's bytes (journal.ndjson and its tail files), and copies the journal files into a folder of their own: the
 * journal of a run killed at that mark, which the parent recovers in a fresh process (bench/in-process/recover.ts).
 * For the first mark it also notes the bytes the journal would have had with a line a second (format version 1).
 * Journal writes are not synced (datasync off): the figure is about size, memory and recovery, not the disk.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClock } from '../../src/core/clock.js';
import { createRunEvents } from '../../src/core/run-events.js';
import type { OperationId } from '../../src/api/operations.js';
import type { Exchange } from '../../src/http/exchange.js';
import { IntervalAggregate } from '../../src/journal/aggregate.js';
import { JOURNAL_FILE, type JournalHeadInput } from '../../src/journal/format.js';
import { TAIL_FILES } from '../../src/journal/tail.js';
import { startJournal } from '../../src/journal/writer.js';
import { createMetrics } from '../../src/metrics/recorder.js';
import { emitResult } from '../lib/child-protocol.js';
import { createExchangeStream } from './exchange-stream.js';

export interface LongRunJob {
  /** Marks, in hours of the run, ascending: the run lasts until the last one. */
  hours: number[];
  /** Exchanges per second of the run. */
  perSecond: number;
}

export interface LongRunMark {
  hours: number;
  seconds: number;
  exchanges: number;
  /** journal.ndjson, and journal.ndjson with its tail files, in bytes. */
  journalBytes: number;
  journalAndTailBytes: number;
  /** Interval lines in journal.ndjson. */
  journalLines: number;
  /** After a full collection: RSS, and the heap's used size with what lives outside it (the histograms' arrays). */
  rssMB: number;
  heapAndExternalMB: number;
  /** The folder holding the journal as a run killed at this mark left it (the parent recovers and removes it). */
  copy: string;
  /** Real seconds the simulation took to get here from the start. */
  simulatedInS: number;
}

export interface LongRunResult {
  /** The temporary folder of the run and its copies (the parent removes it). */
  root: string;
  marks: LongRunMark[];
  /** The bytes of a line a second (version 1) over the first mark, for comparison. */
  lineASecondBytes: { hours: number; bytes: number };
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const MB = 1024 * 1024;

const HEAD: JournalHeadInput = {
  tool: { name: 'petload', version: 'bench' },
  scenario: { name: 'long-run', description: 'a day of steady load, simulated' },
  target: { url: 'http://127.0.0.1:1/v1', embedded: false, timeScale: 1, faults: [] },
  plans: ['free', 'pro'],
  keys: [
    { label: 'free#1', plan: 'free', sacrificial: false },
    { label: 'pro#1', plan: 'pro', sacrificial: false },
  ],
  startedAt: '2030-01-15T12:00:00.000Z',
  thresholds: [{ expression: 'p(95) < 250ms', severity: 'major' }],
};

/** A deterministic generator: the same day every time. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

/** Operation and status of the n-th exchange: listPets 200 mostly, the rest of the mix now and then. */
function kind(r: number): { operation: OperationId; status: number | null; plan: 'free' | 'pro' } {
  if (r < 0.6) return { operation: 'listPets', status: 200, plan: r < 0.3 ? 'free' : 'pro' };
  if (r < 0.8) return { operation: 'getPet', status: r < 0.78 ? 200 : 404, plan: 'pro' };
  if (r < 0.9) return { operation: 'createPet', status: 201, plan: 'pro' };
  if (r < 0.999) return { operation: 'listPets', status: 429, plan: 'free' };
  return { operation: 'getPet', status: null, plan: 'free' };
}

function settled(): { rss: number; heap: number } {
  for (let i = 0; i < 3; i++) gc!();
  const m = process.memoryUsage();
  return { rss: m.rss / MB, heap: (m.heapUsed + m.external) / MB };
}

const size = (path: string) => (existsSync(path) ? statSync(path).size : 0);

/** The journal's files in `from` as they are now, into a folder of their own under `root`. */
function copyJournal(from: string, root: string, hours: number): string {
  const to = join(root, `killed-at-${hours}h`);
  mkdirSync(to);
  for (const name of readdirSync(from))
    if (name === JOURNAL_FILE || (TAIL_FILES as readonly string[]).includes(name))
      copyFileSync(join(from, name), join(to, name));
  return to;
}

/** Interval lines of a journal file (every line but the head). */
const linesOf = (path: string) => readFileSync(path, 'utf8').split('\n').length - 2;

const job = JSON.parse(process.argv[2] ?? '') as LongRunJob;
const dir = mkdtempSync(join(tmpdir(), 'petload-bench-long-run-'));
const runDir = join(dir, 'run');
let t = 0;
const events = createRunEvents();
const journal = startJournal(events, runDir, HEAD, { now: () => t, datasync: false });
const metrics = createMetrics({ clock: createClock(1), startMono: 0 });
const base = createExchangeStream().at(0);
const lineASecond = new IntervalAggregate();
let lineASecondBytes = 0;
const rnd = random(11);
const marks: LongRunMark[] = [];
const started = performance.now();
const lastSecond = Math.round(job.hours.at(-1)! * 3600);
const stepMs = 1000 / job.perSecond;
let exchanges = 0;
for (let s = 0; s < lastSecond; s++) {
  for (let n = 0; n < job.perSecond; n++) {
    const k = kind(rnd());
    const at = s * 1000 + n * stepMs;
    const latencyMs = k.status === null ? 10_000 : 2 + rnd() * rnd() * 300;
    const ex: Exchange = {
      ...base,
      seq: ++exchanges,
      operation: k.operation,
      plan: k.plan,
      keyLabel: `${k.plan}#1`,
      status: k.status,
      timing: { intended: at, sent: at, headers: at + latencyMs * 0.8, done: at + latencyMs },
    };
    metrics.record(ex);
    const e = { type: 'exchange', key: ex.keyLabel, plan: k.plan, operation: k.operation, status: k.status } as const;
    const event = { ...e, latencyMs, serviceMs: latencyMs, remaining: null, at };
    events.emit(event);
    if (marks.length === 0) lineASecond.exchange(event);
  }
  t = (s + 1) * 1000;
  journal.flush();
  if (marks.length === 0) lineASecondBytes += JSON.stringify(lineASecond.take(s * 1000, t)).length + 1;
  const hours = job.hours[marks.length]!;
  if (s + 1 === Math.round(hours * 3600)) {
    const m = settled();
    const journalBytes = size(join(runDir, JOURNAL_FILE));
    marks.push({
      hours,
      seconds: s + 1,
      exchanges,
      journalBytes,
      journalAndTailBytes: journalBytes + TAIL_FILES.reduce((n, f) => n + size(join(runDir, f)), 0),
      journalLines: linesOf(join(runDir, JOURNAL_FILE)),
      rssMB: m.rss,
      heapAndExternalMB: m.heap,
      copy: copyJournal(runDir, dir, hours),
      simulatedInS: (performance.now() - started) / 1000,
    });
  }
}
await journal.close();
const result: LongRunResult = { root: dir, marks, lineASecondBytes: { hours: job.hours[0]!, bytes: lineASecondBytes } };
emitResult(result);
