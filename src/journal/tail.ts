/**
 * The seconds of a long run's span under way (rollup.ts): two side files of the journal, `journal.tail-0.ndjson` and
 * `journal.tail-1.ndjson`, that take turns span by span. A second's line goes to its span's file with one synchronous
 * write(2), as the journal's own lines do, so that a killed run loses at most its last second. A file is emptied
 * only when it is about to take a new span's seconds, once the roll-up line of the span it held is in the journal and
 * synced (the writer makes sure of it): a power cut can never take both. The recovery reads the seconds that no
 * roll-up line of the journal covers yet (reader.ts); a run that ends removes both files.
 */
import { closeSync, ftruncateSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const TAIL_FILES = ['journal.tail-0.ndjson', 'journal.tail-1.ndjson'] as const;

interface Tail {
  readonly fd: number;
  /** Where the next line goes (the file is written at explicit positions: emptied, it starts again at 0). */
  position: number;
  /** The span (its sequence number) whose seconds it holds. */
  span: number;
}

export class TailFiles {
  private readonly tails: (Tail | null)[] = [null, null];

  constructor(
    private readonly dir: string,
    /** Opens (creates, empties) a file of the directory the way the journal itself is opened. */
    private readonly open: (path: string) => number,
  ) {}

  /** Removes tail files a run left behind (a crash after its `end` line), before the run writes any. */
  clearStale(): void {
    for (const name of TAIL_FILES) rmSync(join(this.dir, name), { force: true });
  }

  /**
   * Appends a second's line of span `span`; when the span's file still holds an older span, `beforeReuse(older)`
   * runs first (it makes sure that span's roll-up is durable in the journal), then the file is emptied.
   */
  write(span: number, text: string, beforeReuse: (older: number) => void): void {
    const k = span % 2;
    let t = this.tails[k] ?? null;
    if (t === null) t = this.tails[k] = { fd: this.open(join(this.dir, TAIL_FILES[k]!)), position: 0, span };
    if (t.span !== span) {
      beforeReuse(t.span);
      ftruncateSync(t.fd, 0);
      t.position = 0;
      t.span = span;
    }
    t.position += writeSync(t.fd, text, t.position);
  }

  /** The open files' descriptors (to sync them). */
  fds(): number[] {
    return this.tails.flatMap((t) => (t === null ? [] : [t.fd]));
  }

  /** Closes both files and removes them (the journal has its `end` line and no longer needs them). */
  remove(): void {
    for (const t of this.tails) if (t !== null) closeSync(t.fd);
    this.tails.fill(null);
    this.clearStale();
  }
}
