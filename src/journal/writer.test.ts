import { appendFileSync, existsSync, linkSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRedactor, parseKeys } from '../config/keys-file.js';
import { createRunEvents, RUN_EVENT_TYPES, type RunEvents } from '../core/run-events.js';
import { decodeHistogram, totalCount } from '../metrics/histogram.js';
import { findSecret, recognisableKey } from '../testing/secrets.js';
import { JOURNAL_FILE, type JournalHeadInput } from './format.js';
import { readJournal } from './reader.js';
import { TAIL_FILES } from './tail.js';
import { startJournal } from './writer.js';

const HEAD: JournalHeadInput = {
  tool: { name: 'petload', version: '0.0.0-test' },
  scenario: { name: 'journal-test', description: 'a test' },
  target: { url: 'http://127.0.0.1:1/v1', embedded: true, timeScale: 60, faults: [] },
  plans: ['free', 'pro'],
  keys: [{ label: 'free#1 (…abcd)', plan: 'free', sacrificial: false }],
  startedAt: '2026-01-02T03:04:05.678Z',
  thresholds: [{ expression: 'p(95) < 250ms', severity: 'major' }],
};

const dirOf = () => mkdtempSync(join(tmpdir(), 'petload-journal-'));

/** A manual clock: the journal's flushes are driven by hand (its timer is far off). */
function manual(events: RunEvents = createRunEvents()) {
  let t = 0;
  const dir = dirOf();
  const journal = startJournal(events, dir, HEAD, { now: () => t, intervalMs: 60_000, datasync: false });
  return { dir, journal, events, advance: (ms: number) => (t += ms) };
}

const exchange = (status: number | null, latencyMs: number, operation: string | null = 'listPets') =>
  ({
    type: 'exchange',
    key: 'free#1 (…abcd)',
    plan: 'free',
    operation,
    status,
    latencyMs,
    serviceMs: latencyMs,
    remaining: 5,
    at: 1,
  }) as const;

describe('the journal writer', () => {
  it('writes a head, one line per interval with activity (counts, histogram deltas, checks, notes), and an end', async () => {
    const { dir, journal, events, advance } = manual();
    for (let i = 0; i < 10; i++) events.emit(exchange(200, 5 + i));
    events.emit(exchange(429, 1));
    events.emit(exchange(null, 10_000, null));
    events.emit({
      type: 'check',
      id: 'list.schema',
      plan: 'free',
      status: 'pass',
      counts: { passed: 1, failed: 0, skipped: 0 },
    });
    events.emit({ type: 'note', text: 'a note' });
    advance(1000);
    journal.flush();
    advance(1000);
    journal.flush(); // nothing happened: no line
    events.emit(exchange(200, 7));
    advance(500);
    events.emit({ type: 'ended', verdict: 'pass', exitCode: 0, files: null });
    await journal.close();

    const j = readJournal(dir);
    expect(j.head).toMatchObject({ ...HEAD, type: 'head', schemaVersion: 2, intervalMs: 60_000 });
    expect(j.intervals).toHaveLength(2);
    const [first, second] = j.intervals;
    expect(first!.from).toBe(0);
    expect(first!.to).toBe(1000);
    expect(first!.counts).toEqual(
      expect.arrayContaining([
        ['free', 'listPets', 200, 10],
        ['free', 'listPets', 429, 1],
        ['free', null, null, 1],
      ]),
    );
    expect(totalCount(decodeHistogram(first!.latency.listPets!['2xx']!))).toBe(10);
    expect(totalCount(decodeHistogram(first!.latency.listPets!['429']!))).toBe(1);
    expect(totalCount(decodeHistogram(first!.latency.other!.error!))).toBe(1);
    expect(first!.checks).toEqual([
      { id: 'list.schema', plan: 'free', status: 'pass', counts: { passed: 1, failed: 0, skipped: 0 } },
    ]);
    expect(first!.notes).toEqual(['a note']);
    // Deltas: the second interval holds only what came after the first flush.
    expect(second!.from).toBe(2000);
    expect(second!.counts).toEqual([['free', 'listPets', 200, 1]]);
    expect(totalCount(decodeHistogram(second!.latency.listPets!['2xx']!))).toBe(1);
    expect(j.end).toEqual({ type: 'end', at: 2500, verdict: 'pass', exitCode: 0 });
    expect(j.torn).toBe(false);
  });

  it('flushes on its own about once an interval, so that a killed run has its lines on disk', async () => {
    const events = createRunEvents();
    const dir = dirOf();
    const journal = startJournal(events, dir, HEAD, { intervalMs: 50 });
    events.emit(exchange(200, 1));
    // Bounded wait for the timer's line, without closing the journal.
    for (let i = 0; i < 100 && readJournal(dir).intervals.length === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    const j = readJournal(dir);
    expect(j.intervals).toHaveLength(1);
    expect(j.end).toBeNull();
    await journal.close();
    expect(readJournal(dir).end).toEqual(expect.objectContaining({ verdict: null, exitCode: null }));
  });

  it('never holds a key: it writes what the stream hands it, redacted', async () => {
    const secret = recognisableKey('pro');
    const keys = parseKeys({ keys: [{ key: secret, plan: 'pro' }] }, 'test');
    const { dir, journal, events, advance } = manual(createRunEvents(createRedactor(keys)));
    const label = keys[0]!.label;
    events.emit({ ...exchange(401, 2), key: label });
    events.emit({
      type: 'check',
      id: 'auth.invalid-key',
      plan: 'pro',
      status: 'fail',
      counts: { passed: 0, failed: 1, skipped: 0 },
      message: `the target echoed Authorization: Bearer ${secret}`,
    });
    events.emit({ type: 'note', text: `a note quoting ${secret} and ${secret.slice(0, 20)}…` });
    events.emit({ type: 'log', text: `a log line quoting ${secret}`, notice: true });
    advance(1000);
    events.emit({ type: 'ended', verdict: 'fail', exitCode: 1, reason: `because of ${secret}`, files: null });
    await journal.close();
    const text = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
    expect(text).toContain('[key ');
    expect(findSecret(text, [secret])).toBeNull();
    for (const type of RUN_EVENT_TYPES) expect(events.wants(type)).toBe(false);
  });

  it('reads a journal whose last line was torn, and skips (and names) a damaged line elsewhere', async () => {
    const { dir, journal, events, advance } = manual();
    events.emit(exchange(200, 1));
    advance(1000);
    journal.flush();
    events.emit(exchange(200, 2));
    advance(1000);
    journal.flush();
    const path = join(dir, JOURNAL_FILE);
    appendFileSync(path, '{"type":"interval","from":2000,"to":30');
    let j = readJournal(dir);
    expect(j.intervals).toHaveLength(2);
    expect(j.torn).toBe(true);
    expect(j.end).toBeNull();
    // A power cut may leave zeros where the last line was being written.
    const lines = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, [lines[0], 'not json', lines[2], '\0\0\0\0'].join('\n'));
    j = readJournal(dir);
    expect(j.intervals).toHaveLength(1);
    expect(j.skipped).toEqual([2]);
    expect(j.torn).toBe(true);
    await journal.close();
  });

  it('refuses a directory it cannot write, before anything is sent', () => {
    const dir = dirOf();
    writeFileSync(join(dir, 'a-file'), '');
    expect(() => startJournal(createRunEvents(), join(dir, 'a-file', 'r'), HEAD)).toThrow(
      expect.objectContaining({
        code: 'E_USAGE',
        message: expect.stringMatching(/cannot write the journal .*ENOTDIR/),
      }),
    );
  });

  it.each([
    ['a finished journal', '{"type":"end","at":1,"verdict":"pass","exitCode":0}\n'],
    ['an unfinished journal', `${JSON.stringify({ type: 'head', ...HEAD })}\n`],
    ['any other file', 'keep me\n'],
  ])(
    'refuses a journal path that is a hard link to %s, before anything is sent, leaving it as it was',
    (_what, text) => {
      const dir = dirOf();
      const other = join(dir, 'elsewhere.txt');
      writeFileSync(other, text);
      linkSync(other, join(dir, JOURNAL_FILE));
      expect(() => startJournal(createRunEvents(), dir, HEAD, { datasync: false })).toThrow(
        expect.objectContaining({
          code: 'E_USAGE',
          message: `cannot write the journal ${join(dir, JOURNAL_FILE)}: it is a hard link (a file with 2 names), and petload never writes through one`,
          hint: 'Remove the link, or give another --report-dir.',
        }),
      );
      expect(readFileSync(other, 'utf8')).toBe(text);
      expect(statSync(other).nlink).toBe(2);
    },
  );

  it('refuses a tail file that became a hard link during the run: the journal stops, the other file is untouched', async () => {
    const { dir, journal, events, advance } = manual();
    const notes: string[] = [];
    events.on('note', (e) => notes.push(e.text));
    const other = join(dir, 'elsewhere.txt');
    writeFileSync(other, 'keep me\n');
    for (const name of TAIL_FILES) linkSync(other, join(dir, name));
    // Past the timeline's first buckets, the seconds of the span under way go to a tail file.
    for (let i = 0; i < 1300 && notes.length === 0; i++) {
      events.emit(exchange(200, 1));
      advance(60_000);
      journal.flush();
    }
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /journal\.tail-[01]\.ndjson: it is a hard link \(a file with 3 names\), and petload never writes through one/,
    );
    expect(readFileSync(other, 'utf8')).toBe('keep me\n');
    await journal.close();
  });

  it('sets an unfinished journal aside in a folder of its own, and replaces a finished one', async () => {
    const first = manual();
    first.events.emit(exchange(200, 1));
    first.journal.flush(); // killed: no close, no end line
    const second = startJournal(createRunEvents(), first.dir, HEAD, { datasync: false });
    expect(second.previous).toEqual({
      startedAt: HEAD.startedAt,
      scenario: 'journal-test',
      movedTo: join(first.dir, 'unfinished-2026-01-02T03-04-05Z'),
    });
    const aside = readJournal(second.previous!.movedTo);
    expect(aside.intervals).toHaveLength(1);
    expect(aside.end).toBeNull();
    await second.close();
    // A finished journal is the record of a run whose report is beside it: the next run replaces both.
    const third = startJournal(createRunEvents(), first.dir, HEAD, { datasync: false });
    expect(third.previous).toBeNull();
    await third.close();
    expect(existsSync(join(first.dir, 'unfinished-2026-01-02T03-04-05Z-2'))).toBe(false);
    await first.journal.close();
  });

  it('refuses intervals a run never writes (out of order, beyond a year, ending first, a nanosecond long), naming the line', async () => {
    const { dir, journal, events, advance } = manual();
    events.emit(exchange(200, 5));
    advance(1000);
    journal.flush();
    await journal.close();
    const [head, interval] = readFileSync(join(dir, JOURNAL_FILE), 'utf8').split('\n');
    const at = (from: number, to = from + 1000) => JSON.stringify({ ...JSON.parse(interval!), from, to });
    const cases: [string[], RegExp][] = [
      [[at(1e12), at(0)], /line 2 cannot be recovered: expected an interval's from and to in ms within a year/],
      [
        [at(5000), at(0)],
        /line 3 cannot be recovered: expected intervals in time order, found one from 0 ms after one from 5000 ms/,
      ],
      [[at(5000, 10)], /line 2 cannot be recovered: expected an interval that ends after it begins/],
      [[at(-1)], /line 2 cannot be recovered: expected an interval's from and to/],
    ];
    const tiny = JSON.stringify({ ...JSON.parse(head!), intervalMs: 1e-300 });
    writeFileSync(join(dir, JOURNAL_FILE), `${tiny}\n${at(1000)}\n`);
    expect(() => readJournal(dir)).toThrow(/line 1 cannot be recovered: expected an interval of 1 ms to 1 h/);
    for (const [lines, message] of cases) {
      writeFileSync(join(dir, JOURNAL_FILE), `${[head, ...lines].join('\n')}\n`);
      expect(() => readJournal(dir)).toThrow(
        expect.objectContaining({ code: 'E_USAGE', message: expect.stringMatching(message) }),
      );
    }
  });
});
