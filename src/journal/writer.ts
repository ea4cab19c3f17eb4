/**
 * The journal writer: a sink of the run's event stream (src/core/run-events.ts) that appends what the run measures
 * to `journal.ndjson` in its report directory as it goes, so that a run killed (kill -9, an OOM, a power cut)
 * loses at most its last second: `petload report --recover DIR` rebuilds its report (src/engine/recover.ts).
 *
 * The exchange events only update an aggregate in memory (aggregate.ts). Once every `intervalMs` (1 s) a timer
 * writes what arrived as one line with a synchronous write(2): when the callback returns, the line is in the
 * operating system's hands and survives the process being killed. An fdatasync follows, asynchronously (it does not
 * hold up the event loop) and at most one at a time, for what a power cut would otherwise take. The journal holds
 * only event data, which the stream has redacted: labels, numbers and redacted text, never a key.
 *
 * A failure to write the journal does not stop the run: it says so once (a notice and a note) and stops journaling.
 */
import {
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { PetloadError } from '../core/errors.js';
import type { RunEventOf, RunEvents } from '../core/run-events.js';
import { type ExchangeEvent, IntervalAggregate } from './aggregate.js';
import { JOURNAL_FILE, JOURNAL_SCHEMA_VERSION, type JournalEnd, type JournalHeadInput } from './format.js';
import { hardLinkRefused, type PreviousJournal, setAside, symlinkRefused } from './previous.js';
import { LongRun } from './rollup.js';
import { TailFiles } from './tail.js';

export const JOURNAL_INTERVAL_MS = 1000;

export interface JournalOptions {
  /** Real ms between flushes (default JOURNAL_INTERVAL_MS). */
  intervalMs?: number;
  /** A monotonic clock in real ms (default performance.now). */
  now?: () => number;
  /** fdatasync after each flush, for power cuts (default true). */
  datasync?: boolean;
}

export interface Journal {
  /** The journal file. */
  readonly path: string;
  /** The unfinished journal the directory held, now set aside; null when it held none. */
  readonly previous: PreviousJournal | null;
  /** Write what arrived since the last flush now (the timer does so every interval). */
  flush(): void;
  /**
   * Flush, write the `end` line (the verdict of the run's `ended` event; without one, the run wrote no report),
   * sync and close. Idempotent.
   */
  close(): Promise<void>;
}

function codeOf(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
}

/**
 * Never through a symbolic link (O_NOFOLLOW): a link planted where the journal goes would have the run create or
 * overwrite whatever file it points to. Nor through a hard link: the file is emptied only once it is known to have
 * no other name (fstat of the open file, so that no link made in between escapes the check).
 */
const OPEN_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW;

/** Opens `path` for writing, emptied; refuses a symbolic link and a file with another name. */
function openEmptied(path: string): number {
  const fd = openSync(path, OPEN_FLAGS, 0o644);
  try {
    const links = fstatSync(fd).nlink;
    if (links > 1) throw hardLinkRefused(path, links);
    ftruncateSync(fd, 0);
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** Opens the journal file (the directory made if needed) and makes its entry durable. */
function openFile(dir: string, path: string): number {
  try {
    mkdirSync(dir, { recursive: true });
    const fd = openEmptied(path);
    try {
      const d = openSync(dir, 'r');
      try {
        fsyncSync(d);
      } finally {
        closeSync(d);
      }
    } catch {
      // Some file systems cannot sync a directory; the file's own syncs still hold its content.
    }
    return fd;
  } catch (e) {
    if (e instanceof PetloadError) throw e;
    if (codeOf(e) === 'ELOOP') throw symlinkRefused(path, e);
    throw new PetloadError('E_USAGE', `cannot write the journal ${path} (${codeOf(e)})`, {
      cause: e,
      hint: 'Give a writable directory (--report-dir).',
    });
  }
}

/** The `end` line: the verdict of the run's `ended` event (without one, the run wrote no report). */
function endLine(ended: RunEventOf<'ended'> | null, at: number): JournalEnd {
  return {
    type: 'end',
    at,
    verdict: ended?.verdict ?? null,
    exitCode: ended?.exitCode ?? null,
    ...(ended?.reason !== undefined ? { reason: ended.reason } : {}),
  };
}

/** The events the journal keeps, into its aggregate; returns the functions that stop listening. */
function listen(events: RunEvents, agg: IntervalAggregate, onEnded: (e: RunEventOf<'ended'>) => void): (() => void)[] {
  return [
    events.on('exchange', (e) => agg.exchange(e as ExchangeEvent)),
    events.on('check', (e) => agg.check(e)),
    events.on('note', (e) => agg.note(e.text)),
    events.on('ended', onEnded),
  ];
}

/**
 * Calls `tick` on the interval's boundaries from `t0` (so that lateness does not add up) until the returned function
 * is called; the timer does not hold the process open.
 */
function tickOnBoundaries(now: () => number, t0: number, intervalMs: number, tick: () => void): () => void {
  let timer: NodeJS.Timeout;
  let stopped = false;
  const schedule = () => {
    const next = (Math.floor((now() - t0) / intervalMs) + 1) * intervalMs;
    timer = setTimeout(
      () => {
        tick();
        if (!stopped) schedule();
      },
      Math.max(0, t0 + next - now()),
    );
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** fdatasync of each file in turn, off the event loop; then `done`. */
function syncAll(fds: readonly number[], done: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const next = (i: number): void => {
      if (i < fds.length) return fdatasync(fds[i]!, () => next(i + 1));
      done();
      resolve();
    };
    next(0);
  });
}

/** Removes the tail files once the journal has its end line (its reader no longer looks at them). */
function removeTails(tails: TailFiles): void {
  try {
    tails.remove();
  } catch {
    // Left behind: a journal with its end line is read without them, and the next run in the directory clears them.
  }
}

/**
 * Start the journal of a run in `dir`: set aside an unfinished journal the directory holds (see `previous`),
 * write the head line, and listen to the run's events. Call before anything is sent; `close` after the report.
 */
export function startJournal(events: RunEvents, dir: string, head: JournalHeadInput, o: JournalOptions = {}): Journal {
  const intervalMs = o.intervalMs ?? JOURNAL_INTERVAL_MS;
  const now = o.now ?? (() => performance.now());
  const path = join(dir, JOURNAL_FILE);
  const previous = setAside(dir);
  const fd = openFile(dir, path);
  const t0 = now();
  const agg = new IntervalAggregate();
  const state = { broken: false, closed: false, last: 0, syncing: null as Promise<void> | null };
  const tails = new TailFiles(dir, (p) => openFile(dir, p));
  let ended: RunEventOf<'ended'> | null = null;

  const fail = (e: unknown) => {
    state.broken = true;
    const why = e instanceof PetloadError ? e.message : codeOf(e);
    const text = `the journal ${path} could not be written (${why}); it stops ${((now() - t0) / 1000).toFixed(1)} s into the run, the report will be written as usual`;
    events.emit({ type: 'log', text: `petload: ${text}`, notice: true });
    events.emit({ type: 'note', text });
  };
  const write = (line: object): boolean => {
    if (state.broken) return false;
    try {
      writeSync(fd, `${JSON.stringify(line)}\n`);
      return true;
    } catch (e) {
      fail(e);
      return false;
    }
  };
  const syncNow = () => o.datasync === false || fdatasyncSync(fd);
  // A long run's seconds past the timeline's first buckets: rolled up, the span under way in a tail file (rollup.ts).
  const long = new LongRun({ intervalMs, tails, append: write, syncNow });
  const sync = () => {
    if (o.datasync === false || state.syncing !== null || state.broken) return;
    state.syncing = syncAll([fd, ...tails.fds()], long.syncing()).then(() => {
      state.syncing = null;
    });
  };
  const flush = () => {
    if (state.closed) return;
    const to = Math.round(now() - t0);
    try {
      // A broken journal still empties its aggregate, so that its memory stays flat.
      if (state.broken) agg.take(state.last, to);
      else if (long.flush(agg, state.last, to)) sync();
    } catch (e) {
      fail(e);
    }
    state.last = to;
  };

  removeTails(tails);
  write({ type: 'head', schemaVersion: JOURNAL_SCHEMA_VERSION, ...head, intervalMs });
  if (o.datasync !== false && !state.broken) fdatasyncSync(fd);

  const off = listen(events, agg, (e) => {
    ended = e;
  });
  const stopTicks = tickOnBoundaries(now, t0, intervalMs, flush);

  return {
    path,
    previous,
    flush,
    close: async () => {
      if (state.closed) return;
      flush();
      if (!state.broken) long.roll();
      state.closed = true;
      stopTicks();
      for (const f of off) f();
      write(endLine(ended, Math.round(now() - t0)));
      await state.syncing;
      try {
        if (o.datasync !== false && !state.broken) fdatasyncSync(fd);
      } catch (e) {
        fail(e);
      } finally {
        closeSync(fd);
        if (!state.broken) removeTails(tails);
      }
    },
  };
}
