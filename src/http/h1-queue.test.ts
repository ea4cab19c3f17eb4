import { describe, expect, it } from 'vitest';
import { WaitQueue } from './h1-queue.js';

interface Item {
  id: number;
  done: boolean;
}

const item = (id: number): Item => ({ id, done: false });

describe('WaitQueue', () => {
  it('gives entries oldest first, passing over those that settled while they waited', () => {
    const q = new WaitQueue<Item>();
    const items = [1, 2, 3, 4].map(item);
    for (const i of items) q.push(i);
    items[0]!.done = true;
    items[2]!.done = true;
    const taken: number[] = [];
    for (let i = q.first(); i !== undefined; i = q.first()) {
      taken.push(i.id);
      q.take();
    }
    expect(taken).toEqual([2, 4]);
    expect(q.isEmpty).toBe(true);
  });

  it('keeps its order and its count across the cuts of a queue that never empties', () => {
    const q = new WaitQueue<Item>();
    let next = 0;
    let expected = 0;
    // Two in, one out, 10 000 times: the taken prefix is cut off again and again while entries wait behind it.
    for (let round = 0; round < 10_000; round++) {
      q.push(item(next++));
      q.push(item(next++));
      expect(q.first()?.id).toBe(expected++);
      q.take();
    }
    expect(q.waiting()).toBe(10_000);
    expect(q.drain().map((i) => i.id)).toEqual(Array.from({ length: 10_000 }, (_, i) => 10_000 + i));
    expect(q.isEmpty).toBe(true);
    expect(q.first()).toBeUndefined();
  });

  it('drains only the entries that have not settled, and counts only those as waiting', () => {
    const q = new WaitQueue<Item>();
    const items = [1, 2, 3].map(item);
    for (const i of items) q.push(i);
    items[1]!.done = true;
    expect(q.waiting()).toBe(2);
    expect(q.drain().map((i) => i.id)).toEqual([1, 3]);
    expect(q.waiting()).toBe(0);
  });
});
