import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRunEvents, type RunEvents } from '../core/run-events.js';
import { IntervalAggregate } from './aggregate.js';
import { JOURNAL_FILE, type JournalHeadInput, type JournalInterval } from './format.js';
import { type JournalContents, readJournal } from './reader.js';
import { metricsOf, outcomesOf } from './replay.js';
import { spanWidth } from './rollup.js';
import { TAIL_FILES } from './tail.js';
import { startJournal } from './writer.js';

const HEAD: JournalHeadInput = {
  tool: { name: 'petload', version: '0.0.0-test' },
  scenario: { name: 'rollup-test', description: 'a long run, simulated' },
  target: { url: 'http://127.0.0.1:1/v1', embedded: true, timeScale: 1, faults: [] },
  plans: ['free', 'pro'],
  keys: [{ label: 'free#1 (…abcd)', plan: 'free', sacrificial: false }],
  startedAt: '2026-01-02T03:04:05.678Z',
  thresholds: [],
};
/** The journal's interval, long enough that its own timer never fires during a test: flushes are driven by hand. */
const INTERVAL_MS = 60_000;

/** A small deterministic generator (the same run every time). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

/**
 * A long run in `intervals` intervals, fed to a journal in `dir` and to a bare aggregate that keeps a line per
 * interval (the journal as version 1 wrote it): traffic in most intervals, some idle, check events and notes now
 * and then. `killAt`: stop there without closing (a killed run).
 */
function simulate(
  dir: string,
  intervals: number,
  o: { killAt?: number; at?: (i: number, c: JournalContents) => void } = {},
) {
  const events: RunEvents = createRunEvents();
  let t = 0;
  const journal = startJournal(events, dir, HEAD, { now: () => t, intervalMs: INTERVAL_MS, datasync: false });
  const reference = new IntervalAggregate();
  const lines: JournalInterval[] = [];
  const rnd = random(7);
  const emit: RunEvents['emit'] = (e) => {
    events.emit(e);
    if (e.type === 'exchange') reference.exchange(e);
    else if (e.type === 'check') reference.check(e);
    else if (e.type === 'note') reference.note(e.text);
  };
  const contents = (): JournalContents => ({
    path: 'reference',
    head: { ...HEAD, type: 'head', schemaVersion: 1, intervalMs: INTERVAL_MS },
    intervals: [...lines],
    end: null,
    torn: false,
    skipped: [],
  });
  for (let i = 0; i < (o.killAt ?? intervals); i++) {
    // Few histograms (encoding them is what an interval costs): mostly listPets 2xx, in one interval of 7 until
    // the last 120 (where spans of 2 and of 4 intervals are rolled up), and none now and then.
    if ((i % 7 === 0 || i >= intervals - 120) && i % 97 !== 13)
      for (let n = 0; n < 2; n++) {
        const odd = i % 10 === 3;
        const status = odd && n === 0 ? 429 : i % 50 === 21 ? null : 200;
        const operation = odd && n === 1 ? 'getPet' : 'listPets';
        const latencyMs = 1 + rnd() * (i % 300 === 7 ? 900 : 40);
        const serviceMs = latencyMs * 0.8;
        emit({
          type: 'exchange',
          key: 'k',
          plan: 'free',
          operation,
          status,
          latencyMs,
          serviceMs,
          remaining: 5,
          at: t,
        });
      }
    if (i % 211 === 5)
      emit({
        type: 'check',
        id: 'list.schema',
        plan: 'free',
        status: 'pass',
        counts: { passed: i, failed: 0, skipped: 0 },
      });
    if (i % 333 === 9) emit({ type: 'note', text: `note at ${i}` });
    const from = t;
    t += INTERVAL_MS;
    journal.flush();
    const line = reference.take(from, t);
    if (line !== null) lines.push(line);
    o.at?.(i + 1, contents());
  }
  return { journal, contents: contents() };
}

/** What a recovered report is built from, without the journal's own path, line count and end. */
function recovered(j: JournalContents) {
  return { metrics: metricsOf({ ...j, end: null }), outcomes: outcomesOf(j) };
}

const interval = (l: string) => JSON.parse(l) as { type: string };
const lineCount = (dir: string) =>
  readFileSync(join(dir, JOURNAL_FILE), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && interval(l).type === 'interval').length;

describe("a long run's journal, rolled up", () => {
  it("widens its spans as the report timeline's buckets widen: 1 interval for 600, then powers of two", () => {
    expect([0, 599, 600, 1199, 1200, 3599, 86_399].map((i) => spanWidth(i))).toEqual([1, 1, 2, 2, 4, 8, 256]);
    expect(spanWidth(9, 5)).toBe(2);
  });

  it('recovers exactly what a line per interval would: totals, histograms, timeline, checks and notes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-rollup-'));
    const run = simulate(dir, 1300);
    await run.journal.close();
    const j = readJournal(dir);
    expect(j.end).not.toBeNull();
    expect(recovered(j)).toEqual(recovered(run.contents));
    expect(recovered(j).metrics.timeline.bucketMs).toBe(4 * INTERVAL_MS);
    // A line per span with activity: 600 of one interval, 300 of 2, 25 of 4 (idle ones aside).
    const spans = new Set(
      run.contents.intervals.map((l) => {
        const index = Math.round(l.from / INTERVAL_MS);
        return `${spanWidth(index)}:${Math.floor(index / spanWidth(index))}`;
      }),
    );
    expect(lineCount(dir)).toBe(spans.size);
    expect(spans.size).toBeLessThan(run.contents.intervals.length - 40);
    // A run that ended keeps no tail file.
    for (const name of TAIL_FILES) expect(existsSync(join(dir, name))).toBe(false);
  });

  it('loses nothing of a killed run: the seconds of the span under way come from the tail files, once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-rollup-'));
    const seen: number[] = [];
    // Read as if the run were killed after each of these intervals (mid-span, at a span's end, just after one).
    const run = simulate(dir, 1205, {
      at: (i, reference) => {
        if (![1190, 1199, 1200, 1201, 1203, 1205].includes(i)) return;
        const j = readJournal(dir);
        expect(j.end).toBeNull();
        expect(j.torn).toBe(false);
        expect(recovered(j), `killed after ${i} intervals`).toEqual(recovered(reference));
        seen.push(i);
      },
    });
    expect(seen).toHaveLength(6);
    // Both tail files are in use by now; the older one holds seconds its roll-up line already covers.
    expect(TAIL_FILES.filter((n) => existsSync(join(dir, n)))).toHaveLength(2);
    void run;
  });

  it('sets a killed long run aside with its tail files, and recovers it there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-rollup-'));
    const run = simulate(dir, 900, { killAt: 801 });
    const next = startJournal(createRunEvents(), dir, HEAD, { datasync: false });
    expect(next.previous).not.toBeNull();
    const aside = next.previous!.movedTo;
    expect(readdirSync(aside).sort()).toEqual([JOURNAL_FILE, ...TAIL_FILES].sort());
    expect(recovered(readJournal(aside))).toEqual(recovered(run.contents));
    await next.close();
    for (const name of TAIL_FILES) expect(existsSync(join(dir, name))).toBe(false);
  });

  it('reads a version 1 journal (a line per interval, no tail files) as before', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petload-rollup-'));
    const run = simulate(mkdtempSync(join(tmpdir(), 'petload-rollup-')), 650);
    const v1 = [run.contents.head, ...run.contents.intervals].map((l) => JSON.stringify(l)).join('\n');
    writeFileSync(join(dir, JOURNAL_FILE), `${v1}\n`);
    // A stray tail file beside a version 1 journal is not read.
    writeFileSync(join(dir, TAIL_FILES[0]), `${JSON.stringify(run.contents.intervals.at(-1))}\n`);
    const j = readJournal(dir);
    expect(j.head.schemaVersion).toBe(1);
    expect(recovered(j)).toEqual(recovered(run.contents));
  });
});
