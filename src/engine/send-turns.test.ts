import { describe, expect, it } from 'vitest';
import { SendTurns } from './send-turns.js';

/** Whether `p` has settled after the pending callbacks have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  return done;
}

describe('SendTurns: who a counting probe keeps off the wire', () => {
  it("lets two plans' counts hold their turns at once, and a second count of one plan wait for the first", async () => {
    const turns = new SendTurns();
    const free = await turns.exclusive('free');
    const pro = turns.exclusive('pro');
    expect(await settled(pro)).toBe(true);
    const free2 = turns.exclusive('free');
    expect(await settled(free2)).toBe(false);
    free();
    expect(await settled(free2)).toBe(true);
    (await pro)();
    (await free2)();
  });

  it("a turn of everyone's waits for every turn, and holds every other back", async () => {
    const turns = new SendTurns();
    const free = await turns.exclusive('free');
    const all = turns.exclusive('all');
    expect(await settled(all)).toBe(false);
    free();
    expect(await settled(all)).toBe(true);
    const pro = turns.exclusive('pro');
    expect(await settled(pro)).toBe(false);
    (await all)();
    expect(await settled(pro)).toBe(true);
  });

  it("holds a shared request back only for a turn in its scope, and a turn waits for its scope's requests out", async () => {
    const turns = new SendTurns();
    const pro = await turns.exclusive('pro');
    // Free's shared request goes out beside Pro's count; Pro's waits for it to end.
    let release!: () => void;
    const out = turns.shared('free', () => new Promise<void>((r) => (release = r)));
    const proShared = turns.shared('pro', async () => 'sent');
    expect(await settled(proShared)).toBe(false);
    // A count of Free waits for Free's request out.
    const free = turns.exclusive('free');
    expect(await settled(free)).toBe(false);
    release();
    await out;
    expect(await settled(free)).toBe(true);
    pro();
    (await free)();
    expect(await proShared).toBe('sent');
  });
});
