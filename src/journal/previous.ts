/**
 * A report directory that already holds a journal. A finished one (its last line is `end`) belongs to a run whose
 * report is in the directory too: the new run replaces both, as it replaces the report files. An unfinished one
 * is the only record of a run that was killed: it is never lost. It moves into a folder of its own,
 * `DIR/unfinished-<its start>/journal.ndjson`, where `petload report --recover` rebuilds its report without
 * touching the new run's files.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { PetloadError } from '../core/errors.js';
import { JOURNAL_FILE } from './format.js';
import { parseLine } from './reader.js';
import { TAIL_FILES } from './tail.js';

export interface PreviousJournal {
  /** When the unfinished run began sending (ISO time), when its head line says. */
  readonly startedAt: string | null;
  /** The scenario it ran, when its head line says. */
  readonly scenario: string | null;
  /** The folder it was moved into (holding its journal.ndjson). */
  readonly movedTo: string;
}

/** How much of each end of a journal is read to find its head and its last line. */
const PEEK_BYTES = 64 * 1024;

function readAt(fd: number, position: number, length: number): string {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, position);
  return buf.subarray(0, n).toString('utf8');
}

/** The head and the last complete line of a journal file, read from its two ends only (a journal may be large). */
export function peekJournal(path: string): { startedAt: string | null; scenario: string | null; finished: boolean } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const first = readAt(fd, 0, Math.min(size, PEEK_BYTES)).split('\n')[0] ?? '';
    const tail = readAt(fd, Math.max(0, size - PEEK_BYTES), Math.min(size, PEEK_BYTES));
    const lines = tail.split('\n');
    // A journal ends with a newline; anything after the last one is a torn line.
    const last = lines.length >= 2 ? (lines[lines.length - 2] ?? '') : '';
    const head = parseLine(first);
    const end = parseLine(last);
    return {
      startedAt: head?.type === 'head' ? head.startedAt : null,
      scenario: head?.type === 'head' ? head.scenario.name : null,
      finished: end?.type === 'end',
    };
  } finally {
    closeSync(fd);
  }
}

/** A folder name from an ISO time: `unfinished-2026-11-25T01-56-03Z`, unique in `dir`. */
function asideFolder(dir: string, startedAt: string | null, path: string): string {
  const when = startedAt ?? statSync(path).mtime.toISOString();
  const base = `unfinished-${when.replace(/\.\d+Z$/, 'Z').replace(/[^0-9A-Za-z-]/g, '-')}`;
  let name = base;
  for (let i = 2; existsSync(join(dir, name)); i++) name = `${base}-${i}`;
  return join(dir, name);
}

/** The error for a journal path that is a symbolic link (dangling or not): it is never followed. */
export function symlinkRefused(path: string, cause?: unknown): PetloadError {
  return new PetloadError(
    'E_USAGE',
    `cannot write the journal ${path}: it is a symbolic link, and petload never writes through one`,
    { ...(cause !== undefined ? { cause } : {}), hint: 'Remove the link, or give another --report-dir.' },
  );
}

/**
 * The error for a journal path that is a hard link (a file with another name elsewhere): writing it would append to,
 * or overwrite, that other file.
 */
export function hardLinkRefused(path: string, links: number): PetloadError {
  return new PetloadError(
    'E_USAGE',
    `cannot write the journal ${path}: it is a hard link (a file with ${links} names), and petload never writes through one`,
    { hint: 'Remove the link, or give another --report-dir.' },
  );
}

/** Moves an unfinished journal of `dir` into a folder of its own; null when `dir` holds none (or a finished one). */
export function setAside(dir: string): PreviousJournal | null {
  const path = join(dir, JOURNAL_FILE);
  // lstat, not exists: a dangling link "does not exist", and opening it for writing would create its target.
  let entry: ReturnType<typeof lstatSync>;
  try {
    entry = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return null; // The directory cannot be read: opening the journal says why.
  }
  if (entry === undefined) return null;
  if (entry.isSymbolicLink()) throw symlinkRefused(path);
  if (entry.isFile() && entry.nlink > 1) throw hardLinkRefused(path, entry.nlink);
  // A FIFO would block the run as it opens it; a directory or a device is no journal either.
  if (!entry.isFile())
    throw new PetloadError('E_USAGE', `cannot write the journal ${path}: it is not a regular file`, {
      hint: 'Remove it, or give another --report-dir.',
    });
  try {
    const seen = peekJournal(path);
    if (seen.finished) return null;
    const movedTo = asideFolder(dir, seen.startedAt, path);
    mkdirSync(movedTo);
    renameSync(path, join(movedTo, JOURNAL_FILE));
    // A long run's tail files (the seconds of its last span) go with it; links are left where they are.
    for (const name of TAIL_FILES)
      if (lstatSync(join(dir, name), { throwIfNoEntry: false })?.isFile() === true)
        renameSync(join(dir, name), join(movedTo, name));
    return { startedAt: seen.startedAt, scenario: seen.scenario, movedTo };
  } catch (e) {
    throw new PetloadError(
      'E_USAGE',
      `cannot set aside the unfinished journal ${path} (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
      { cause: e, hint: 'Move it away by hand, or give another --report-dir.' },
    );
  }
}

/** The one notice line of a run that found an unfinished journal in its report directory. */
export function unfinishedNotice(dir: string, p: PreviousJournal): string {
  const which = p.startedAt === null ? 'an unfinished run' : `an unfinished run (started ${p.startedAt})`;
  return `petload: ${dir} held the journal of ${which}; it is now in ${p.movedTo}, where \`petload report --recover ${p.movedTo}\` rebuilds its report; this run starts a new journal`;
}
