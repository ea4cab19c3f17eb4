/**
 * Reading a journal back (for `petload report --recover`). The last line may be torn (the process died, or the
 * power went, in the middle of writing it): it is dropped and said so. A damaged line elsewhere (not something a
 * crash leaves) is skipped and named, so that what the rest of the journal holds is still recovered.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PetloadError } from '../core/errors.js';
import {
  JOURNAL_FILE,
  READABLE_JOURNAL_VERSIONS,
  type JournalEnd,
  type JournalHead,
  type JournalInterval,
  type JournalLine,
  JournalLineSchema,
} from './format.js';
import { TAIL_FILES } from './tail.js';

export interface JournalContents {
  readonly path: string;
  readonly head: JournalHead;
  readonly intervals: readonly JournalInterval[];
  /** The `end` line: the run finished (null: it was killed, or is still running). */
  readonly end: JournalEnd | null;
  /** The last line was torn and dropped. */
  readonly torn: boolean;
  /** Line numbers (1-based) of damaged lines that were skipped, the last one aside. */
  readonly skipped: readonly number[];
}

/** One line of a journal, or null when it is not one (torn, damaged, of another version). */
export function parseLine(text: string): JournalLine | null {
  if (text.trim() === '') return null;
  try {
    const res = JournalLineSchema.safeParse(JSON.parse(text));
    return res.success ? res.data : null;
  } catch {
    return null;
  }
}

const HINT = 'Give the report directory of a run (the folder that holds its journal.ndjson).';

function headOf(path: string, first: string | undefined): JournalHead {
  const head = first === undefined ? null : parseLine(first);
  if (head?.type === 'head') {
    // The timeline has a bucket per interval: an interval of a nanosecond, or none, is no run's.
    const { intervalMs } = head;
    const scale = head.target.timeScale;
    if (!(intervalMs >= 1 && intervalMs <= 3_600_000) || !(scale > 0 && Number.isFinite(scale)))
      throw new PetloadError(
        'E_USAGE',
        `${path} line 1 cannot be recovered: expected an interval of 1 ms to 1 h and a positive time scale, found intervalMs ${intervalMs}, timeScale ${scale}; a run never writes that (the journal was altered)`,
        { hint: HINT },
      );
    return head;
  }
  let version: unknown;
  try {
    version = (JSON.parse(first ?? '') as { schemaVersion?: unknown }).schemaVersion;
  } catch {
    version = undefined;
  }
  const why =
    version !== undefined && !(READABLE_JOURNAL_VERSIONS as readonly unknown[]).includes(version)
      ? `its journal format is version ${String(version)}; this petload reads versions ${READABLE_JOURNAL_VERSIONS.join(' and ')}`
      : 'it does not begin with a journal head line (the run died before writing it, or this is no journal)';
  throw new PetloadError('E_USAGE', `${path} cannot be recovered: ${why}`, { hint: HINT });
}

/** The longest run a journal may describe: an interval said to start later was not written by a run. */
export const MAX_JOURNAL_MS = 366 * 24 * 3600 * 1000;

/**
 * An interval's times, checked before anything is built from them (the timeline has a bucket per interval up
 * to the last one): finite, within a year of the start, not ending before they begin, and in time order.
 */
function checkTimes(path: string, iv: JournalInterval, previous: JournalInterval | undefined, line: number): void {
  const where = `${path} line ${line}`;
  const fail = (why: string) =>
    new PetloadError(
      'E_USAGE',
      `${where} cannot be recovered: ${why}; a run never writes that (the journal was altered)`,
      {
        hint: HINT,
      },
    );
  const ok = (t: number) => Number.isFinite(t) && t >= 0 && t <= MAX_JOURNAL_MS;
  if (!ok(iv.from) || !ok(iv.to))
    throw fail(
      `expected an interval's from and to in ms within a year of the start (0 to ${MAX_JOURNAL_MS}), found from ${iv.from}, to ${iv.to}`,
    );
  if (iv.to < iv.from) throw fail(`expected an interval that ends after it begins, found from ${iv.from}, to ${iv.to}`);
  if (previous !== undefined && iv.from < previous.from)
    throw fail(`expected intervals in time order, found one from ${iv.from} ms after one from ${previous.from} ms`);
}

/** The journal of the report directory `dir` (its `journal.ndjson`), parsed. Throws E_USAGE when there is none. */
export function readJournal(dir: string): JournalContents {
  const path = join(dir, JOURNAL_FILE);
  if (!existsSync(path)) throw new PetloadError('E_USAGE', `${dir} holds no journal (${JOURNAL_FILE})`, { hint: HINT });
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  // Bytes after the last newline are a line whose writing never finished (or the zeros a power cut left there).
  let torn = (lines.pop() ?? '') !== '';
  const head = headOf(path, lines[0]);
  const intervals: JournalInterval[] = [];
  const skipped: number[] = [];
  let end: JournalEnd | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = parseLine(lines[i]!);
    if (line?.type === 'interval' && end === null) {
      checkTimes(path, line, intervals.at(-1), i + 1);
      intervals.push(line);
    } else if (line?.type === 'end' && end === null) end = line;
    else if (i === lines.length - 1 && line === null) torn = true;
    else skipped.push(i + 1);
  }
  // A long run's span under way: its seconds are in the tail files, after what the journal's lines cover.
  if (end === null && head.schemaVersion >= 2 && tailSeconds(dir, intervals)) torn = true;
  return { path, head, intervals, end, torn, skipped };
}

/**
 * Appends to `intervals` the seconds of the tail files (tail.ts) that start at or after the end of the journal's
 * last line (older ones are already in a roll-up line), in time order. True when a tail's last line was torn.
 */
function tailSeconds(dir: string, intervals: JournalInterval[]): boolean {
  const after = intervals.at(-1)?.to ?? 0;
  const found: { line: JournalInterval; file: string; at: number }[] = [];
  let torn = false;
  for (const name of TAIL_FILES) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    const lines = readFileSync(file, 'utf8').split('\n');
    if ((lines.pop() ?? '') !== '') torn = true;
    lines.forEach((text, i) => {
      const line = parseLine(text);
      if (line?.type === 'interval' && line.from >= after) found.push({ line, file, at: i + 1 });
    });
  }
  found.sort((a, b) => a.line.from - b.line.from || a.at - b.at);
  for (const { line, file, at } of found) {
    checkTimes(file, line, intervals.at(-1), at);
    intervals.push(line);
  }
  return torn;
}
