/**
 * The requests of the direct HTTP/1.1 pool (./h1-pool.ts) waiting for a connection, oldest first.
 *
 * An array read from an index: taking the first entry of an array (`shift()`) moves every other entry, a cost per
 * request that grows with the queue; here a taken entry's slot is cleared and the index moves on. The slots taken
 * are given back in two ways: when the queue empties, the array is dropped; while it never empties (requests come
 * as fast as they leave), the taken prefix is cut off once it is longer than COMPACT_AFTER slots and more than half
 * of the array. A cut copies the live entries, fewer than the slots taken since the last cut, so each request costs
 * O(1) however long the queue; the array holds at most twice its live entries, plus COMPACT_AFTER slots.
 *
 * An entry may settle while it waits (its request given up): it stays where it is and is passed over when it comes
 * to the front (first()), as cheap as taking it out of the middle is not.
 */

/** What the queue holds: a request, which may settle (end) before it leaves the queue. */
export interface Waiting {
  readonly done: boolean;
}

/** Slots taken before the queue cuts them off (a cut of a queue shorter than this would cost more than it saves). */
const COMPACT_AFTER = 1024;

export class WaitQueue<T extends Waiting> {
  private slots: (T | undefined)[] = [];
  /** The index of the first slot not taken. */
  private head = 0;

  push(item: T): void {
    this.slots.push(item);
  }

  /** The oldest entry that has not settled, or undefined; settled entries before it are taken out. */
  first(): T | undefined {
    while (this.head < this.slots.length) {
      const item = this.slots[this.head]!;
      if (!item.done) return item;
      this.take();
    }
    return undefined;
  }

  /** Takes out the oldest entry (the one first() gave). */
  take(): void {
    this.slots[this.head++] = undefined;
    if (this.head === this.slots.length) {
      this.slots = [];
      this.head = 0;
    } else if (this.head > COMPACT_AFTER && this.head * 2 > this.slots.length) {
      this.slots = this.slots.slice(this.head);
      this.head = 0;
    }
  }

  /** How many entries wait and have not settled (a walk of the queue: for close(), not for each request). */
  waiting(): number {
    let n = 0;
    for (let i = this.head; i < this.slots.length; i++) if (this.slots[i]?.done === false) n++;
    return n;
  }

  /** Whether nothing is queued, settled or not. */
  get isEmpty(): boolean {
    return this.head === this.slots.length;
  }

  /** Empties the queue and gives the entries that had not settled, oldest first. */
  drain(): T[] {
    const out: T[] = [];
    for (let i = this.head; i < this.slots.length; i++) {
      const item = this.slots[i];
      if (item !== undefined && !item.done) out.push(item);
    }
    this.slots = [];
    this.head = 0;
    return out;
  }
}
